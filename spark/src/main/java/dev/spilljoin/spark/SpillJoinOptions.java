package dev.spilljoin.spark;

import dev.spilljoin.operator.JoinConfig;
import org.apache.spark.util.CollectionAccumulator;

import java.io.Serializable;

/**
 * How a Spark join runs, immutable and serializable (it travels to the executors with the tasks). Zero means
 * "choose automatically":
 *
 * @param partitions      the partition count both sides are shuffled to; 0 = from the smaller side's estimated
 *                        size and the per-task budget ({@link PartitionSizing})
 * @param taskBudgetBytes each task's join budget; 0 = taken from Spark's task memory manager ({@link TaskMemory}),
 *                        a positive value is used as given, without asking Spark
 * @param batchRows       rows per batch handed to the join
 * @param internalRows    the fast path: tasks read and write Spark's internal rows (true, the default) instead of
 *                        going through the public {@code Row} API (false: slower, but no Spark internals used)
 * @param taskStats       optional: receives one {@link TaskJoinSummary} per finished task (register it with
 *                        {@code sparkContext.collectionAccumulator()}); null = none
 * @param taskThreads     the workers of each task's join ({@code JoinConfig.threads}, 1..{@value JoinConfig#MAX_THREADS};
 *                        default 1): Spark already runs one task per core, so more pays only where a task has cores of
 *                        its own to spare ({@code spark.task.cpus} above 1, fewer tasks than cores, a skewed partition
 *                        that runs long after the others)
 */
public record SpillJoinOptions(int partitions, long taskBudgetBytes, int batchRows, boolean internalRows,
                               CollectionAccumulator<TaskJoinSummary> taskStats, int taskThreads) implements Serializable {
    public static final SpillJoinOptions DEFAULT = new SpillJoinOptions(0, 0, 4096, true, null, 1);

    public SpillJoinOptions {
        if (partitions < 0) {
            throw new IllegalArgumentException("partitions must be 0 (automatic) or positive, got " + partitions);
        }
        if (taskBudgetBytes < 0) {
            throw new IllegalArgumentException("taskBudgetBytes must be 0 (from Spark's memory manager) or positive, got "
                    + taskBudgetBytes);
        }
        if (batchRows < 1) {
            throw new IllegalArgumentException("batchRows must be at least 1, got " + batchRows);
        }
        if (taskThreads < 1 || taskThreads > JoinConfig.MAX_THREADS) {
            throw new IllegalArgumentException("taskThreads must be 1.." + JoinConfig.MAX_THREADS + ", got " + taskThreads);
        }
    }

    public SpillJoinOptions withPartitions(int count) {
        return new SpillJoinOptions(count, taskBudgetBytes, batchRows, internalRows, taskStats, taskThreads);
    }

    public SpillJoinOptions withTaskBudgetBytes(long bytes) {
        return new SpillJoinOptions(partitions, bytes, batchRows, internalRows, taskStats, taskThreads);
    }

    public SpillJoinOptions withBatchRows(int rows) {
        return new SpillJoinOptions(partitions, taskBudgetBytes, rows, internalRows, taskStats, taskThreads);
    }

    public SpillJoinOptions withInternalRows(boolean fastPath) {
        return new SpillJoinOptions(partitions, taskBudgetBytes, batchRows, fastPath, taskStats, taskThreads);
    }

    public SpillJoinOptions withTaskStats(CollectionAccumulator<TaskJoinSummary> accumulator) {
        return new SpillJoinOptions(partitions, taskBudgetBytes, batchRows, internalRows, accumulator, taskThreads);
    }

    /** The workers of each task's join (see {@link #taskThreads()}). */
    public SpillJoinOptions withTaskThreads(int threads) {
        return new SpillJoinOptions(partitions, taskBudgetBytes, batchRows, internalRows, taskStats, threads);
    }
}
