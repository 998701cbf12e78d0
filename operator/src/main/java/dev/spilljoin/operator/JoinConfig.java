package dev.spilljoin.operator;

import java.nio.file.Path;

/**
 * Tuning and test knobs of a join, immutable; made with {@link #builder()} (or {@link #toBuilder()} of another
 * configuration). Zero (or null) means "choose automatically from the budget and the size hints"; tests set the knobs
 * to force spilling, recursion and the nested-loop path on small inputs.
 *
 * @param pageSize            bytes of an off-heap row page (a multiple of 8, at least 64); an upper bound: the join
 *                            uses smaller pages when the budget is small or the build input is expected to be
 *                            (see {@link SpillSizing})
 * @param outputBatchRows     rows per result batch
 * @param outputBatchBytes    bytes of values per result batch: a batch is handed out once the variable-width values
 *                            copied into it (estimated from above by the rows they come from) reach this, so it
 *                            holds at most this plus one row ({@link #DEFAULT_OUTPUT_BATCH_BYTES} by default)
 * @param buildSide           forced build side, or null for automatic
 * @param spillDirectory      root under which the join's private spill directory is made (null = java.io.tmpdir)
 * @param fanoutLog2          partitions per level as a power of two (1..10), 0 = automatic (4..10)
 * @param spillBufferBytes    write-combining buffer per spilled partition (at least 64), 0 = automatic
 * @param spillWindowBytes    mapped window of each spill reader (the pair phase's readers map larger ones if they fit)
 *                            (a multiple of 4096), 0 = automatic
 * @param maxRecursionDepth   the deepest re-partitioning level (at least 1); deeper, a pair takes the nested loop
 *                            ({@link #DEFAULT_MAX_RECURSION_DEPTH}; tests lower it to reach the nested loop)
 * @param forceSpill          test knob: every partition spills during the build (none stays resident)
 * @param roleReversal        whether a spilled pair whose probe file is the smaller is joined with the roles reversed
 *                            (default true; tests turn it off to reach the nested-loop path with a small probe side)
 * @param pairMemoryLimit     test knob: the most bytes a spilled pair (or a nested-loop chunk) may load, 0 = the
 *                            budget; small values force re-partitioning and the nested-loop path
 * @param threads             the join's workers (1..{@value #MAX_THREADS}; default 1): with 2 or more, the build
 *                            pass, the probe pass and the spilled pairs run on that many threads within the one
 *                            budget (see {@link HashJoin})
 * @param rowsPerWorker       the input rows that make a worker worth its thread ({@link #workersFor}): the build pass
 *                            (with the table's construction) and the probe pass over an input whose size hint or
 *                            cached statistics give fewer than {@code threads} times this many rows run one worker per
 *                            this many (at least one); 0: every phase runs {@code threads} workers, whatever the
 *                            input (tests that want every worker on small inputs). Default
 *                            {@value #DEFAULT_ROWS_PER_WORKER}
 */
public record JoinConfig(int pageSize, int outputBatchRows, long outputBatchBytes, Side buildSide, Path spillDirectory,
                         int fanoutLog2, int spillBufferBytes, int spillWindowBytes, int maxRecursionDepth,
                         boolean forceSpill, boolean roleReversal, long pairMemoryLimit, int threads,
                         long rowsPerWorker) {
    /** The most workers a join runs. */
    public static final int MAX_THREADS = 256;
    /** The on-heap batches each worker holds of its own ({@link #heapBatches}). */
    private static final int BATCHES_PER_WORKER = 4;
    /**
     * The default maximum recursion depth: 32 levels of re-partitioning below level 0, a safety bound only. A pair
     * that does not fit is re-partitioned for as long as it splits (see {@code SpilledPairs}): at the smallest
     * budget (64kB, fanout 2) an input needs one level per doubling beyond a partition's capacity of some 40 kB, 12
     * levels for 5M rows, and 32 levels reach some 10^14 bytes. Pairs that stop splitting (heavy keys) take the
     * nested loop at once, whatever the depth. A low bound sends large inputs to the nested loop, whose cost grows
     * with the square of a pair's size.
     */
    public static final int DEFAULT_MAX_RECURSION_DEPTH = 32;
    /**
     * The default bound of a result batch's values, 4 MiB: rows of a few hundred bytes fill the 1,024 rows first; wide
     * rows make smaller batches instead of a batch of 1,024 wide rows on the heap.
     */
    public static final long DEFAULT_OUTPUT_BATCH_BYTES = 4L << 20;
    /**
     * The default {@link #rowsPerWorker}: 16 input batches of 4,096 rows. Below that a worker's share of a pass takes
     * about what starting its thread does (0.3-0.7 ms on the VM measured): a join of 10,000 x 100,000 rows took
     * 5.3-6.2 ms on two workers against 3.0-3.3 ms on one, five thread starts (the build pass, the key statistics,
     * the occupancy, the payload copy, the probe pass) outweighing what the second core did. DuckDB sizes a
     * pipeline's threads by its source the same way (about a thread per 120,000 rows).
     */
    public static final long DEFAULT_ROWS_PER_WORKER = 65_536;
    /**
     * The defaults. Row pages of up to 4 MiB: from 2 MiB up, pages are mapped on transparent huge pages
     * ({@code NativeMemory}), which halves the cost of the random loads of probing a large table on a VM; small
     * budgets still get small pages ({@link SpillSizing}: at most an eighth of the budget in partially filled pages).
     */
    public static final JoinConfig DEFAULT = new JoinConfig(4 << 20, 1024, DEFAULT_OUTPUT_BATCH_BYTES, null, null, 0, 0, 0,
            DEFAULT_MAX_RECURSION_DEPTH, false, true, 0, 1, DEFAULT_ROWS_PER_WORKER);

    public JoinConfig {
        if (pageSize < 64 || (pageSize & 7) != 0) {
            throw new IllegalArgumentException("pageSize must be a multiple of 8 and at least 64 bytes, got " + pageSize);
        }
        if (outputBatchRows < 1) {
            throw new IllegalArgumentException("outputBatchRows must be at least 1, got " + outputBatchRows);
        }
        if (outputBatchBytes < 1) {
            throw new IllegalArgumentException("outputBatchBytes must be at least 1, got " + outputBatchBytes);
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
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException("threads must be 1.." + MAX_THREADS + ", got " + threads);
        }
        if (rowsPerWorker < 0) {
            throw new IllegalArgumentException("rowsPerWorker must be 0 (every phase on all threads) or positive, got "
                    + rowsPerWorker);
        }
    }

    /**
     * The workers a pass over an input expected to hold {@code rows} rows (-1: unknown) runs: {@link #threads}, or,
     * for a known input of fewer than {@code threads} times {@link #rowsPerWorker} rows, one per that many rows (at
     * least one).
     */
    public int workersFor(long rows) {
        if (rows < 0 || rowsPerWorker == 0) {
            return threads;
        }
        long wanted = rows / rowsPerWorker + (rows % rowsPerWorker == 0 ? 0 : 1);
        return (int) Math.max(1, Math.min(threads, wanted));
    }

    /**
     * The most on-heap batches of up to {@link #outputBatchRows} rows and {@link #outputBatchBytes} of values that a
     * join of {@code threads} workers holds at once, counted from above: the recycled result batches and input copies
     * its helpers share (see {@code WorkerRun}) and, per worker, {@value #BATCHES_PER_WORKER} (its result batch, a
     * spilled pair's two row decoders and the decoder of a lane helping another worker's pair). A caller that wants
     * the join's batch heap bounded whatever the threads sizes the batches by this count.
     */
    public static int heapBatches(int threads) {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException("threads must be 1.." + MAX_THREADS + ", got " + threads);
        }
        return WorkerRun.recycledBatches(threads - 1) + threads * BATCHES_PER_WORKER;
    }

    /** A builder starting from {@link #DEFAULT}. */
    public static Builder builder() {
        return DEFAULT.toBuilder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link JoinConfig}; each setter names one knob of the record header, {@link #build()} validates. */
    public static final class Builder {
        private int pageSize;
        private int outputBatchRows;
        private long outputBatchBytes;
        private Side buildSide;
        private Path spillDirectory;
        private int fanoutLog2;
        private int spillBufferBytes;
        private int spillWindowBytes;
        private int maxRecursionDepth;
        private boolean forceSpill;
        private boolean roleReversal;
        private long pairMemoryLimit;
        private int threads;
        private long rowsPerWorker;

        private Builder(JoinConfig from) {
            pageSize = from.pageSize;
            outputBatchRows = from.outputBatchRows;
            outputBatchBytes = from.outputBatchBytes;
            buildSide = from.buildSide;
            spillDirectory = from.spillDirectory;
            fanoutLog2 = from.fanoutLog2;
            spillBufferBytes = from.spillBufferBytes;
            spillWindowBytes = from.spillWindowBytes;
            maxRecursionDepth = from.maxRecursionDepth;
            forceSpill = from.forceSpill;
            roleReversal = from.roleReversal;
            pairMemoryLimit = from.pairMemoryLimit;
            threads = from.threads;
            rowsPerWorker = from.rowsPerWorker;
        }

        public Builder pageSize(int bytes) {
            this.pageSize = bytes;
            return this;
        }

        public Builder outputBatchRows(int rows) {
            this.outputBatchRows = rows;
            return this;
        }

        /** The bytes of values after which a result batch is handed out. */
        public Builder outputBatchBytes(long bytes) {
            this.outputBatchBytes = bytes;
            return this;
        }

        /** The build side, or null to choose it from the size hints. */
        public Builder buildSide(Side side) {
            this.buildSide = side;
            return this;
        }

        public Builder spillDirectory(Path directory) {
            this.spillDirectory = directory;
            return this;
        }

        /** Partitions per level as a power of two (1..10), 0 = automatic. */
        public Builder fanoutLog2(int log2) {
            this.fanoutLog2 = log2;
            return this;
        }

        /** The write-combining buffer per spilled partition, 0 = automatic. */
        public Builder spillBufferBytes(int bytes) {
            this.spillBufferBytes = bytes;
            return this;
        }

        /** The mapped window of each spill reader (at least), 0 = automatic. */
        public Builder spillWindowBytes(int bytes) {
            this.spillWindowBytes = bytes;
            return this;
        }

        public Builder maxRecursionDepth(int depth) {
            this.maxRecursionDepth = depth;
            return this;
        }

        /** Test knob: every partition spills during the build. */
        public Builder forceSpill(boolean force) {
            this.forceSpill = force;
            return this;
        }

        /** Whether spilled pairs may be joined with their roles reversed when the probe file is the smaller. */
        public Builder roleReversal(boolean reverse) {
            this.roleReversal = reverse;
            return this;
        }

        /** Test knob: the most bytes a spilled pair or nested-loop chunk may load (forces recursion when small). */
        public Builder pairMemoryLimit(long bytes) {
            this.pairMemoryLimit = bytes;
            return this;
        }

        /** The join's workers (see {@link JoinConfig#threads()}). */
        public Builder threads(int count) {
            this.threads = count;
            return this;
        }

        /** The input rows per worker of the build and probe passes (see {@link JoinConfig#rowsPerWorker()}). */
        public Builder rowsPerWorker(long rows) {
            this.rowsPerWorker = rows;
            return this;
        }

        public JoinConfig build() {
            return new JoinConfig(pageSize, outputBatchRows, outputBatchBytes, buildSide, spillDirectory, fanoutLog2,
                    spillBufferBytes, spillWindowBytes, maxRecursionDepth, forceSpill, roleReversal, pairMemoryLimit,
                    threads, rowsPerWorker);
        }
    }
}
