package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.table.BuildKeyFilter;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build-key filter ({@link BuildKeyFilter}): probe rows it rules out are joined at once instead of spilled, which
 * must not change any join type's result, in either build orientation; its counts show in the stats; it switches
 * itself off where it does not pay. Every partition is forced to spill, so every probe row is checked.
 */
class BuildKeyFilterTest {
    private static final long MB = 1 << 20;
    /** A budget that 24,000 (BIGINT, BIGINT) build rows outgrow part-way, with room for the key filter. */
    private static final long PART_WAY_BUDGET = 512 << 10;
    private static final Schema LEFT = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("a", ColumnType.BIGINT));
    private static final Schema RIGHT = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("b", ColumnType.BIGINT));
    private static final Schema LEFT_INT = Schema.of(Column.of("k", ColumnType.INTEGER), Column.of("a", ColumnType.BIGINT));
    private static final Schema RIGHT_INT = Schema.of(Column.of("k", ColumnType.INTEGER), Column.of("b", ColumnType.BIGINT));

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    @Test
    void rowsTheFilterRulesOutStillJoinCorrectlyForEveryJoinTypeWithBigintKeys() {
        everyJoinTypeMatchesTheOracle(LEFT, RIGHT, true, 1);
    }

    @Test
    void rowsTheFilterRulesOutStillJoinCorrectlyForEveryJoinTypeWithIntegerKeys() {
        everyJoinTypeMatchesTheOracle(LEFT_INT, RIGHT_INT, true, 1);
    }

    /**
     * Nothing spills: the filter's sure misses skip the hash table's lookup in the in-memory probe (keys 100× as
     * sparse, beyond the direct-index table's reach).
     */
    @Test
    void rowsTheFilterRulesOutSkipTheHashTableInMemoryForEveryJoinType() {
        everyJoinTypeMatchesTheOracle(LEFT, RIGHT, false, 100);
    }

    /**
     * Nothing spills and the table is a direct-index table: its occupancy bitmap is an exact filter, so the probe
     * does not ask the key filter as well.
     */
    @Test
    void aDirectIndexTableInMemoryIsNotFilteredTwice() {
        List<Object[]> left = new ArrayList<>();
        for (long i = 0; i < 3_000; i++) {
            left.add(new Object[] {10 * i, i});
        }
        List<Object[]> right = new ArrayList<>();
        for (long k = -5_000; k < 40_000; k++) {
            right.add(new Object[] {k, k});
        }
        for (JoinType type : List.of(JoinType.INNER, JoinType.LEFT_ANTI, JoinType.FULL_OUTER)) {
            Side only = type.returnedSideOnly();
            List<ColumnRef> projection = only != null ? List.of(new ColumnRef(only, 1))
                    : List.of(new ColumnRef(Side.LEFT, 1), new ColumnRef(Side.RIGHT, 1));
            JoinConfig config = JoinConfig.builder().buildSide(Side.LEFT).spillDirectory(spillRoot.path()).build();
            JoinRunner.Result result;
            try (MemoryReservation root = MemoryReservation.root("filter-direct", 4 * MB)) {
                JoinSpec spec = JoinSpec.builder(LEFT, RIGHT).on(0, 0).joinType(type).projection(projection)
                        .reservation(root).config(config).build();
                result = JoinRunner.run(spec, Rows.toBatches(LEFT, left, 1000), Rows.toBatches(RIGHT, right, 1000),
                        JoinRunner.Mode.ITERATOR, root);
            }
            JoinStats stats = result.stats();
            String what = type + " " + stats.toJson();
            assertThat(Rows.multiset(result.rows())).as(what)
                    .isEqualTo(Rows.multiset(NestedLoopOracle.join(left, right, new int[] {0}, new int[] {0}, type,
                            projection)));
            assertThat(stats.tableKind()).as(what).isEqualTo("direct");
            assertThat(stats.partitions()).as(what).isZero();
            assertThat(stats.probeRowsFilterChecked()).as(what).isZero();
        }
    }

    /**
     * Left: 3,000 keys 10·i plus NULL keys; right: 20,000 keys uniform in [−5,000, 40,000) (below, inside and above
     * the left's range; ~7% equal a left key) plus NULL keys, every key times {@code scale}. Every join type, both
     * build sides, against the oracle; every partition spilled, or ({@code spill} false) none, in which case the
     * table must be a hash table (asked of a {@code scale} that spreads the keys too far for a direct-index table).
     */
    private void everyJoinTypeMatchesTheOracle(Schema leftSchema, Schema rightSchema, boolean spill, int scale) {
        boolean ints = leftSchema.type(0) == ColumnType.INTEGER;
        long seed = Seeds.logged("BuildKeyFilterTest");
        SplittableRandom random = new SplittableRandom(seed);
        List<Object[]> left = new ArrayList<>();
        for (long i = 0; i < 3_000; i++) {
            long k = 10L * scale * i + (scale > 1 ? i % 2 : 0); // sparse keys off a common stride: no direct table
            Object key = i % 100 == 7 ? null : ints ? (Object) (int) k : (Object) k;
            left.add(new Object[] {key, random.nextLong(1 << 20)});
        }
        List<Object[]> right = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            int k = scale * random.nextInt(-5_000, 40_000);
            right.add(new Object[] {i % 500 == 3 ? null : ints ? (Object) k : (Object) (long) k, random.nextLong(1 << 20)});
        }
        for (JoinType type : JoinType.values()) {
            Side only = type.returnedSideOnly();
            List<ColumnRef> projection = only != null ? List.of(new ColumnRef(only, 1))
                    : List.of(new ColumnRef(Side.LEFT, 1), new ColumnRef(Side.RIGHT, 1));
            List<Object[]> expected = NestedLoopOracle.join(left, right, new int[] {0}, new int[] {0}, type, projection);
            for (Side build : Side.values()) {
                JoinConfig config = JoinConfig.builder().pageSize(4096).outputBatchRows(1024).buildSide(build)
                        .spillDirectory(spillRoot.path()).forceSpill(spill).build();
                JoinRunner.Result result;
                try (MemoryReservation root = MemoryReservation.root("filter", 4 * MB)) {
                    JoinSpec spec = JoinSpec.builder(leftSchema, rightSchema).on(0, 0).joinType(type)
                            .projection(projection).reservation(root).config(config).build();
                    result = JoinRunner.run(spec, Rows.toBatches(leftSchema, left, 1000),
                            Rows.toBatches(rightSchema, right, 1000),
                            JoinRunner.Mode.ITERATOR, root);
                }
                JoinStats stats = result.stats();
                String what = type + " build=" + build + " " + stats.toJson();
                assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
                assertThat(stats.keyFilterNote()).as(what).isEqualTo("on");
                assertThat(stats.partitions()).as(what).isEqualTo(spill ? stats.fanout() : 0);
                if (!spill) {
                    assertThat(stats.tableKind()).as(what).isEqualTo("hash");
                }
                assertThat(stats.probeRowsExcludedByBloom()).as(what).isPositive();
                long probeRows = stats.rows(build.other());
                assertThat(stats.probeRowsFilterChecked()).as(what).isLessThanOrEqualTo(probeRows);
                if (build == Side.RIGHT) {
                    // The left keys all lie inside the right's range: only the Bloom filter can rule them out.
                    assertThat(stats.probeRowsExcludedByRange()).as(what).isZero();
                } else {
                    // Right keys outside [0, 29,990]·scale are 5,000 + 10,009 of 45,000 values: about a third of the rows.
                    assertThat(stats.probeRowsExcludedByRange()).as(what).isBetween(probeRows / 4, probeRows / 2);
                    assertThat(stats.probeRowsExcludedByRange() + stats.probeRowsExcludedByBloom()).as(what)
                            .isGreaterThan(probeRows * 8 / 10);
                }
            }
        }
    }

    /**
     * The build spills part-way (its budget fills; nothing is forced), so the filter, fed only from the first spill
     * on, must take the keys of the rows the workers held before it from their arenas: on one worker and on two, with
     * build rows in random key order, the results of an inner, an anti and a full join equal the oracle's, and the
     * filter ruled probe rows out. Left: 24,000 keys {@link #spread}(i); right: 6,000 keys spread from uniform in
     * [0, 144,000), about a sixth of them a left key. (Spread over 2^40: the hash table, which no readmission takes in,
     * so the spilled partitions stay spilled.)
     */
    @Test
    void aBuildThatSpillsPartWayFeedsTheFilterWithTheRowsItHeldBefore() {
        long seed = Seeds.logged("BuildKeyFilterTest.partWay");
        SplittableRandom random = new SplittableRandom(seed);
        List<Object[]> left = new ArrayList<>();
        for (long i = 0; i < 24_000; i++) {
            left.add(new Object[] {spread(i), random.nextLong(1 << 20)});
        }
        for (int i = left.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Object[] t = left.get(i);
            left.set(i, left.get(j));
            left.set(j, t);
        }
        List<Object[]> right = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
            right.add(new Object[] {spread(random.nextLong(144_000)), random.nextLong(1 << 20)});
        }
        for (int threads : new int[] {1, 2}) {
            for (JoinType type : List.of(JoinType.INNER, JoinType.LEFT_ANTI, JoinType.FULL_OUTER)) {
                Side only = type.returnedSideOnly();
                List<ColumnRef> projection = only != null ? List.of(new ColumnRef(only, 1))
                        : List.of(new ColumnRef(Side.LEFT, 1), new ColumnRef(Side.RIGHT, 1));
                JoinConfig config = JoinConfig.builder().pageSize(4096).outputBatchRows(1024).buildSide(Side.LEFT)
                        .threads(threads).rowsPerWorker(0).spillDirectory(spillRoot.path()).build();
                JoinRunner.Result result;
                try (MemoryReservation root = MemoryReservation.root("filter-part-way", PART_WAY_BUDGET)) {
                    JoinSpec spec = JoinSpec.builder(LEFT, RIGHT).on(0, 0).joinType(type).projection(projection)
                            .reservation(root).config(config).build();
                    result = JoinRunner.run(spec, Rows.toBatches(LEFT, left, 1000), Rows.toBatches(RIGHT, right, 1000),
                            JoinRunner.Mode.ITERATOR, root);
                }
                JoinStats stats = result.stats();
                String what = type + " threads=" + threads + " " + stats.toJson();
                assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(
                        NestedLoopOracle.join(left, right, new int[] {0}, new int[] {0}, type, projection)));
                assertThat(stats.keyFilterNote()).as(what).isEqualTo("on");
                assertThat(stats.partitions()).as("spilled part-way: " + what).isBetween(1L, (long) stats.fanout() - 1);
                assertThat(stats.probeRowsExcludedByBloom()).as(what).isPositive();
            }
        }
    }

    /** A foreign-key join (every probe key exists): the filter judges itself useless and stops checking. */
    @Test
    void theFilterSwitchesItselfOffWhenEveryProbeKeyExists() {
        List<Object[]> left = new ArrayList<>();
        for (long i = 0; i < 10_000; i++) {
            left.add(new Object[] {i, i});
        }
        List<Object[]> right = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            right.add(new Object[] {(long) (i % 10_000), 1L});
        }
        JoinConfig config = JoinConfig.builder().pageSize(4096).outputBatchRows(1024).buildSide(Side.LEFT)
                .spillDirectory(spillRoot.path()).forceSpill(true).build();
        JoinRunner.Result result;
        try (MemoryReservation root = MemoryReservation.root("filter-off", 4 * MB)) {
            JoinSpec spec = JoinSpec.builder(LEFT, RIGHT).on(0, 0).project(Side.RIGHT, "b")
                    .reservation(root).config(config).build();
            result = JoinRunner.run(spec, Rows.toBatches(LEFT, left, 4096), Rows.toBatches(RIGHT, right, 4096),
                    JoinRunner.Mode.SINK, root);
        }
        JoinStats stats = result.stats();
        assertThat(result.rows()).hasSize(200_000);
        assertThat(stats.probeRowsExcludedByRange() + stats.probeRowsExcludedByBloom()).as(stats.toJson()).isZero();
        assertThat(stats.probeRowsFilterChecked()).as("checks stop once judged: " + stats.toJson())
                .isBetween(BuildKeyFilter.JUDGE_AFTER_ROWS, BuildKeyFilter.JUDGE_AFTER_ROWS + 4096);
    }

    /** No false negatives, a few percent false positives at the default 7–13 bits per key. */
    @Test
    void theBloomFilterHasNoFalseNegativesAndFewFalsePositives() {
        Schema schema = Schema.of(Column.of("k", ColumnType.VARCHAR));
        JoinSpec spec = JoinSpec.builder(schema, schema).on(0, 0).budgetBytes(64 * MB).build();
        int n = 100_000;
        try (MemoryReservation memory = MemoryReservation.root("bloom", 64 * MB)) {
            Reserved<BuildKeyFilter> reserved = BuildPlan.reserveKeyFilter(spec, Side.RIGHT, memory, 0, n, -1);
            BuildKeyFilter filter = reserved.value();
            SplittableRandom random = new SplittableRandom(42);
            Batch batch = new Batch(schema, n);
            batch.setRowCount(n);
            long[] hashes = new long[n];
            long[] noNulls = new long[(n + 63) >>> 6];
            long[] added = new long[n];
            for (int i = 0; i < n; i++) {
                added[i] = random.nextLong();
                hashes[i] = random.nextLong();
            }
            filter.add(0, batch, added, noNulls, false);
            filter.endAdds();
            long[] all = allRows(n);
            long[] misses = new long[all.length];
            BuildKeyFilter.Checks checks = new BuildKeyFilter.Checks();
            filter.markSureMisses(batch, hashes, all, misses, checks);
            long passed = java.util.Arrays.stream(all).map(Long::bitCount).sum();
            assertThat(java.util.Arrays.stream(misses).map(Long::bitCount).sum()).as("misses = rows not passed")
                    .isEqualTo(n - passed);
            assertThat(checks.isOn()).as("a filter that excludes most rows stays on").isTrue();
            assertThat(checks.checked()).as("rows checked").isEqualTo(n);
            all = allRows(n);
            filter.markSureMisses(batch, added, all, misses, checks);
            assertThat(java.util.Arrays.stream(all).map(Long::bitCount).sum()).as("every added key passes").isEqualTo(n);
            assertThat(misses).as("no added key is a sure miss").containsOnly(0L);
            System.out.println("Bloom filter of " + reserved.bytes() + " bytes for " + n + " keys: "
                    + passed + " false positives in " + n);
            assertThat(reserved.bytes() * 8 / n).as("bits per key").isBetween(7L, 13L);
            assertThat(passed).as("false positives").isLessThan(n / 10);
            filter.close();
        }
    }

    /**
     * Two build workers adding to parts of their own ({@code splitAdds}): after {@code endAdds} the filter holds
     * both parts' keys (every key added by either passes) and both parts' key range (probe keys outside the union of
     * the two ranges are excluded by it, keys between them are not), and the parts' bytes are given back.
     */
    @Test
    void theWorkersPartsMergeIntoOneFilter() {
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT));
        JoinSpec spec = JoinSpec.builder(schema, schema).on(0, 0).budgetBytes(64 * MB).build();
        int n = 10_000;
        try (MemoryReservation memory = MemoryReservation.root("bloom parts", 64 * MB)) {
            Reserved<BuildKeyFilter> reserved = BuildPlan.reserveKeyFilter(spec, Side.RIGHT, memory, 0, 2L * n, -1);
            BuildKeyFilter filter = reserved.value();
            filter.splitAdds(2, 32 * MB);
            assertThat(filter.addsConcurrently()).as("parts granted").isTrue();
            assertThat(memory.reserved()).as("the filter and one part").isEqualTo(2 * reserved.bytes());
            SplittableRandom random = new SplittableRandom(7);
            Batch[] batches = new Batch[2];
            long[][] hashes = new long[2][n];
            long[] noNulls = new long[(n + 63) >>> 6];
            for (int w = 0; w < 2; w++) {
                batches[w] = new Batch(schema, n);
                batches[w].setRowCount(n);
                long[] keys = batches[w].column(0).longs();
                for (int i = 0; i < n; i++) {
                    keys[i] = (w == 0 ? 1_000 : 1_000_000) + i; // worker 0: 1,000.., worker 1: 1,000,000..
                    hashes[w][i] = random.nextLong();
                }
                filter.add(w, batches[w], hashes[w], noNulls, false);
            }
            filter.endAdds();
            assertThat(filter.addsConcurrently()).as("parts merged").isFalse();
            assertThat(memory.reserved()).as("the parts' bytes given back").isEqualTo(reserved.bytes());
            for (int w = 0; w < 2; w++) {
                long[] all = allRows(n);
                long[] misses = new long[all.length];
                filter.markSureMisses(batches[w], hashes[w], all, misses, new BuildKeyFilter.Checks());
                assertThat(misses).as("no key worker %d added is a sure miss", w).containsOnly(0L);
            }
            Batch outside = new Batch(schema, 3);
            outside.setRowCount(3);
            outside.column(0).longs()[0] = 999; // below worker 0's range
            outside.column(0).longs()[1] = 1_000_000 + n; // above worker 1's range
            outside.column(0).longs()[2] = 500_000; // between the two ranges: inside the merged one
            long[] all = allRows(3);
            BuildKeyFilter.Checks checks = new BuildKeyFilter.Checks();
            filter.markSureMisses(outside, new long[] {hashes[0][0], hashes[1][0], hashes[0][1]}, all, new long[1],
                    checks);
            assertThat(checks.excludedByRange()).as("probe keys outside both ranges").isEqualTo(2);
            assertThat(all[0]).as("the key between the ranges passes (its hash was added)").isEqualTo(0b100L);
            filter.close();
        }
    }

    private static long[] allRows(int n) {
        long[] all = new long[(n + 63) >>> 6];
        java.util.Arrays.fill(all, -1L);
        if ((n & 63) != 0) {
            all[all.length - 1] = -1L >>> (64 - (n & 63));
        }
        return all;
    }

    /**
     * {@code i} spread over [0, 2^40) by an odd multiplier: distinct for distinct {@code i}, far too sparse for a
     * direct-index table.
     */
    private static long spread(long i) {
        return Math.floorMod(i * 1_099_511_627_689L, 1L << 40);
    }
}
