package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.spill.ByteSize;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskInterruptListener;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Everything one task's join holds: the join (native memory, spill files), the execution memory taken from Spark
 * ({@link TaskMemory}, absent when the caller fixed the budget) and the task's spill root, a directory made in
 * Spark's local directories where Spark's own spills go ({@code DiskBlockManager.createTempLocalBlock()}).
 *
 * <p>Invariant: after {@link #close()} the join is closed, every byte is returned to Spark and the spill root with
 * everything under it is deleted. {@code close()} is idempotent and is the single cleanup path: the task's output
 * iterator calls it when the join's output is exhausted, and a task-completion listener calls it on success, failure
 * and kill alike.
 *
 * <p>{@link #forTask} opens them for the running task: the budget is the caller's fixed one, or what
 * {@link TaskMemory} gets from Spark up to the expected per-task share (asked in chunks of at most
 * {@link #MEMORY_CHUNK_BYTES}, so concurrent tasks share the pool fairly); the completion listener is registered
 * before anything can fail, and a task-interrupt listener (Spark calls it from the thread that kills the task)
 * cancels the join, which stops at its next batch or spill block boundary.
 */
final class TaskJoinResources implements AutoCloseable {
    /** Execution memory is asked for in chunks of at most this, so concurrent tasks share the pool fairly. */
    static final long MEMORY_CHUNK_BYTES = 16L << 20;

    private final TaskMemory memory;
    private final Path spillRoot;
    private long budget;
    private volatile HashJoin join;
    private boolean closed;

    private TaskJoinResources(TaskMemory memory, Path spillRoot) {
        this.memory = memory;
        this.spillRoot = spillRoot;
    }

    /**
     * Opens the resources of the running task's join and registers their cleanup with the task.
     *
     * @param fixedBudget    the join's budget as the user fixed it; 0 = take it from Spark's task memory manager
     * @param expectedBudget what the task may expect from Spark (the target when the budget is not fixed)
     * @param minimum        the join's minimum budget; a smaller grant fails the task with what to change
     * @param budgetSetting  the setting that fixes the budget, named in that error
     */
    static TaskJoinResources forTask(TaskContext context, long fixedBudget, long expectedBudget, long minimum,
                                     String budgetSetting) {
        TaskMemory memory = null;
        long budget = fixedBudget;
        if (budget == 0) {
            memory = new TaskMemory(context.taskMemoryManager());
            long target = Math.max(expectedBudget, minimum);
            budget = memory.acquireUpTo(target, Math.min(MEMORY_CHUNK_BYTES, target));
        }
        TaskJoinResources resources = open(memory);
        resources.budget = budget;
        context.addTaskCompletionListener((TaskCompletionListener) c -> resources.close());
        context.addTaskInterruptListener((TaskInterruptListener) (c, reason) -> resources.cancel());
        if (budget < minimum) {
            throw new IllegalStateException("Spark's memory manager granted " + ByteSize.format(budget) + " to the join of"
                    + " partition " + context.partitionId() + ", below the join's minimum of " + ByteSize.format(minimum)
                    + "; raise spark.executor.memory, run fewer tasks per executor, or set " + budgetSetting);
        }
        return resources;
    }

    /** The join's budget in bytes: fixed by the caller or granted by Spark. */
    long budget() {
        return budget;
    }

    /** Makes the task's spill root in Spark's local directories; {@code memory} may be null (fixed budget). */
    private static TaskJoinResources open(TaskMemory memory) {
        File dir = SparkEnv.get().blockManager().diskBlockManager().createTempLocalBlock()._2();
        try {
            Files.createDirectories(dir.toPath());
        } catch (IOException e) {
            if (memory != null) {
                memory.releaseAll();
            }
            throw new UncheckedIOException("cannot create the join's spill directory " + dir
                    + " in Spark's local directories (spark.local.dir); check that it is writable", e);
        }
        return new TaskJoinResources(memory, dir.toPath());
    }

    Path spillRoot() {
        return spillRoot;
    }

    /** Hands the join to this holder, which closes it with everything else. */
    void attach(HashJoin hashJoin) {
        this.join = hashJoin;
    }

    HashJoin join() {
        return join;
    }

    /** Asks the join to stop (any thread, e.g. Spark's task killer); close still runs on the task's thread. */
    void cancel() {
        HashJoin j = join;
        if (j != null) {
            j.cancel();
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (join != null) {
                join.close();
            }
        } finally {
            try {
                if (memory != null) {
                    memory.releaseAll();
                }
            } finally {
                deleteRecursively(spillRoot);
            }
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the join's spill directory " + root, e);
        }
    }
}
