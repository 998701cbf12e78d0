package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.table.JoinStrategy;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.RandomJoinInputs;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The join with 1, 2 and 4 workers ({@link JoinConfig#threads()}) against the nested-loop oracle, as a multiset: every
 * join type, both build sides, every way to drive it (sink, iterator, push from one thread, push from as many threads
 * as workers into an unsafe and into a thread-safe sink), on four paths, each asserted from the stats where certain:
 * <ul>
 *   <li>in memory: nothing spills; the build and the probe pass run with every worker;</li>
 *   <li>spilled at the minimum budget for the workers ({@link HashJoin#minimumBudget(JoinConfig, int)}, every
 *       partition forced out): the probe pass and the spilled pairs run with every worker;</li>
 *   <li>re-partitioned: a pair limit of one byte over wide key domains makes pairs split down to depth 2 or more
 *       (some joins must show it);</li>
 *   <li>heavy keys: the same at maximum depth 1 over small key domains sends pairs to the nested loop.</li>
 * </ul>
 * And the FINISH scan of the resident table on every worker, in memory and partly spilled, over both table kinds
 * ({@link #theFinishScanOnEveryWorkerMatchesTheOracle}).
 * Inputs of up to 1,500 rows a side in batches of 1 to 100 rows, so that several workers take batches. After every
 * join: zero bytes reserved, peak within the budget (both from {@link JoinRunner}), the spill root empty and no worker
 * thread alive. The seed is printed; replay with {@code -Dseed=<seed>} (and {@code -Dcases=<n>}).
 */
class ParallelJoinPropertyTest {
    private static final int[] BATCH_SIZES = {1, 7, 50, 100};

    @TempDir
    Path spillRoot;

    private enum JoinPath { IN_MEMORY, SPILLED_AT_MINIMUM, REPARTITIONED, HEAVY_KEYS }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void inMemoryMatchesTheOracle(int threads) throws IOException {
        run(JoinPath.IN_MEMORY, threads);
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void spilledAtTheMinimumBudgetMatchesTheOracle(int threads) throws IOException {
        long[] totals = run(JoinPath.SPILLED_AT_MINIMUM, threads);
        assertThat(totals[0]).as("joins whose spilled pairs ran on every worker").isPositive();
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void repartitionedMatchesTheOracle(int threads) throws IOException {
        long[] totals = run(JoinPath.REPARTITIONED, threads);
        assertThat(totals[1]).as("joins that re-partitioned to depth 2 or more").isPositive();
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void heavyKeyPairsMatchTheOracle(int threads) throws IOException {
        long[] totals = run(JoinPath.HEAVY_KEYS, threads);
        assertThat(totals[2]).as("joins with rows on the nested-loop path").isPositive();
    }

    private enum TableKind { DIRECT, HASH }

    /**
     * The FINISH scan of the resident table on every worker: each join type and build side whose finish emits build
     * rows, over a direct-index table (unique dense build keys) and a hash table (duplicates), a VARCHAR payload in
     * both, in memory and partly spilled (a budget of the join's minimum and 3/4 of what its rows and table take in
     * memory, so some partitions stay resident and some spill), driven by every form in turn (pulled and pushed).
     * Each result equals the oracle as a multiset, so a range scanned twice or skipped shows as duplicated or missing
     * unmatched (or matched) rows. In memory, the stats must show the scan on every worker and the table kind; partly
     * spilled, enough joins must show both with resident and spilled partitions.
     */
    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {2, 4})
    void theFinishScanOnEveryWorkerMatchesTheOracle(int threads) throws IOException {
        long seed = Long.getLong("seed", System.nanoTime());
        int cases = Integer.getInteger("cases", 1);
        System.out.println("ParallelJoinPropertyTest FINISH threads=" + threads + " seed=" + seed + " cases=" + cases
                + " (replay with -Dseed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        long[] hybridOnEveryWorker = new long[TableKind.values().length];
        int modes = 0;
        for (int c = 0; c < cases; c++) {
            for (TableKind kind : TableKind.values()) {
                long caseSeed = random.nextLong();
                SplittableRandom r = new SplittableRandom(caseSeed);
                for (JoinType type : JoinType.values()) {
                    for (Side build : Side.values()) {
                        if (JoinStrategy.of(type, build).finish() == JoinStrategy.FinishAction.NONE) {
                            continue;
                        }
                        for (boolean spill : new boolean[] {false, true}) {
                            JoinRunner.Mode mode = JoinRunner.Mode.values()[modes++ % JoinRunner.Mode.values().length];
                            String where = "FINISH threads=" + threads + " seed=" + seed + " case=" + c + " caseSeed="
                                    + caseSeed + " " + kind + " " + type + " build=" + build + " spill=" + spill
                                    + " mode=" + mode;
                            JoinStats stats = checkFinish(r, kind, type, build, spill, threads, mode, where);
                            String residentKind = stats.tableBuckets() == 0 ? "direct" : "hash";
                            if (spill && stats.partitions() > 0 && stats.residentPartitions() > 0
                                    && stats.finishThreads() == threads
                                    && residentKind.equals(kind == TableKind.DIRECT ? "direct" : "hash")) {
                                hybridOnEveryWorker[kind.ordinal()]++;
                            }
                        }
                    }
                }
            }
        }
        for (TableKind kind : TableKind.values()) {
            assertThat(hybridOnEveryWorker[kind.ordinal()])
                    .as("partly spilled joins over a %s table whose FINISH scan ran on every worker", kind)
                    .isPositive();
        }
    }

    /** Rows for {@link #theFinishScanOnEveryWorkerMatchesTheOracle}: (k BIGINT, v BIGINT, s VARCHAR). */
    private static List<Object[]> finishRows(SplittableRandom r, int rows, long domain, boolean unique,
                                             boolean nullKeys) {
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            Long key = nullKeys && r.nextInt(12) == 0 ? null : unique ? 2L * i + r.nextInt(2) : (long) r.nextInt(
                    (int) domain);
            out.add(new Object[] {key, r.nextInt(9) == 0 ? null : r.nextLong(), "s" + r.nextInt(50)});
        }
        Collections.shuffle(out, new java.util.Random(r.nextLong()));
        return out;
    }

    private JoinStats checkFinish(SplittableRandom r, TableKind kind, JoinType type, Side build, boolean spill,
                                  int threads, JoinRunner.Mode mode, String where) throws IOException {
        int buildRows = 5000 + r.nextInt(2000);
        boolean direct = kind == TableKind.DIRECT;
        List<Object[]> buildSide = finishRows(r, buildRows, buildRows / 2, direct, true);
        // probe keys over the build keys' range and beyond it: some build rows match, some do not; a NOT IN probe
        // side without NULL keys (one would leave nothing for the finish to emit)
        boolean probeNulls = JoinStrategy.of(type, build).finish() != JoinStrategy.FinishAction.NULL_AWARE_UNMATCHED;
        List<Object[]> probeSide = finishRows(r, 500 + r.nextInt(1000), 3L * buildRows, false, probeNulls);
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT),
                Column.of("s", ColumnType.VARCHAR));
        List<ColumnRef> projection = new ArrayList<>();
        for (Side side : Side.values()) {
            if (type.returnedSideOnly() == null || type.returnedSideOnly() == side) {
                for (int col = 0; col < 3; col++) {
                    projection.add(new ColumnRef(side, col));
                }
            }
        }
        List<Object[]> leftRows = build == Side.LEFT ? buildSide : probeSide;
        List<Object[]> rightRows = build == Side.LEFT ? probeSide : buildSide;
        int[] key = {0};
        List<Object[]> expected = NestedLoopOracle.join(leftRows, rightRows, key, key, type, projection);
        int batchRows = 1 + r.nextInt(200);
        List<Batch> left = Rows.toBatches(schema, leftRows, batchRows);
        List<Batch> right = Rows.toBatches(schema, rightRows, batchRows);
        JoinConfig config = JoinConfig.builder().threads(threads).rowsPerWorker(0).buildSide(build)
                .spillDirectory(spillRoot).outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 5 : 300)).pageSize(256)
                .fanoutLog2(2).spillBufferBytes(128).spillWindowBytes(4096).build();
        JoinSpec.Builder spec = JoinSpec.builder(schema, schema).on(0, 0).joinType(type).projection(projection)
                .config(config);
        long budget = 64L << 20;
        if (spill) {
            // the join's minimum (the FINISH scan takes no memory: all its workers run whatever the budget) and its
            // sketches plus three quarters of what its rows and table take in memory, so some partitions stay and
            // some spill
            JoinStats inMemory;
            try (MemoryReservation root = MemoryReservation.root("measure the rows", budget)) {
                inMemory = JoinRunner.run(spec.reservation(root).build(), left, right, JoinRunner.Mode.SINK, root)
                        .stats();
            }
            budget = HashJoin.minimumBudget(config) + JoinSketches.memoryBytes()
                    + (inMemory.rowBytes() + inMemory.tableBytes()) * 3 / 4;
        }
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinRunner.Result result = JoinRunner.run(spec.reservation(root).build(), left, right, mode, root);
            JoinStats stats = result.stats();
            String what = where + " budget=" + budget + " stats=" + stats.toJson();
            assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
            assertThat(stats.peakReservedBytes()).as(what).isLessThanOrEqualTo(budget);
            assertThat(stats.finishThreads()).as(what).isBetween(1, threads);
            if (!spill) {
                assertThat(stats.partitions()).as(what).isZero();
                assertThat(stats.tableKind()).as(what).isEqualTo(direct ? "direct" : "hash");
                assertThat(stats.finishThreads()).as("FINISH scan workers: " + what).isEqualTo(threads);
            }
            assertThat(ParallelJoinTest.liveWorkerThreads()).as("worker threads alive after %s", what).isEmpty();
            try (var files = Files.list(spillRoot)) {
                assertThat(files).as("spill root after %s", what).isEmpty();
            }
            return stats;
        }
    }

    /** Returns {joins whose pairs ran on every worker, joins at depth ≥ 2, joins with nested-loop rows}. */
    private long[] run(JoinPath path, int threads) throws IOException {
        long seed = Long.getLong("seed", System.nanoTime());
        int cases = Integer.getInteger("cases", 3);
        System.out.println("ParallelJoinPropertyTest " + path + " threads=" + threads + " seed=" + seed + " cases="
                + cases + " (replay with -Dseed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        long[] totals = new long[3];
        for (int c = 0; c < cases; c++) {
            long caseSeed = random.nextLong();
            SplittableRandom r = new SplittableRandom(caseSeed);
            RandomJoinInputs inputs = new RandomJoinInputs(r, 1500,
                    path == JoinPath.HEAVY_KEYS ? 6 : path == JoinPath.REPARTITIONED ? 2000 : 300);
            for (JoinType type : JoinType.values()) {
                if (type == JoinType.NULL_AWARE_LEFT_ANTI && inputs.leftKeys.length != 1) {
                    continue;
                }
                List<ColumnRef> projection = inputs.randomProjection(type);
                for (Side build : Side.values()) {
                    JoinStats stats = checkCase(inputs, type, projection, build, path, threads, r,
                            path + " threads=" + threads + " seed=" + seed + " case=" + c + " caseSeed=" + caseSeed);
                    totals[0] += stats.spilledPairsThreads() == threads ? 1 : 0;
                    totals[1] += stats.maxRecursionDepth() >= 2 ? 1 : 0;
                    totals[2] += stats.heavyHitterRows() > 0 ? 1 : 0;
                }
            }
        }
        return totals;
    }

    private JoinStats checkCase(RandomJoinInputs in, JoinType type, List<ColumnRef> projection, Side build,
                                JoinPath path, int threads, SplittableRandom r, String where) throws IOException {
        List<Batch> left = Rows.toBatches(in.left, in.leftRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        List<Batch> right = Rows.toBatches(in.right, in.rightRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        JoinConfig.Builder builder = JoinConfig.builder().threads(threads).rowsPerWorker(0).buildSide(build)
                .spillDirectory(spillRoot).outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 5 : 300));
        if (path != JoinPath.IN_MEMORY) {
            builder.pageSize(64 + 8 * r.nextInt(64)).fanoutLog2(1 + r.nextInt(3))
                    .spillBufferBytes(64 + 8 * r.nextInt(57)).spillWindowBytes(4096).forceSpill(true);
        }
        if (path == JoinPath.REPARTITIONED || path == JoinPath.HEAVY_KEYS) {
            builder.pairMemoryLimit(1).maxRecursionDepth(path == JoinPath.REPARTITIONED ? 3 : 1);
        }
        JoinConfig config = builder.build();
        long budget = path == JoinPath.IN_MEMORY ? 64L << 20
                : HashJoin.minimumBudget(config, threads) + (path == JoinPath.SPILLED_AT_MINIMUM ? 0 : 64 * 1024);
        JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(JoinRunner.Mode.values().length)];
        List<Object[]> expected = NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys, type,
                projection);
        JoinStats stats;
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinSpec spec = in.spec(type, projection).reservation(root).config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, left, right, mode, root);
            stats = result.stats();
            String what = String.format("%s: %s build=%s mode=%s config=%s budget=%d left=%s keys=%s right=%s keys=%s "
                            + "stats=%s", where, type, build, mode, config, budget, in.left,
                    Arrays.toString(in.leftKeys), in.right, Arrays.toString(in.rightKeys), stats.toJson());
            assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
            assertThat(stats.threads()).as(what).isEqualTo(threads);
            assertThat(stats.threadsUsed()).as(what).isBetween(1, threads);
            if (path == JoinPath.IN_MEMORY) {
                // none spilled but the pair of the few duplicate keys a direct-index table moves out, if it met any
                assertThat(stats.partitions()).as(what).isEqualTo(stats.heavyHitterKeysFromDuplicates() > 0 ? 1 : 0);
                assertThat(stats.buildThreads()).as(what).isEqualTo(threads);
                assertThat(stats.probeThreads()).as(what).isEqualTo(threads);
            } else {
                assertThat(stats.residentPartitions()).as(what).isZero();
                assertThat(stats.probeThreads()).as("probe workers at the minimum budget for them: " + what)
                        .isEqualTo(threads);
            }
            if (path == JoinPath.HEAVY_KEYS) {
                assertThat(stats.maxRecursionDepth()).as(what).isLessThanOrEqualTo(1);
            }
        }
        try (var files = Files.list(spillRoot)) {
            assertThat(files).as("spill root after %s", where).isEmpty();
        }
        assertThat(ParallelJoinTest.liveWorkerThreads()).as("worker threads alive after %s", where).isEmpty();
        return stats;
    }
}
