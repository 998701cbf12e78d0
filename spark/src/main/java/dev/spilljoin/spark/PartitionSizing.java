package dev.spilljoin.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;

/**
 * The driver-side arithmetic of a Spark join's size: the per-task budget a task can expect from Spark's memory
 * manager, and the partition count that keeps each task's build side within a few times that budget.
 *
 * <p>Per-task budget (Spark's unified memory manager): the execution pool is
 * {@code (heap - 300 MiB) * spark.memory.fraction} (default 0.6), or {@code spark.memory.offHeap.size} when off-heap
 * memory is enabled; each of the executor's {@code cores / spark.task.cpus} concurrent tasks may hold up to
 * {@code 1/slots} of it. In local mode the heap is the driver's and the slots are its default parallelism.
 *
 * <p>Partition count: {@code max(defaultParallelism, ceil(ROW_OVERHEAD * buildBytes / taskBudget))}, where
 * buildBytes is the optimizer's size estimate of the smaller side and ROW_OVERHEAD = 2 covers the join's row format
 * and hash table over Spark's row size. With uniform keys each task's build side then fits its budget; skewed
 * partitions spill. When the optimizer has no estimate, {@code spark.sql.shuffle.partitions} is used.
 */
final class PartitionSizing {
    static final long RESERVED_SYSTEM_MEMORY = 300L << 20;
    static final int ROW_OVERHEAD = 2;
    static final int MAX_PARTITIONS = 1 << 16;
    /** Budgets below this are raised to it: a join needs a few pages to run at all. */
    static final long MIN_TASK_BUDGET = 4L << 20;

    private PartitionSizing() {
    }

    /** The execution memory one task may expect, by the arithmetic in the class comment. */
    static long expectedTaskBudget(SparkContext sc) {
        SparkConf conf = sc.getConf();
        long pool;
        if (conf.getBoolean("spark.memory.offHeap.enabled", false)) {
            pool = conf.getSizeAsBytes("spark.memory.offHeap.size", "0");
        } else {
            long heap = sc.isLocal() ? Runtime.getRuntime().maxMemory() : conf.getSizeAsBytes("spark.executor.memory", "1g");
            pool = (long) ((heap - RESERVED_SYSTEM_MEMORY) * conf.getDouble("spark.memory.fraction", 0.6));
        }
        int slots = sc.isLocal() ? sc.defaultParallelism()
                : Math.max(1, conf.getInt("spark.executor.cores", 1) / Math.max(1, conf.getInt("spark.task.cpus", 1)));
        return Math.max(MIN_TASK_BUDGET, pool / Math.max(1, slots));
    }

    /** The partition count for a build side of {@code buildBytes} (estimated; Long.MAX_VALUE = unknown). */
    static int partitions(long buildBytes, long taskBudget, int defaultParallelism, int shufflePartitions) {
        if (buildBytes == Long.MAX_VALUE) {
            return Math.max(1, shufflePartitions);
        }
        double needed = Math.ceil((double) ROW_OVERHEAD * buildBytes / taskBudget);
        return (int) Math.max(Math.max(1, defaultParallelism), Math.min(MAX_PARTITIONS, needed));
    }
}
