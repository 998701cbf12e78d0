package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.ByteSize;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction2;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskInterruptListener;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The join of one zipped partition pair, run in a Spark task: the left and right rows of partition i (both sides
 * were shuffled by the same key expression into the same number of partitions, so they hold the same keys) are
 * joined by a spilljoin {@link HashJoin} and its result batches are handed out as rows, batch by batch, in
 * the task's {@link RowFormat}.
 *
 * <p>Per task: the budget is the caller's fixed one, or what {@link TaskMemory} gets from Spark up to the expected
 * per-task share; a {@link TaskJoinResources} holds the join, that memory and the spill root, and a task-completion
 * listener closes it on success, failure and kill; a task-interrupt listener (Spark calls it from the thread that kills
 * the task) cancels the join, which stops at its next batch or spill block boundary. The join spills under the
 * task's spill root in Spark's local directories. When the output is exhausted the resources are closed at once
 * (memory back to Spark before the task ends) and a {@link TaskJoinSummary} goes to the stats accumulator, if any.
 */
final class PartitionJoinTask<T> implements FlatMapFunction2<Iterator<T>, Iterator<T>, T> {
    private static final long serialVersionUID = 1L;
    /** Execution memory is asked for in chunks of at most this, so concurrent tasks share the pool fairly. */
    static final long MEMORY_CHUNK_BYTES = 16L << 20;

    private final StructType leftStruct;
    private final StructType rightStruct;
    private final int[] leftKeys;
    private final int[] rightKeys;
    private final JoinType joinType;
    private final Side buildSide;
    private final long expectedTaskBudget;
    private final SpillJoinOptions options;
    private final RowFormat<T> format;

    PartitionJoinTask(StructType leftStruct, StructType rightStruct, int[] leftKeys, int[] rightKeys, JoinType joinType,
                      Side buildSide, long expectedTaskBudget, SpillJoinOptions options, RowFormat<T> format) {
        this.leftStruct = leftStruct;
        this.rightStruct = rightStruct;
        this.leftKeys = leftKeys.clone();
        this.rightKeys = rightKeys.clone();
        this.joinType = joinType;
        this.buildSide = buildSide;
        this.expectedTaskBudget = expectedTaskBudget;
        this.options = options;
        this.format = format;
    }

    /** The join's spec over the two sides' schemas, under {@code budgetBytes}, spilling under {@code spillRoot}. */
    JoinSpec spec(long budgetBytes, Path spillRoot) {
        Schema left = SparkTypes.toSchema(leftStruct);
        Schema right = SparkTypes.toSchema(rightStruct);
        JoinSpec.Builder b = JoinSpec.builder(left, right).joinType(joinType).budgetBytes(budgetBytes)
                .config(config().toBuilder().spillDirectory(spillRoot).build());
        for (int k = 0; k < leftKeys.length; k++) {
            b.on(leftKeys[k], rightKeys[k]);
        }
        return b.build();
    }

    /** The join's knobs: the build side fixed on the driver, the batch size of the options. */
    static JoinConfig config(Side buildSide, int batchRows) {
        return JoinConfig.builder().buildSide(buildSide).outputBatchRows(batchRows).build();
    }

    private JoinConfig config() {
        return config(buildSide, options.batchRows());
    }

    @Override
    public Iterator<T> call(Iterator<T> leftRows, Iterator<T> rightRows) {
        TaskContext context = TaskContext.get();
        TaskMemory memory = null;
        long budget = options.taskBudgetBytes();
        long minimum = HashJoin.minimumBudget(config());
        if (budget == 0) {
            memory = new TaskMemory(context.taskMemoryManager());
            long target = Math.max(expectedTaskBudget, minimum);
            budget = memory.acquireUpTo(target, Math.min(MEMORY_CHUNK_BYTES, target));
        }
        TaskJoinResources resources = TaskJoinResources.open(memory);
        context.addTaskCompletionListener((TaskCompletionListener) c -> resources.close());
        context.addTaskInterruptListener((TaskInterruptListener) (c, reason) -> resources.cancel());
        if (budget < minimum) {
            throw new IllegalStateException("Spark's memory manager granted " + ByteSize.format(budget) + " to the join of"
                    + " partition " + context.partitionId() + ", below the join's minimum of " + ByteSize.format(minimum)
                    + "; raise spark.executor.memory, run fewer tasks per executor, or set SpillJoinOptions.taskBudgetBytes");
        }
        JoinSpec spec = spec(budget, resources.spillRoot());
        HashJoin join = HashJoin.create(spec);
        resources.attach(join);
        BatchSource left = format.source(leftRows, spec.leftSchema(), options.batchRows());
        BatchSource right = format.source(rightRows, spec.rightSchema(), options.batchRows());
        return new ResultIterator(context, resources, join.iterator(left, right), format.results(spec.outputSchema()));
    }

    /** Result rows batch by batch; closes the task's resources as soon as the join has no more output. */
    private final class ResultIterator implements Iterator<T> {
        private final TaskContext context;
        private final TaskJoinResources resources;
        private final Iterator<Batch> batches;
        private final RowFormat.ResultRows<T> rows;
        private int next;
        private boolean finished;

        ResultIterator(TaskContext context, TaskJoinResources resources, Iterator<Batch> batches,
                       RowFormat.ResultRows<T> rows) {
            this.context = context;
            this.resources = resources;
            this.batches = batches;
            this.rows = rows;
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
            if (options.taskStats() != null) {
                options.taskStats().add(new TaskJoinSummary(context.partitionId(), stats.budgetBytes(),
                        stats.peakReservedBytes(), stats.rows(Side.LEFT), stats.rows(Side.RIGHT), stats.outputRows(),
                        stats.partitions(), stats.spilledBytesBuild() + stats.spilledBytesProbe(), stats.toJson()));
            }
        }
    }
}
