package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;
import dev.spilljoin.estimator.InputIdentity;
import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.estimator.PartitionPlan;
import dev.spilljoin.estimator.PartitionPlanner;
import dev.spilljoin.estimator.PlannerConfig;
import dev.spilljoin.estimator.StatisticsCache;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.operator.testing.CountAndSum;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.workloads.WorkloadMath;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans that come from measurements rather than from the caller: a size hint that lies (the "tiny" left input is
 * 10× the right) costs no correctness and no memory, because spilled pairs are joined with their roles reversed;
 * and a second join of the same inputs plans from the statistics the first one left in a shared cache.
 * After each: zero bytes reserved, peak within the budget, an empty spill root.
 */
class SketchPlannedJoinTest {
    private static final long MB = 1 << 20;
    /** The budget of the heavy-key tests (see {@link #heavyKeyRoutingMatchesTheOracleForEveryJoinType}). */
    private static final long HEAVY_BUDGET = 384 * 1024;

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    /** Left: 500K rows, key i % 50K, hinted as 1,000 rows; right: 50K rows, key i. Every left row matches once. */
    @Test
    void aWrongSizeHintJoinsWithinTheBudgetAndCorrectlyByReversingRoles() {
        long nLeft = 500_000;
        long nRight = 50_000;
        GeneratedSource left = new GeneratedSource(nLeft) {
            @Override
            protected long key(long i) {
                return i % nRight;
            }

            @Override
            protected long payload(long i) {
                return WorkloadMath.payload(0x31, i);
            }

            @Override
            public long sizeHintRows() {
                return 1_000;
            }

            @Override
            public long sizeHintBytes() {
                return 16_000;
            }
        };
        GeneratedSource right = new GeneratedSource(nRight) {
            @Override
            protected long key(long i) {
                return i;
            }

            @Override
            protected long payload(long i) {
                return WorkloadMath.payload(0x32, i);
            }
        };
        long expectedSum = 0;
        for (long i = 0; i < nLeft; i++) {
            expectedSum += WorkloadMath.payload(0x31, i) + WorkloadMath.payload(0x32, i % nRight);
        }
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("wrong-hint", 2 * MB)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                    .config(JoinConfig.builder().spillDirectory(spillRoot.path()).build()).build();
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(left, right, result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(2 * MB);
        }
        System.out.println("wrong hint 500K (hinted 1K) x 50K under 2MB: " + stats.toJson());
        assertThat(stats.buildSide()).as("the hint made the large side the build side").isEqualTo(Side.LEFT);
        assertThat(result.count()).isEqualTo(nLeft);
        assertThat(result.sum()).isEqualTo(expectedSum);
        assertThat(stats.roleReversals()).as("spilled pairs built on their smaller (right) side").isPositive();
        assertThat(stats.estimates().estimatedRows()).isEqualTo(1_000);
        assertThat(stats.estimates().actualRows()).isEqualTo(nLeft);
    }

    /**
     * Left: 100K rows, key i % 50K; right (the build side: no size hints, so the default): 200K rows, 30% with key
     * 0, the others key i. Two joins of the same identities through one cache: the first misses and stores the right
     * side's statistics, the second hits, plans from them (its estimates are the first join's actuals) and routes key
     * 0 to the heavy pair from the first row. Both give the arithmetic result.
     */
    @Test
    void aSecondJoinOfTheSameInputsPlansFromTheCachedStatistics() {
        long nLeft = 100_000;
        long nRight = 200_000;
        StatisticsCache cache = new StatisticsCache(1 << 20);
        StatisticsLookup lookup = new StatisticsLookup(cache, new InputIdentity.TableVersion("s", 1),
                new InputIdentity.TableVersion("r", 7));
        long hotRight = 0;
        long hotRightPayloads = 0;
        for (long i = 0; i < nRight; i++) {
            if (i % 10 < 3) {
                hotRight++;
                hotRightPayloads += WorkloadMath.payload(0x42, i);
            }
        }
        long expectedCount = 0;
        long expectedSum = 0;
        for (long i = 0; i < nLeft; i++) {
            long k = i % 50_000;
            long p = WorkloadMath.payload(0x41, i);
            if (k == 0) {
                expectedCount += hotRight;
                expectedSum += hotRight * p + hotRightPayloads;
            } else if (k % 10 >= 3) {
                expectedCount++;
                expectedSum += p + WorkloadMath.payload(0x42, k);
            }
        }
        JoinStats first = joinThroughCache(lookup, nLeft, nRight, expectedCount, expectedSum);
        JoinStats second = joinThroughCache(lookup, nLeft, nRight, expectedCount, expectedSum);
        System.out.println("cache, first join: " + first.toJson());
        System.out.println("cache, second join: " + second.toJson());
        assertThat(first.buildSide()).isEqualTo(Side.RIGHT);
        assertThat(first.statisticsCacheHits()).isZero();
        assertThat(first.statisticsCacheMisses()).isEqualTo(2);
        assertThat(first.estimates().estimateSource()).isEqualTo("none");
        assertThat(first.heavyHitterKeysFromSketch()).as("key 0 found by the sketch the first time").isEqualTo(1);
        assertThat(second.statisticsCacheHits()).as("the build side's statistics were cached").isEqualTo(1);
        assertThat(second.statisticsCacheMisses()).as("the probe side's are not stored").isEqualTo(1);
        assertThat(second.estimates().estimateSource()).isEqualTo("cache");
        assertThat(second.estimates().estimatedRows()).isEqualTo(nRight);
        assertThat(second.estimates().estimatedBytes()).isEqualTo(first.estimates().actualBytes());
        InputStatistics cached = lookup.cache().get(lookup.right()).orElseThrow();
        PartitionPlan fromCache = plannerOf(second).plan(cached, planBudget(second));
        assertThat(second.fanout()).as("the fanout the planner plans from the cached statistics")
                .isEqualTo(fromCache.fanout());
        assertThat(second.plannedFanoutPerLevel()).isEqualTo(fanouts(fromCache));
        assertThat(second.plannedResidentPartitions()).isEqualTo(fromCache.residentPartitions());
        assertThat(fromCache.nestedLoopKeys().size()).as("key 0 would overflow its partition: routed").isEqualTo(1);
        assertThat(second.heavyHitterKeysFromCache()).as("key 0 routed from the first row").isEqualTo(1);
        assertThat(second.heavyHitterKeysFromSketch()).isZero();
        assertThat(second.heavyHitterRowsFromSketch()).as("every hot build row in the heavy pair").isEqualTo(hotRight);
        assertThat(first.heavyHitterRowsFromSketch()).as("rows seen before detection moved out of their resident partition")
                .isEqualTo(hotRight);
    }

    /**
     * The size hints of the build side (W1's R: 800,000 rows, hinted exactly) make the partition planner choose the
     * join's fanout: 800K rows of 17 bytes plus the table's 33 per row need about 40 MB, more than 16 partitions of
     * the capacity left by a 2 MB budget, so 32. The stats show the plan (fanout per level, resident partitions) and the
     * fanout used, and the join's result is W1's.
     */
    @Test
    void theJoinsFanoutIsThePartitionPlannersFromTheSizeHints() {
        long nR = 800_000;
        long nS = 800_000;
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("planned", 2 * MB)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                    .config(JoinConfig.builder().spillDirectory(spillRoot.path()).buildSide(Side.LEFT).build()).build();
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(GeneratedSource.w1Build(nR), GeneratedSource.w1Probe(nS, nR), result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(2 * MB);
        }
        System.out.println("planned from hints, 800K x 800K under 2MB: " + stats.toJson());
        assertThat(result.count()).isEqualTo(nS);
        int row = KEY_VALUE_ROW_BYTES;
        PartitionPlan plan = plannerOf(stats).plan(InputStatistics.of(nR, nR * row, 0), planBudget(stats));
        assertThat(plan.fanout()).as("more than the smallest fanout: the hint mattered").isEqualTo(32);
        assertThat(stats.fanout()).isEqualTo(plan.fanout());
        assertThat(stats.fanoutPerLevel().get(0)).isEqualTo(plan.fanout());
        assertThat(stats.plannedFanoutPerLevel()).isEqualTo(fanouts(plan));
        assertThat(stats.plannedResidentPartitions()).isEqualTo(plan.residentPartitions());
        assertThat(stats.maxRecursionDepth()).as("one partitioning pass, as planned").isZero();
        assertThat(stats.toJson()).contains("\"planned_fanout_per_level\":[32]")
                .contains("\"planned_resident_partitions\":" + plan.residentPartitions());
    }

    /** The (BIGINT, BIGINT) rows of these joins: a byte of flags and null bits, key and payload. */
    private static final int KEY_VALUE_ROW_BYTES = 17;

    /**
     * The planner as the join built it: its layout's writer share (a spill buffer per worker) per partition buffer,
     * the directory per row.
     */
    private static PartitionPlanner plannerOf(JoinStats stats) {
        return new PartitionPlanner(PlannerConfig.defaults((long) stats.spillBufferBytes() * stats.threads(),
                UnchainedTable.plannedBytesPerRow(KEY_VALUE_ROW_BYTES)));
    }

    /** The budget the partitioning was planned with: the join's, less the sketches and the key filter it holds. */
    private static long planBudget(JoinStats stats) {
        return stats.budgetBytes() - stats.sketchBytes() - stats.keyFilterBytes();
    }

    private static List<Integer> fanouts(PartitionPlan plan) {
        return plan.fanoutLog2PerLevel().stream().map(log2 -> 1 << log2).toList();
    }

    private JoinStats joinThroughCache(StatisticsLookup lookup, long nLeft, long nRight, long expectedCount,
            long expectedSum) {
        GeneratedSource left = new UnhintedSource(nLeft) {
            @Override
            protected long key(long i) {
                return i % 50_000;
            }

            @Override
            protected long payload(long i) {
                return WorkloadMath.payload(0x41, i);
            }
        };
        GeneratedSource right = new UnhintedSource(nRight) {
            @Override
            protected long key(long i) {
                return i % 10 < 3 ? 0 : i;
            }

            @Override
            protected long payload(long i) {
                return WorkloadMath.payload(0x42, i);
            }
        };
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("cached", 2 * MB)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget).statistics(lookup)
                    .config(JoinConfig.builder().spillDirectory(spillRoot.path()).build()).build();
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(left, right, result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(2 * MB);
        }
        assertThat(result.count()).isEqualTo(expectedCount);
        assertThat(result.sum()).isEqualTo(expectedSum);
        return stats;
    }

    /** A generated source that gives no size hints. */
    private abstract static class UnhintedSource extends GeneratedSource {
        UnhintedSource(long rows) {
            super(rows);
        }

        @Override
        public long sizeHintRows() {
            return -1;
        }

        @Override
        public long sizeHintBytes() {
            return -1;
        }
    }

    /**
     * Heavy-key routing keeps every join type's semantics: left (the build side) 10,000 rows, half of them key 7, 5%
     * NULL keys; right 1,000 rows, a tenth key 7, 5% NULL keys; batches of 128 rows, so key 7 is found by the sketch
     * after some of its rows are resident (they are moved to the heavy pair). The budget, 384 KiB of which the
     * sketches take about 127 KiB, is small enough for key 7's 5,000 rows (165 KB with their directory share) to
     * overflow a partition, so the planner routes it (under 1 MB the whole build side fits and nothing is routed).
     * A right semi or anti join returns no left column, so its build rows hold the key alone (key 7's 5,000 about
     * 45 KB, which overflow a partition or not with the seed's other rows): those two join 30,000 left rows of the
     * same make, key 7's 15,000 of them about 135 KB. Every join type, with the heavy pair joined in memory (default)
     * and on the nested-loop path (pair limit of one byte), against the oracle.
     */
    @Test
    void heavyKeyRoutingMatchesTheOracleForEveryJoinType() {
        long seed = Seeds.logged("SketchPlannedJoinTest heavy routing");
        SplittableRandom r = new SplittableRandom(seed);
        List<Object[]> wideLeftRows = heavyKeySevenRows(r, 10_000);
        List<Object[]> keyOnlyLeftRows = heavyKeySevenRows(r, 30_000);
        List<Object[]> rightRows = new ArrayList<>();
        for (long i = 0; i < 1_000; i++) {
            Long k = r.nextInt(10) == 0 ? Long.valueOf(7) : r.nextInt(20) == 0 ? null : Long.valueOf(r.nextInt(4_000));
            rightRows.add(new Object[] {k, -i});
        }
        for (JoinType type : JoinType.values()) {
            List<Object[]> leftRows = type.returnedSideOnly() == Side.RIGHT ? keyOnlyLeftRows : wideLeftRows;
            for (boolean nestedLoop : new boolean[] {false, true}) {
                JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).buildSide(Side.LEFT).build();
                if (nestedLoop) {
                    config = config.toBuilder().pairMemoryLimit(1).maxRecursionDepth(1).build();
                }
                String run = type + " nestedLoop=" + nestedLoop + " seed=" + seed;
                JoinStats stats = joinAsTheOracle(leftRows, rightRows, type, config, run);
                String what = run + " " + stats.toJson();
                assertThat(stats.heavyHitterKeysFromSketch()).as(what).isEqualTo(1);
                assertThat(stats.heavyHitterRowsFromSketch()).as(what)
                        .isEqualTo(leftRows.stream().filter(row -> Long.valueOf(7).equals(row[0])).count());
                if (nestedLoop) {
                    assertThat(stats.heavyHitterRows()).as("the heavy pair took the nested loop: " + what)
                            .isPositive();
                }
            }
        }
    }

    /** {@code rows} build rows {@code (k, i)}: half of them key 7, the others 5% NULL keys and keys below 3,000. */
    private static List<Object[]> heavyKeySevenRows(SplittableRandom r, int rows) {
        List<Object[]> out = new ArrayList<>();
        for (long i = 0; i < rows; i++) {
            Long k = r.nextInt(2) == 0 ? Long.valueOf(7) : r.nextInt(20) == 0 ? null : Long.valueOf(r.nextInt(3_000));
            out.add(new Object[] {k, i});
        }
        return out;
    }

    /**
     * NULL keys are no heavy key: a build side whose rows are two fifths NULL keys (one hash, which means nothing) and
     * otherwise distinct keys, key 0 among them, at the budget above, routes nothing to the heavy partition and
     * equals the oracle for every join type. Fed to the sketch, the NULL rows' one hash (of their slots' value, so
     * often key 0's) passed for a key of 40 % of the rows: a heavy key that took the heavy partition's writer share.
     */
    @Test
    void nullKeysAreNoHeavyKey() {
        long seed = Seeds.logged("SketchPlannedJoinTest NULL keys");
        SplittableRandom r = new SplittableRandom(seed);
        List<Object[]> leftRows = new ArrayList<>();
        for (long i = 0; i < 10_000; i++) {
            leftRows.add(new Object[] {r.nextInt(5) < 2 ? null : Long.valueOf(i), i});
        }
        List<Object[]> rightRows = new ArrayList<>();
        for (long i = 0; i < 1_000; i++) {
            rightRows.add(new Object[] {r.nextInt(20) == 0 ? null : Long.valueOf(r.nextInt(12_000)), -i});
        }
        for (JoinType type : JoinType.values()) {
            JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).buildSide(Side.LEFT).build();
            JoinStats stats = joinAsTheOracle(leftRows, rightRows, type, config, type + " seed=" + seed);
            String what = type + " seed=" + seed + " " + stats.toJson();
            assertThat(stats.toJson()).as(what).contains("\"sketches\":\"on\"");
            assertThat(stats.heavyHitterKeysFromSketch()).as(what).isZero();
        }
    }

    /**
     * The {@code type} join of {@code leftRows} and {@code rightRows} ((key, value) BIGINT rows, in batches of 128) on
     * key, each returned side's key and value projected, with {@code config} at {@link #HEAVY_BUDGET}: checked to equal
     * the nested-loop oracle as a multiset; returns its stats.
     */
    private JoinStats joinAsTheOracle(List<Object[]> leftRows, List<Object[]> rightRows, JoinType type,
                                      JoinConfig config, String what) {
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
        List<ColumnRef> projection = new ArrayList<>();
        for (Side side : Side.values()) {
            if (type.returnedSideOnly() == null || type.returnedSideOnly() == side) {
                projection.add(new ColumnRef(side, 0));
                projection.add(new ColumnRef(side, 1));
            }
        }
        int[] keys = {0};
        List<Object[]> expected = NestedLoopOracle.join(leftRows, rightRows, keys, keys, type, projection);
        try (MemoryReservation root = MemoryReservation.root("heavy-" + type, HEAVY_BUDGET)) {
            JoinSpec spec = JoinSpec.builder(schema, schema).on(0, 0).joinType(type).projection(projection)
                    .reservation(root).config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(schema, leftRows, 128),
                    Rows.toBatches(schema, rightRows, 128), JoinRunner.Mode.SINK, root);
            assertThat(Rows.multiset(result.rows())).as(what + " " + result.stats().toJson())
                    .isEqualTo(Rows.multiset(expected));
            return result.stats();
        }
    }

    /** At the join's minimum budget the sketches do not fit: the join runs without them and says so. */
    @Test
    void aBudgetTooSmallForSketchesRunsWithoutThemAndSaysSo() {
        JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).build();
        long budget = HashJoin.minimumBudget(config);
        GeneratedSource left = GeneratedSource.w1Build(20_000);
        GeneratedSource right = GeneratedSource.w1Probe(40_000, 20_000);
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation root = MemoryReservation.root("no-sketches", budget)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(root).config(config).build();
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(left, right, result);
                stats = join.stats();
            }
            assertThat(root.reserved()).isZero();
            assertThat(root.peakReserved()).isLessThanOrEqualTo(budget);
        }
        assertThat(result.count()).isEqualTo(40_000);
        assertThat(stats.sketchNote()).startsWith("off: the budget of");
        assertThat(stats.sketchBytes()).isZero();
        assertThat(stats.estimates().actualRows()).as("rows counted without sketches").isEqualTo(20_000);
        assertThat(stats.estimates().actualDistinctKeys()).as("no sketch: distinct keys unknown")
                .isEqualTo(EstimatesVsActuals.UNKNOWN);
        assertThat(stats.toJson()).contains("\"distinct_keys\":{\"estimated\":null,\"actual\":null}");
    }
}
