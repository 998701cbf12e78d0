package dev.spilljoin.operator;

import java.util.Arrays;

/**
 * One worker's staged spill rows grouped by partition, so that {@link ReservedSpillWriter#spillStaged} appends each
 * partition's rows under that partition's own lock instead of one lock for the whole writer: workers spilling at
 * the same time then wait for each other only when they reach the same partition at the same moment, and each
 * starts its round of the partitions at a different one ({@link #firstPartition}), so that workers in step do not
 * meet at all.
 *
 * <p>Algorithm: a counting sort of the staged rows' indexes by partition, stable (a partition's rows keep their
 * staging order). Invariants: after {@link #group}, {@code [from(p), to(p))} are the positions of partition p's rows
 * in {@link #stagedRow}'s order, every kept staged row in exactly one partition's range. Not thread-safe: each worker
 * has its own.
 */
final class StagedSpillOrder {
    private final int partitions;
    private final int worker;
    private final int firstPartition;
    /** Per partition p, where its rows start in {@link #order}. */
    private final int[] from;
    /** Per partition p, where its rows end in {@link #order}. */
    private final int[] to;
    /** The staged rows' indexes, partition by partition. */
    private int[] order = new int[0];

    /**
     * The order of worker {@code worker} of {@code workers} over {@code partitions} partitions: its rounds start at
     * the partition that spreads the workers' starting points evenly.
     */
    StagedSpillOrder(int partitions, int worker, int workers) {
        this.partitions = partitions;
        this.worker = worker;
        this.firstPartition = (int) ((long) worker * partitions / Math.max(1, workers)) % partitions;
        this.from = new int[partitions];
        this.to = new int[partitions];
    }

    /**
     * Groups the staged rows {@code j} in {@code [0, m)} by their partition, {@code partitionOfRow[rows[j]]}, keeping
     * only those of partitions {@code spilled} marks (every one when it is null).
     */
    void group(int[] partitionOfRow, int[] rows, int m, boolean[] spilled) {
        if (order.length < m) {
            order = new int[m];
        }
        Arrays.fill(to, 0);
        for (int j = 0; j < m; j++) {
            int p = partitionOfRow[rows[j]];
            if (spilled == null || spilled[p]) {
                to[p]++;
            }
        }
        int at = 0;
        for (int p = 0; p < partitions; p++) {
            from[p] = at;
            at += to[p];
            to[p] = from[p];
        }
        for (int j = 0; j < m; j++) {
            int p = partitionOfRow[rows[j]];
            if (spilled == null || spilled[p]) {
                order[to[p]++] = j;
            }
        }
    }

    int partitions() {
        return partitions;
    }

    /** The index of the worker whose rows these are. */
    int worker() {
        return worker;
    }

    /** The partition this worker's rounds start at. */
    int firstPartition() {
        return firstPartition;
    }

    /** Where partition {@code p}'s rows begin in the order. */
    int from(int p) {
        return from[p];
    }

    /** Where partition {@code p}'s rows end in the order. */
    int to(int p) {
        return to[p];
    }

    /** The staged row (its index among the staged rows) at position {@code i} of the order. */
    int stagedRow(int i) {
        return order[i];
    }
}
