package dev.spilljoin.operator;

import dev.spilljoin.estimator.HeavyHitters;
import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.estimator.PartitionPlan;
import dev.spilljoin.estimator.PartitionPlanner;
import dev.spilljoin.estimator.PlannerConfig;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.PartitionWriter;

/**
 * The memory layout of one hybrid join's spilling (the spill buffers of each spilled partition's writer, the
 * readers' mapped windows, the row page size, the minimum budget they need) and the level-0 {@link PartitionPlan},
 * which it asks of the estimator's {@link PartitionPlanner}: the fanout per level and the heavy keys sent to the
 * nested loop come from it. Its count of resident partitions is reported beside what ran
 * ({@code planned_resident_partitions}) but does not steer the build: which partitions stay resident is decided at
 * run time, by refused reservations ({@link PartitionedBuild}). Chosen once, before the build, from the budget {@code B} (the join's, less its sketches),
 * what is expected of the build input ({@link #expectedBuild}: a statistics-cache hit, else the size hints, else
 * nothing) and the {@link JoinConfig} overrides.
 *
 * <p>The planner's costs are the operator's real ones, so that plan and memory accounting agree: its buffer cost
 * {@code O} is the writer share {@code w} below (what a spilled partition's writer reserves, {@link #writerShare()};
 * a pair-phase writer's, {@link #pairWriterShare()}, when it plans a re-partitioning),
 * its table cost per row is the hash table's directory share plus the compact copy of a row
 * ({@link UnchainedTable#plannedBytesPerRow}: the table is built while the rows it copies are still held),
 * and the row bytes it plans with are {@link dev.spilljoin.operator.row.RowLayout} rows (measured by the sketches, or the layout's shortest row
 * times the rows hinted).
 *
 * <pre>
 * estimate E   = the expected input's footprint (row bytes + table cost per row); unknown without a hint
 * slot v      = max(8 KiB, min(W / F, s·B / (F + 2)))  for a fanout F, with s the planner's buffer share and W =
 *                B / 2 when E &gt; 4B (few partitions stay resident), F · 8 KiB when E ≤ B / 2 (nothing is expected
 *                to spill), else B / 3: what buffer and window sizes are made from
 *                buffer = clamp(2^⌊log2(v/8)⌋, 4 KiB, 64 KiB), window = clamp(v − buffer, 4 KiB, 1 MiB) in pages
 * writer share w = N · buffer (N = the join's threads: a partition's writer's buffer and one side writer's buffer
 *                for each other worker that spills beside it, {@link ReservedSpillWriter}; fewer, down to 1, while
 *                the minimum below exceeds B: the other workers then share the partition's writer under its lock);
 *                a pair-phase writer (one thread) w1 = buffer. A writer maps nothing (blocks go with write(2)): the
 *                window is a reader's
 * fanout F     = the planner's, for O = w(F): starting at its largest fanout (the smallest shares), w is recomputed
 *                for the planned F while the plan asks for fewer partitions than w was made for (F only shrinks,
 *                so this ends; the last plan was made with the O it is used with)
 * read window  = max(window, min(1 MiB, 2^⌊log2(B'/8)⌋)), halved while the minimum exceeds B: readers of sealed
 *                files map larger windows (the pair phase has the budget B' to itself, the sketches' bytes included;
 *                every mapping has a fixed cost, see docs/PERFORMANCE.md)
 * row page     = min(configured page, max(64, min(B / (8F), E)))   (F partially filled pages must not eat the
 *                budget; E: twice a partition's share of the expected build bytes, rounded up to a power of two, at
 *                least 64 KiB, unbounded when nothing is expected), from 2 MiB up the nearest whole number of 2 MiB
 *                huge pages (at most the configured page's)
 * minimum(B)   = max(planner: 8·w (a fanout of 2 and two extra buffers in half the budget),
 *                    build: F·w + 4 pages + 128,  re-partition: (read window + buffer) + 2·w1,
 *                    pair: 2·(read window + buffer) + w1 + pair page (max(row page, 4 · buffer))
 *                          + table(a block of the smallest encoded rows, {@link #blockTableBytes}))
 *                (the pair term is the nested-loop path: two readers, a writer, and a chunk of one block)
 * </pre>
 *
 * <p>Re-partitioning levels ask the planner too ({@link #repartitionFanoutLog2}, with O = w1), from the spilled pair's
 * actual rows and bytes, and so does the build's heavy-key check ({@link #nestedLoopKeys}), from the rows sketched so
 * far projected to the whole input. Read windows are as large as the budget allows (large windows read faster than
 * small ones, docs/PERFORMANCE.md), but 1 MB budgets must work, so they shrink to 4 KiB.
 */
record SpillSizing(PartitionPlan plan, long planBudget, InputStatistics expectedBuild, int minRowBytes,
                   int bufferBytes, int writerBuffers, int windowBytes, int readWindowBytes, int pageSize,
                   long minimumBudget) {
    private static final int MIN_BUFFER = 4096;
    private static final int MAX_BUFFER = 64 * 1024;
    private static final int MIN_WINDOW = 4096;
    private static final int MAX_WINDOW = 1 << 20;
    /** Row pages from this size up are whole numbers of it ({@link #rowPageBytes}). */
    private static final int HUGE_PAGE = (int) NativeMemory.HUGE_PAGE;
    private static final long MIN_SHARE = MIN_BUFFER + MIN_WINDOW;
    private static final long TABLE_MIN = UnchainedTable.minimumBytes();
    /**
     * The shortest encoded row with a variable-width key field: a hash, a byte of bits, its length, a field's length
     * (rows with fixed-width keys are their own encoding in a table, {@link #blockTableBytes}).
     */
    private static final int MIN_VARIABLE_ROW_BYTES = 4 + 8 + 1 + 4;
    /**
     * An input expected above this many budgets is "large": few of its partitions can stay resident, so the spill
     * writers may take {@code 1 / LARGE_INPUT_WRITERS_DIVISOR} of the budget (larger windows, fewer mappings).
     */
    private static final long LARGE_INPUT_BUDGETS = 4;
    private static final long LARGE_INPUT_WRITERS_DIVISOR = 2;
    /**
     * An input expected at or below {@code 1 / SMALL_INPUT_DIVISOR} of the budget is not expected to spill: each
     * writer gets the smallest share, leaving the budget to the resident rows.
     */
    private static final long SMALL_INPUT_DIVISOR = 2;
    /** Between the two, or with nothing known, the writers may take a third of the budget. */
    private static final long DEFAULT_WRITERS_DIVISOR = 3;
    /**
     * Row pages are at most {@code budget / (PAGE_BUDGET_DIVISOR × fanout)}: the fanout's partially filled pages
     * (one per partition) then hold at most an eighth of the budget.
     */
    private static final long PAGE_BUDGET_DIVISOR = 8;
    /**
     * Row pages hold at most twice what a partition is expected to get (rounded up to a power of two, at least
     * {@link #MIN_EXPECTED_PAGE}): at the default page a build of 10,000 rows reserved 64 MB of pages for 170 kB of
     * rows. A larger input than expected only takes more pages.
     */
    private static final long EXPECTED_PAGE_MARGIN = 2;
    private static final long MIN_EXPECTED_PAGE = 64 * 1024;
    /** The planner's bounds and shares (its costs are set per layout, {@link #planner(JoinConfig, int, int, int)}). */
    private static final PlannerConfig DEFAULTS = PlannerConfig.defaults(MIN_SHARE, UnchainedTable.plannedBytesPerRow(0));

    /**
     * The layout and level-0 plan for a build input expected as {@code expected} (null = nothing known) whose
     * shortest row is {@code minRowBytes}, under {@code budget} (at least {@link #absoluteMinimum}) while partitioning
     * and {@code pairBudget} (≥ budget: the sketches are gone by then) in the pair phase, where read windows are used:
     * each of the config's workers reads with windows sized from its even share of it, so that a pair worker's
     * minimum shrinks as workers are added and the minimum budget for N workers grows about linearly with N.
     */
    static SpillSizing choose(JoinConfig config, long budget, long pairBudget, InputStatistics expected,
            int minRowBytes) {
        for (int writerBuffers = Math.max(1, config.threads()); writerBuffers > 1; writerBuffers--) {
            SpillSizing sizing = choose(config, budget, pairBudget, expected, minRowBytes, writerBuffers);
            if (sizing != null && sizing.minimumBudget() <= budget) {
                return sizing;
            }
        }
        return choose(config, budget, pairBudget, expected, minRowBytes, 1);
    }

    /**
     * As {@link #choose(JoinConfig, long, long, InputStatistics, int)} with {@code writerBuffers} buffers in a
     * partition writer's share; null when more than one would not leave the planner its minimum within
     * {@code budget}.
     */
    private static SpillSizing choose(JoinConfig config, long budget, long pairBudget, InputStatistics expected,
            int minRowBytes, int writerBuffers) {
        int log2 = config.fanoutLog2() > 0 ? config.fanoutLog2() : DEFAULTS.maxFanoutLog2();
        long estimate = residentBytes(expected, minRowBytes);
        while (true) {
            int fanout = 1 << log2;
            long writers = writersBudget(estimate, budget, fanout);
            long slot = Math.max(MIN_SHARE,
                    Math.min(writers / fanout, (long) (DEFAULTS.bufferShare() * budget) / (fanout + 2)));
            int buffer = config.spillBufferBytes() > 0 ? config.spillBufferBytes()
                    : (int) clamp(Long.highestOneBit(slot / 8), MIN_BUFFER, MAX_BUFFER);
            int window = config.spillWindowBytes() > 0 ? config.spillWindowBytes()
                    : (int) clamp((slot - buffer) & ~4095L, MIN_WINDOW, MAX_WINDOW);
            long writerShare = PartitionWriter.memoryBytes(buffer, writerBuffers);
            PartitionPlanner planner = planner(config, writerShare, minRowBytes);
            if (writerBuffers > 1 && planner.minimumBudget() > budget) {
                return null;
            }
            PartitionPlan plan = planner.plan(
                    planner.projectWholeInput(expected, InputStatistics.of(0, 0, 0), minRowBytes, budget), budget);
            if (plan.fanoutLog2() < log2) {
                log2 = plan.fanoutLog2();
                continue;
            }
            int planned = plan.fanout();
            int page = rowPageBytes(config.pageSize(),
                    Math.min(budget / (PAGE_BUDGET_DIVISOR * planned), expectedPageBound(expected, planned)));
            long pairWorkerShare = pairBudget / Math.max(1, config.threads());
            int readWindow = (int) Math.max(window,
                    clamp(Long.highestOneBit(pairWorkerShare / 8) & ~4095L, MIN_WINDOW, MAX_WINDOW));
            while (readWindow > window
                    && minimum(planner, planned, buffer, writerBuffers, readWindow, page) > budget) {
                readWindow = Math.max(window, (readWindow / 2) & ~4095);
            }
            return new SpillSizing(plan, budget, expected, minRowBytes, buffer, writerBuffers, window, readWindow,
                    page, minimum(planner, planned, buffer, writerBuffers, readWindow, page));
        }
    }

    /**
     * The row page for a configured page of {@code configured} bytes and a budget's page bound of {@code bound}:
     * the smaller, and from 2 MiB up the nearest whole number of 2 MiB huge pages (at least one, at most as many as
     * the configured page holds). Whole huge pages are backed by transparent huge pages, one fault per 2 MiB instead
     * of 512 faults of 4 KiB, each of which costs microseconds on a virtual machine.
     */
    static int rowPageBytes(int configured, long bound) {
        int page = (int) Math.min(configured, Math.max(64, bound & ~7L));
        if (page < HUGE_PAGE) {
            return page;
        }
        long nearest = Math.max(1, (page + HUGE_PAGE / 2 - 1) / HUGE_PAGE);
        return (int) (Math.min(nearest, configured / HUGE_PAGE) * HUGE_PAGE);
    }

    /**
     * The largest row page a build input expected as {@code expected} (null: nothing known, no bound) needs for each
     * of {@code fanout} partitions: {@link #EXPECTED_PAGE_MARGIN} times its expected share of the rows, rounded up to
     * a power of two, at least {@link #MIN_EXPECTED_PAGE}.
     */
    static long expectedPageBound(InputStatistics expected, int fanout) {
        if (expected == null) {
            return Long.MAX_VALUE;
        }
        long perPartition = expected.bytes() / fanout;
        if (perPartition >= Long.MAX_VALUE / (2 * EXPECTED_PAGE_MARGIN)) {
            return Long.MAX_VALUE; // no page is that large: no bound
        }
        long share = Math.max(MIN_EXPECTED_PAGE, EXPECTED_PAGE_MARGIN * perPartition);
        return Long.highestOneBit(share - 1) << 1;
    }

    /**
     * The row page of each of {@code workers} build workers: the row page shared out, in whole huge pages when the
     * share still holds one (so that a worker's pages are backed by huge pages as the row page is).
     */
    int workerPageBytes(int workers) {
        int share = pageSize / workers;
        return share >= HUGE_PAGE ? share / HUGE_PAGE * HUGE_PAGE : Math.max(64, share & ~7);
    }

    /**
     * The budget all {@code fanout} spill writers may take together, for an input whose footprint is expected to
     * be {@code estimate} bytes (-1 = unknown): the {@code W} of the header.
     */
    static long writersBudget(long estimate, long budget, int fanout) {
        if (estimate > LARGE_INPUT_BUDGETS * budget) {
            return budget / LARGE_INPUT_WRITERS_DIVISOR;
        }
        if (estimate >= 0 && estimate <= budget / SMALL_INPUT_DIVISOR) {
            return fanout * MIN_SHARE;
        }
        return budget / DEFAULT_WRITERS_DIVISOR;
    }

    /**
     * The memory a build input expected as {@code expected} (null = nothing known: -1) takes when it stays resident:
     * its rows and the hash table's cost per row beside them (the planner's estimate).
     */
    static long residentBytes(InputStatistics expected, int minRowBytes) {
        return expected == null ? -1
                : expected.bytes() + UnchainedTable.plannedBytesPerRow(minRowBytes) * expected.rows();
    }

    /**
     * What is expected of the build input before its first row: the statistics-cache hit if any; else the size
     * hints (-1 = unknown) in the join's row format: the rows hinted, at least {@code minRowBytes} each (the hinted
     * bytes are the source's, so only a lower bound on row bytes when larger); or, with only bytes hinted, as many
     * rows of {@code minRowBytes} as they hold; else null.
     */
    static InputStatistics expectedBuild(InputStatistics cached, long hintRows, long hintBytes, int minRowBytes) {
        if (cached != null) {
            return cached;
        }
        if (hintRows >= 0) {
            return InputStatistics.of(hintRows, Math.max(hintBytes, hintRows * minRowBytes), 0);
        }
        if (hintBytes >= 0) {
            long rows = (hintBytes + minRowBytes - 1) / minRowBytes;
            return InputStatistics.of(rows, Math.max(hintBytes, rows * minRowBytes), 0);
        }
        return null;
    }

    /**
     * The planner with the operator's costs: {@code writerShare} per partition buffer, the table's bytes per row of
     * at least {@code minRowBytes}.
     */
    private static PartitionPlanner planner(JoinConfig config, long writerShare, int minRowBytes) {
        PlannerConfig costs = new PlannerConfig(writerShare,
                UnchainedTable.plannedBytesPerRow(minRowBytes), DEFAULTS.minFanoutLog2(), DEFAULTS.maxFanoutLog2(),
                DEFAULTS.partitionFill(), DEFAULTS.bufferShare());
        return new PartitionPlanner(config.fanoutLog2() > 0
                ? costs.withFanoutLog2(config.fanoutLog2(), config.fanoutLog2()) : costs);
    }

    private static long minimum(PartitionPlanner planner, int fanout, int buffer, int writerBuffers, int readWindow,
            int page) {
        long build = fanout * PartitionWriter.memoryBytes(buffer, writerBuffers) + 4L * page + TABLE_MIN;
        return Math.max(planner.minimumBudget(), Math.max(build, pairPhaseMinimum(buffer, readWindow, page)));
    }

    /**
     * The most a table over the rows of one spill block of {@code block} bytes takes, whatever their layout: the
     * compact copy of a fixed-width row is at most its encoding (the same bytes, less the bits when no row needs
     * them, and a row with only fixed-width keys is its encoding), and a block holds at most
     * {@code block / }{@value SpillRowFormat#MIN_ROW_BYTES} such rows; the compact copy of a row with a variable-width
     * key field is at most 3 bytes longer than its encoding (its key length and padding against the encoding's hash),
     * and such a row is at least {@value #MIN_VARIABLE_ROW_BYTES} bytes encoded. The directory grows with the rows.
     */
    private static long blockTableBytes(long block) {
        long most = UnchainedTable.directoryBytes(block / SpillRowFormat.MIN_ROW_BYTES)
                + UnchainedTable.allocationBytes(block);
        long variableRows = block / MIN_VARIABLE_ROW_BYTES;
        return Math.max(most, UnchainedTable.directoryBytes(variableRows)
                + UnchainedTable.allocationBytes(block + 4 * variableRows));
    }

    /**
     * The smallest budget any join with {@code config} accepts: the smallest whole number of kilobytes at or above
     * which {@code choose} (with nothing known of the input) needs no more than it is given, whatever the threads
     * (at the smallest budgets the workers share one buffer per spilled partition). Whole kilobytes, so that the
     * minimum a message names (e.g. 57kB) is a size a user can give back.
     */
    static long absoluteMinimum(JoinConfig config) {
        long budget = wholeKilobytes(planner(config, PartitionWriter.memoryBytes(
                config.spillBufferBytes() > 0 ? config.spillBufferBytes() : MIN_BUFFER, 1), 8).minimumBudget());
        while (true) {
            long needed = choose(config, budget, budget, null, 8).minimumBudget();
            if (needed <= budget) {
                return budget;
            }
            budget = wholeKilobytes(needed);
        }
    }

    private static long wholeKilobytes(long bytes) {
        return (bytes + 1023) & ~1023L;
    }

    int fanoutLog2() {
        return plan.fanoutLog2();
    }

    int fanout() {
        return plan.fanout();
    }

    /** The planner this layout's plan came from (its buffer cost is {@link #writerShare()}). */
    PartitionPlanner planner(JoinConfig config) {
        return planner(config, writerShare(), minRowBytes);
    }

    /** The planner of the pair phase's re-partitionings (its buffer cost is {@link #pairWriterShare()}). */
    private PartitionPlanner pairPlanner(JoinConfig config) {
        return planner(config, pairWriterShare(), minRowBytes);
    }

    /**
     * The keys of {@code soFar} (the build rows read so far, with the heavy-key candidates their sketch found) that
     * the planner sends to the nested loop: those that would overflow their partition in the whole input as
     * {@link PartitionPlanner#projectWholeInput} expects it from {@link #expectedBuild()} and {@code soFar}.
     */
    HeavyHitters nestedLoopKeys(JoinConfig config, InputStatistics soFar) {
        PartitionPlanner planner = planner(config);
        return planner.plan(planner.projectWholeInput(expectedBuild, soFar, minRowBytes, planBudget), planBudget)
                .nestedLoopKeys();
    }

    /**
     * The fanout (log2) of re-partitioning the spilled pair {@code pair} into the next level: the pair planner's,
     * from the pair's build rows and bytes, under {@code headroom} (the memory free for the split) less the read
     * window of the pair's reader (the planner counts the reader's block buffer as one more pair writer's share: a
     * buffer).
     */
    int repartitionFanoutLog2(JoinConfig config, SpillPair pair, long headroom) {
        PartitionPlanner planner = pairPlanner(config);
        long bytes = pair.build() == null ? 0 : pair.build().length();
        long budget = Math.max(planner.minimumBudget(), headroom - readWindowBytes);
        return planner.planRepartition(pair.level() + 1, InputStatistics.of(pair.buildRows(), bytes, 0), budget)
                .fanoutLog2();
    }

    /**
     * The least share of the budget a spilled-pairs worker plans and runs with: the pair-phase terms of the minimum
     * (a re-partitioning's reader and two writers; the nested loop's two readers, writer, page and one block's table,
     * and with several workers a lane's copy of a probe block, {@link SharedProbePass}) and the pair planner's own
     * minimum, which it plans a split with.
     */
    long pairWorkerMinimum(JoinConfig config) {
        long laneBuffer = config.threads() > 1 ? SharedProbePass.laneBufferBytes(bufferBytes, bufferBytes) : 0;
        return Math.max(pairPlanner(config).minimumBudget(),
                pairPhaseMinimum(bufferBytes, readWindowBytes, pageSize) + laneBuffer);
    }

    /**
     * The pair-phase terms of the minimum: a re-partitioning (a reader and two writers) and the nested loop (two
     * readers, a writer, a pair page and one block's table); a pair-phase writer holds one buffer.
     */
    private static long pairPhaseMinimum(int buffer, int readWindow, int page) {
        long share = PartitionWriter.memoryBytes(buffer, 1);
        long reader = (long) readWindow + buffer;
        long repartition = reader + 2 * share;
        long pair = 2 * reader + share + pairPageSize(page, buffer) + blockTableBytes(buffer);
        return Math.max(repartition, pair);
    }

    /** Bytes of the staging pages one worker of the probe pass (or one build worker beyond the first) needs. */
    long stagingBytes() {
        return 2L * pageSize;
    }

    /**
     * Memory one spilled partition's writer of the build and probe passes holds: its buffer and one side writer's
     * buffer for each further worker ({@link #writerBuffers}).
     */
    long writerShare() {
        return PartitionWriter.memoryBytes(bufferBytes, writerBuffers);
    }

    /** Memory one writer of the pair phase holds (a re-partitioning's, the nested loop's): one buffer. */
    long pairWriterShare() {
        return PartitionWriter.memoryBytes(bufferBytes, 1);
    }

    /** Pages spilled pairs are loaded into (many blocks' rows each). */
    int pairPageSize() {
        return pairPageSize(pageSize, bufferBytes);
    }

    /** The largest record a spill writer's buffer takes (its block header aside); larger ones go as their own block. */
    int recordCapacity() {
        return bufferBytes - 8;
    }

    /** A row page, and at least four spill blocks: the chunks of pairs and of the nested loop are read in blocks. */
    private static int pairPageSize(int page, int buffer) {
        return Math.max(page, 4 * buffer);
    }

    /**
     * The most new page memory {@code rows} rows of {@code bytes} in all, none longer than {@code largestRow}, take
     * when allocated one after the other in pages of pairPageSize() (a {@link dev.spilljoin.operator.row.RowArena}): one page if they fit one
     * (or a row longer than a page: its own length); with rows of at most half a page, every page but the last holds
     * more than {@code page − largestRow}; else a page and the next page's first row together exceed a page, and
     * rows longer than a page take exactly their own length.
     */
    long pairPagesBound(long bytes, long rows, long largestRow) {
        long page = pairPageSize();
        if (bytes <= page || rows == 1) {
            return bytes == 0 ? 0 : Math.max(page, bytes);
        }
        if (largestRow <= page / 2) {
            long usable = page - largestRow;
            return ((bytes + usable - 1) / usable + 1) * page;
        }
        return 2 * bytes + page;
    }

    String describe() {
        return "fanout " + fanout() + ", spill buffer " + ByteSize.format(bufferBytes)
                + (writerBuffers > 1 ? " (" + writerBuffers + " a partition)" : "") + ", window "
                + ByteSize.format(windowBytes) + ", row page " + ByteSize.format(pageSize);
    }

    private static long clamp(long v, long lo, long hi) {
        return Math.max(lo, Math.min(hi, v));
    }
}
