package dev.spilljoin.estimator;

/**
 * The costs and limits the {@link PartitionPlanner} plans with.
 *
 * @param partitionBufferBytes the fixed bytes one spilled partition holds while it is written or read (its write
 *                             buffer, block headers and the like); the join gives its own figure
 * @param tableBytesPerRow     the hash table's bytes per row on top of the row's own bytes (bucket and link arrays)
 * @param minFanoutLog2        the smallest fanout of a partitioning pass that the budget allows, as log2 (4 = 16)
 * @param maxFanoutLog2        the largest fanout of a partitioning pass, as log2 (10 = 1024)
 * @param partitionFill        the share of the pair pass's memory a partition is planned to fill (below 1: a margin
 *                             for estimate error and for keys the sketch could not see)
 * @param bufferShare          the most of the budget the partition buffers may take during partitioning, leaving
 *                             the rest to the resident partitions
 */
public record PlannerConfig(long partitionBufferBytes, long tableBytesPerRow, int minFanoutLog2, int maxFanoutLog2,
        double partitionFill, double bufferShare) {

    /** 2^4 .. 2^10 partitions, partitions planned 80 % full, buffers at most half the budget. */
    public static PlannerConfig defaults(long partitionBufferBytes, long tableBytesPerRow) {
        return new PlannerConfig(partitionBufferBytes, tableBytesPerRow, 4, 10, 0.8, 0.5);
    }

    public PlannerConfig {
        if (partitionBufferBytes <= 0) {
            throw new IllegalArgumentException("partitionBufferBytes must be > 0, got " + partitionBufferBytes);
        }
        if (tableBytesPerRow < 0) {
            throw new IllegalArgumentException("tableBytesPerRow must be >= 0, got " + tableBytesPerRow);
        }
        if (minFanoutLog2 < 1 || maxFanoutLog2 > 20 || minFanoutLog2 > maxFanoutLog2) {
            throw new IllegalArgumentException("fanout bounds must satisfy 1 <= minFanoutLog2 <= maxFanoutLog2 <= 20, "
                    + "got " + minFanoutLog2 + " and " + maxFanoutLog2);
        }
        if (!(partitionFill > 0 && partitionFill <= 1)) {
            throw new IllegalArgumentException("partitionFill must be in (0, 1], got " + partitionFill);
        }
        if (!(bufferShare > 0 && bufferShare < 1)) {
            throw new IllegalArgumentException("bufferShare must be in (0, 1), got " + bufferShare);
        }
    }

    /** A copy with other fanout bounds (tests force small fanouts with it). */
    public PlannerConfig withFanoutLog2(int min, int max) {
        return new PlannerConfig(partitionBufferBytes, tableBytesPerRow, min, max, partitionFill, bufferShare);
    }
}
