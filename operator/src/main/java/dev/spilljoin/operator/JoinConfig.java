package dev.spilljoin.operator;

import java.nio.file.Path;

/**
 * Tuning and test knobs of a join, immutable. Zero (or null) means "choose automatically from the budget and the
 * size hints"; tests set the knobs to force spilling, recursion and the nested-loop path on small inputs.
 *
 * @param pageSize            bytes of an off-heap row page (a multiple of 8, at least 64); an upper bound: the join
 *                            uses smaller pages when the budget is small (see {@link SpillSizing})
 * @param outputBatchRows     rows per result batch
 * @param buildSide           forced build side, or null for automatic
 * @param spillDirectory      root under which the join's private spill directory is made (null = java.io.tmpdir)
 * @param fanoutLog2          partitions per level as a power of two (1..10), 0 = automatic (4..10)
 * @param spillBufferBytes    write-combining buffer per spilled partition (at least 64), 0 = automatic
 * @param spillWindowBytes    mapped window of each spill writer and reader (a multiple of 4096), 0 = automatic
 * @param maxRecursionDepth   the deepest re-partitioning level (at least 1); deeper, a pair takes the nested loop
 * @param forceSpill          test knob: every partition spills during the build (none stays resident)
 * @param roleReversal        whether a spilled pair whose probe file is the smaller is joined with the roles reversed
 *                            (default true; tests turn it off to reach the nested-loop path with a small probe side)
 * @param pairMemoryLimit     test knob: the most bytes a spilled pair (or a nested-loop chunk) may load, 0 = the
 *                            budget; small values force re-partitioning and the nested-loop path
 */
public record JoinConfig(int pageSize, int outputBatchRows, Side buildSide, Path spillDirectory, int fanoutLog2,
                         int spillBufferBytes, int spillWindowBytes, int maxRecursionDepth, boolean forceSpill,
                         boolean roleReversal, long pairMemoryLimit) {
    /** The default maximum recursion depth: 4 levels of re-partitioning below level 0. */
    public static final int DEFAULT_MAX_RECURSION_DEPTH = 4;
    /**
     * The defaults. Row pages of up to 4 MiB: from 2 MiB up, pages are mapped on transparent huge pages
     * ({@code NativeMemory}), which halves the cost of the random loads of probing a large table on a VM; small
     * budgets still get small pages ({@link SpillSizing}: at most an eighth of the budget in partially filled pages).
     */
    public static final JoinConfig DEFAULT = new JoinConfig(4 << 20, 1024, null);

    public JoinConfig {
        if (pageSize < 64 || (pageSize & 7) != 0) {
            throw new IllegalArgumentException("pageSize must be a multiple of 8 and at least 64 bytes, got " + pageSize);
        }
        if (outputBatchRows < 1) {
            throw new IllegalArgumentException("outputBatchRows must be at least 1, got " + outputBatchRows);
        }
        if (fanoutLog2 < 0 || fanoutLog2 > 10) {
            throw new IllegalArgumentException("fanoutLog2 must be 0 (automatic) or 1..10, got " + fanoutLog2);
        }
        if (spillBufferBytes != 0 && spillBufferBytes < 64) {
            throw new IllegalArgumentException("spillBufferBytes must be 0 (automatic) or at least 64, got "
                    + spillBufferBytes);
        }
        if (spillWindowBytes < 0 || spillWindowBytes % 4096 != 0) {
            throw new IllegalArgumentException("spillWindowBytes must be 0 (automatic) or a positive multiple of 4096, got "
                    + spillWindowBytes);
        }
        if (maxRecursionDepth < 1) {
            throw new IllegalArgumentException("maxRecursionDepth must be at least 1, got " + maxRecursionDepth);
        }
        if (pairMemoryLimit < 0) {
            throw new IllegalArgumentException("pairMemoryLimit must be 0 (the budget) or positive, got " + pairMemoryLimit);
        }
    }

    /** The original three knobs; everything else automatic. */
    public JoinConfig(int pageSize, int outputBatchRows, Side buildSide) {
        this(pageSize, outputBatchRows, buildSide, null, 0, 0, 0, DEFAULT_MAX_RECURSION_DEPTH, false, true, 0);
    }

    public JoinConfig withPageSize(int bytes) {
        return new JoinConfig(bytes, outputBatchRows, buildSide, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, forceSpill, roleReversal, pairMemoryLimit);
    }

    public JoinConfig withOutputBatchRows(int rows) {
        return new JoinConfig(pageSize, rows, buildSide, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, forceSpill, roleReversal, pairMemoryLimit);
    }

    public JoinConfig withBuildSide(Side side) {
        return new JoinConfig(pageSize, outputBatchRows, side, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, forceSpill, roleReversal, pairMemoryLimit);
    }

    public JoinConfig withSpillDirectory(Path directory) {
        return new JoinConfig(pageSize, outputBatchRows, buildSide, directory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, forceSpill, roleReversal, pairMemoryLimit);
    }

    /** Forces the fanout (partitions per level = 2^log2) and the spill buffer and window sizes (0 = automatic). */
    public JoinConfig withSpillSizes(int fanoutLog2, int bufferBytes, int windowBytes) {
        return new JoinConfig(pageSize, outputBatchRows, buildSide, spillDirectory, fanoutLog2, bufferBytes,
                windowBytes, maxRecursionDepth, forceSpill, roleReversal, pairMemoryLimit);
    }

    public JoinConfig withMaxRecursionDepth(int depth) {
        return new JoinConfig(pageSize, outputBatchRows, buildSide, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, depth, forceSpill, roleReversal, pairMemoryLimit);
    }

    /** Test knob: every partition spills during the build. */
    public JoinConfig withForceSpill(boolean force) {
        return new JoinConfig(pageSize, outputBatchRows, buildSide, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, force, roleReversal, pairMemoryLimit);
    }

    /** Whether spilled pairs may be joined with their roles reversed when the probe file is the smaller. */
    public JoinConfig withRoleReversal(boolean reverse) {
        return new JoinConfig(pageSize, outputBatchRows, buildSide, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, forceSpill, reverse, pairMemoryLimit);
    }

    /** Test knob: the most bytes a spilled pair or nested-loop chunk may load (forces recursion when small). */
    public JoinConfig withPairMemoryLimit(long bytes) {
        return new JoinConfig(pageSize, outputBatchRows, buildSide, spillDirectory, fanoutLog2, spillBufferBytes,
                spillWindowBytes, maxRecursionDepth, forceSpill, roleReversal, bytes);
    }
}
