package dev.spilljoin.spark;

import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.data.Batch;
import org.apache.spark.TaskContext;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A task join's result rows, batch by batch: each result batch is loaded into the {@link RowFormat.ResultRows} and
 * handed out row by row; between batches the task is checked for a kill. As soon as the join has no more output the
 * task's resources are closed (memory back to Spark before the task ends) and the join's final stats go to
 * {@code onFinish}, once.
 *
 * @param <T> the row class
 */
final class TaskResultIterator<T> implements Iterator<T> {
    private final TaskContext context;
    private final TaskJoinResources resources;
    private final Iterator<Batch> batches;
    private final RowFormat.ResultRows<T> rows;
    private final Consumer<JoinStats> onFinish;
    private int next;
    private boolean finished;

    TaskResultIterator(TaskContext context, TaskJoinResources resources, Iterator<Batch> batches,
                       RowFormat.ResultRows<T> rows, Consumer<JoinStats> onFinish) {
        this.context = context;
        this.resources = resources;
        this.batches = batches;
        this.rows = rows;
        this.onFinish = onFinish;
    }

    @Override
    public boolean hasNext() {
        while (next == rows.rowCount()) {
            if (finished) {
                return false;
            }
            context.killTaskIfInterrupted();
            if (batches.hasNext()) {
                rows.load(batches.next());
                next = 0;
            } else {
                finish();
            }
        }
        return true;
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the join of partition " + context.partitionId() + " has no more rows");
        }
        return rows.row(next++);
    }

    private void finish() {
        finished = true;
        JoinStats stats = resources.join().stats();
        resources.close();
        onFinish.accept(stats);
    }
}
