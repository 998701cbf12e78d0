package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.CountAndSum;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The direct-index table ({@link dev.spilljoin.operator.table.DirectIndexTable}) against the nested-loop oracle:
 * every join type in both orientations, in memory and inside spilled pairs (forced spilling, small fanouts so that
 * a pair's keys stay dense enough), all three driving forms, result batches of a few rows (resumption), NULL keys
 * and NULL payloads on both sides, INTEGER and BIGINT keys, negative keys, probe keys whose {@code key - min}
 * overflows. Which table a join used is asserted from the stats ({@code table_kind}, {@code direct_tables}); the
 * fallbacks (duplicates, a range that overflows a long, ranges above 2^31 or too sparse) are asserted to use the
 * hash table and to stay correct; VARCHAR payloads (NULL, empty, over a kilobyte) go into the table's heap in every
 * other case. After every join: zero bytes reserved, peak within the
 * budget, the spill root empty. Seeded; replay with {@code -Dseed=<seed>}.
 */
class DirectIndexJoinTest {
    private static final int CASES = Integer.getInteger("cases", 6);
    /** One more than the heavy keys a build routes. */
    private static final int DUPLICATE_KEYS_AT_MOST = PartitionedBuild.MAX_HEAVY_KEYS + 1;

    @TempDir
    Path spillRoot;

    private enum Where { IN_MEMORY, SPILLED_PAIRS }

    /** A side of {@code rows} rows: key (unique non-NULL values from {@code keys}, some NULL), four payload columns. */
    private static List<Object[]> side(SplittableRandom r, ColumnType keyType, int rows, LongSupplier keys,
                                       boolean unique) {
        Set<Long> seen = new HashSet<>();
        List<Object[]> out = new ArrayList<>();
        while (out.size() < rows) {
            Object key = null;
            if (r.nextInt(10) != 0) {
                long k = keys.getAsLong();
                if (unique && !seen.add(k)) {
                    continue;
                }
                key = keyType == ColumnType.INTEGER ? (Object) (int) k : (Object) k;
            }
            out.add(new Object[] {key, r.nextInt(5) == 0 ? null : r.nextLong(),
                    r.nextInt(5) == 0 ? null : r.nextDouble(), r.nextInt(5) == 0 ? null : r.nextBoolean(),
                    r.nextInt(5) == 0 ? null : r.nextInt(), text(r)});
        }
        return out;
    }

    /** A VARCHAR payload: NULL, empty, a few bytes or over a kilobyte. */
    private static String text(SplittableRandom r) {
        int kind = r.nextInt(20);
        return kind == 0 ? null : kind == 1 ? "" : kind == 2 ? "t".repeat(1000 + r.nextInt(1000))
                : "s" + r.nextInt(100);
    }

    private static Schema schema(String prefix, ColumnType keyType) {
        return Schema.of(Column.of(prefix + "k", keyType), Column.of(prefix + "a", ColumnType.BIGINT),
                Column.of(prefix + "b", ColumnType.DOUBLE), Column.of(prefix + "c", ColumnType.BOOLEAN),
                Column.of(prefix + "d", ColumnType.INTEGER), Column.of(prefix + "s", ColumnType.VARCHAR));
    }

    /** Every fixed-width column of the sides the join type returns, and the VARCHAR if {@code withVarchar}. */
    private static List<ColumnRef> projection(JoinType type, boolean withVarchar) {
        List<ColumnRef> p = new ArrayList<>();
        for (Side side : Side.values()) {
            if (type.returnedSideOnly() == null || type.returnedSideOnly() == side) {
                for (int c = 0; c < (withVarchar ? 6 : 5); c++) {
                    p.add(new ColumnRef(side, c));
                }
            }
        }
        return p;
    }

    /** Runs one join on one worker and compares it with the oracle; returns its stats. */
    private JoinStats check(List<Object[]> leftRows, List<Object[]> rightRows, ColumnType keyType, JoinType type,
                            Side build, Where where, boolean withVarchar, SplittableRandom r, String what)
            throws IOException {
        return check(leftRows, rightRows, keyType, type, build, where, withVarchar, 1, r, what);
    }

    /** Runs one join on {@code threads} workers and compares it with the oracle; returns its stats. */
    private JoinStats check(List<Object[]> leftRows, List<Object[]> rightRows, ColumnType keyType, JoinType type,
                            Side build, Where where, boolean withVarchar, int threads, SplittableRandom r,
                            String what) throws IOException {
        Schema left = schema("l", keyType);
        Schema right = schema("r", keyType);
        List<ColumnRef> projection = projection(type, withVarchar);
        JoinConfig.Builder config = JoinConfig.builder().buildSide(build).spillDirectory(spillRoot).threads(threads)
                .rowsPerWorker(0)
                .outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 4 : 500));
        if (where == Where.SPILLED_PAIRS) {
            config.forceSpill(true).roleReversal(r.nextBoolean()).fanoutLog2(1 + r.nextInt(2)).pageSize(4096).spillBufferBytes(512)
                    .spillWindowBytes(4096);
        }
        JoinConfig c = config.build();
        long budget = where == Where.SPILLED_PAIRS ? HashJoin.minimumBudget(c) + (1 << 20) : 64L << 20;
        JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(3)];
        List<Object[]> expected = NestedLoopOracle.join(leftRows, rightRows, new int[] {0}, new int[] {0}, type,
                projection);
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinSpec spec = JoinSpec.builder(left, right).on(0, 0).joinType(type).projection(projection)
                    .reservation(root).config(c).build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(left, leftRows, 1 + r.nextInt(300)),
                    Rows.toBatches(right, rightRows, 1 + r.nextInt(300)), mode, root);
            String context = what + " " + type + " build=" + build + " " + where + " mode=" + mode + " threads="
                    + threads + " stats=" + result.stats().toJson();
            assertThat(Rows.multiset(result.rows())).as(context).isEqualTo(Rows.multiset(expected));
            assertThat(result.stats().peakReservedBytes()).as(context).isLessThanOrEqualTo(budget);
            if (where == Where.SPILLED_PAIRS) {
                assertThat(result.stats().residentPartitions()).as(context).isZero();
            }
            try (var files = Files.list(spillRoot)) {
                assertThat(files).as("spill root after " + context).isEmpty();
            }
            return result.stats();
        }
    }

    private static long seed(String test) {
        return Seeds.logged("DirectIndexJoinTest." + test);
    }

    /** Both sides unique per side, dense ranges that overlap: every join type, both orientations, both places. */
    private void everyJoinType(Where where) throws IOException {
        long seed = seed("everyJoinType " + where);
        SplittableRandom random = new SplittableRandom(seed);
        int joins = 0;
        int direct = 0;
        for (int c = 0; c < CASES; c++) {
            SplittableRandom r = new SplittableRandom(random.nextLong());
            ColumnType keyType = r.nextBoolean() ? ColumnType.BIGINT : ColumnType.INTEGER;
            boolean withVarchar = c % 2 == 0; // the table's heap in every other case
            long base = r.nextInt(2001) - 1000;
            int rows = where == Where.SPILLED_PAIRS ? 300 + r.nextInt(300) : 1 + r.nextInt(400);
            List<Object[]> leftRows = side(r, keyType, rows, () -> base + r.nextInt(rows + rows / 2), true);
            List<Object[]> rightRows = side(r, keyType, rows, () -> base + r.nextInt(rows + rows / 2), true);
            boolean keyed = leftRows.stream().anyMatch(row -> row[0] != null)
                    && rightRows.stream().anyMatch(row -> row[0] != null);
            for (JoinType type : JoinType.values()) {
                for (Side build : Side.values()) {
                    JoinStats stats = check(build == Side.LEFT ? leftRows : withExtremeKeys(leftRows, keyType),
                            build == Side.RIGHT ? rightRows : withExtremeKeys(rightRows, keyType), keyType, type,
                            build, where, withVarchar, r,
                            "seed=" + seed + " case=" + c + " key=" + keyType + " varchar=" + withVarchar);
                    joins++;
                    direct += stats.directTables() > 0 ? 1 : 0;
                    if (where == Where.IN_MEMORY && keyed) {
                        assertThat(stats.tableKind()).as("seed=%d case=%d %s build=%s", seed, c, type, build)
                                .isIn("direct", "none");
                    }
                }
            }
        }
        System.out.println("DirectIndexJoinTest " + where + ": " + direct + " of " + joins + " joins used a direct table");
        assertThat(direct).as("joins that used a direct table, seed=%d", seed).isGreaterThan(joins / 2);
    }

    /** {@code rows} plus probe keys far out of any build range: their {@code key - min} overflows or wraps. */
    private static List<Object[]> withExtremeKeys(List<Object[]> rows, ColumnType keyType) {
        List<Object[]> out = new ArrayList<>(rows);
        boolean ints = keyType == ColumnType.INTEGER;
        out.add(new Object[] {ints ? (Object) Integer.MIN_VALUE : (Object) Long.MIN_VALUE, 1L, 1.0, true, 1, "x"});
        out.add(new Object[] {ints ? (Object) Integer.MAX_VALUE : (Object) Long.MAX_VALUE, 2L, 2.0, false, 2, "y"});
        return out;
    }

    @Test
    void everyJoinTypeInMemoryMatchesTheOracle() throws IOException {
        everyJoinType(Where.IN_MEMORY);
    }

    @Test
    void everyJoinTypeInsideSpilledPairsMatchesTheOracle() throws IOException {
        everyJoinType(Where.SPILLED_PAIRS);
    }

    @Test
    void aDenseUniqueBuildSideIsJoinedWithTheDirectTableInMemoryAndInSpilledPairs() throws IOException {
        SplittableRandom r = new SplittableRandom(seed("chosen"));
        List<Object[]> build = side(r, ColumnType.BIGINT, 2000, () -> -5000 + r.nextInt(2200), true);
        List<Object[]> probe = side(r, ColumnType.BIGINT, 3000, () -> -5100 + r.nextInt(2400), false);
        JoinStats inMemory = check(probe, build, ColumnType.BIGINT, JoinType.LEFT_OUTER, Side.RIGHT, Where.IN_MEMORY,
                false, r, "chosen");
        assertThat(inMemory.tableKind()).isEqualTo("direct");
        assertThat(inMemory.directTables()).isEqualTo(1);
        assertThat(inMemory.toJson()).contains("\"table_kind\":\"direct\"");
        JoinStats spilled = check(probe, build, ColumnType.BIGINT, JoinType.RIGHT_OUTER, Side.RIGHT,
                Where.SPILLED_PAIRS, false, r, "chosen, spilled");
        assertThat(spilled.partitions()).isPositive();
        assertThat(spilled.directTables()).as(spilled.toJson()).isPositive();
    }

    /**
     * A build side whose keys fill their range (a permutation of it, plus NULL keys: the table is full, so neither
     * probe nor gather reads its occupancy or ranks), joined in memory to probe rows with repeated, missing,
     * out-of-range and NULL keys: every join type, both orientations, equal to the oracle.
     */
    @Test
    void aFullKeyRangeMatchesTheOracleForEveryJoinType() throws IOException {
        long seed = seed("full range");
        SplittableRandom r = new SplittableRandom(seed);
        for (ColumnType keyType : new ColumnType[] {ColumnType.BIGINT, ColumnType.INTEGER}) {
            int rows = 200 + r.nextInt(300);
            long base = -1 - r.nextInt(rows - 1); // 0 in the range: what a NULL key's slot holds must not be looked up
            List<Long> keys = new ArrayList<>();
            for (long k = 0; k < rows; k++) {
                keys.add(base + k);
            }
            java.util.Collections.shuffle(keys, new java.util.Random(r.nextLong()));
            List<Object[]> full = side(r, keyType, rows + rows / 9, () -> 0, false); // the payloads
            for (int i = 0; i < full.size(); i++) { // every key of the range once, then NULL keys
                Long key = i < rows ? keys.get(i) : null;
                full.get(i)[0] = key == null ? null : keyType == ColumnType.INTEGER ? (Object) key.intValue() : key;
            }
            List<Object[]> probe = side(r, keyType, 2 * rows, () -> base - 5 + r.nextInt(rows + 10), false);
            for (JoinType type : JoinType.values()) {
                for (Side build : Side.values()) {
                    JoinStats stats = check(build == Side.LEFT ? full : probe, build == Side.RIGHT ? full : probe,
                            keyType, type, build, Where.IN_MEMORY, false, r,
                            "seed=" + seed + " full range key=" + keyType);
                    assertThat(stats.tableKind()).as("seed=%d %s %s build=%s", seed, keyType, type, build)
                            .isEqualTo("direct");
                }
            }
        }
    }

    /**
     * Build keys on a stride far too wide for a table over every value between them (a day in microseconds for
     * BIGINT, in seconds for INTEGER): the table spans their quotients, which only the stride makes possible, every
     * quotient a key (full) or with holes; probe keys on the stride, next to it, beyond the build's, NULL and
     * extreme: every join type, both orientations, in memory and in spilled pairs, equal to the oracle.
     */
    @Test
    void keysOnAStrideAreJoinedWithTheDirectTable() throws IOException {
        long seed = seed("stride");
        SplittableRandom r = new SplittableRandom(seed);
        for (ColumnType keyType : new ColumnType[] {ColumnType.BIGINT, ColumnType.INTEGER}) {
            for (boolean full : new boolean[] {true, false}) {
                long stride = keyType == ColumnType.BIGINT ? 86_400_000_000L : 86_400;
                int rows = 200 + r.nextInt(200);
                long base = (r.nextInt(41) - 20) * stride + r.nextInt(1000);
                List<Long> quotients = new ArrayList<>();
                for (long q = 0; q < (full ? rows : 2L * rows); q++) {
                    quotients.add(q);
                }
                java.util.Collections.shuffle(quotients, new java.util.Random(r.nextLong()));
                List<Object[]> build = side(r, keyType, rows + rows / 9, () -> 0, false); // the payloads
                for (int i = 0; i < build.size(); i++) { // distinct quotients, then NULL keys
                    Long key = i < rows ? base + stride * quotients.get(i) : null;
                    build.get(i)[0] = key == null ? null
                            : keyType == ColumnType.INTEGER ? (Object) key.intValue() : key;
                }
                List<Object[]> probe = withExtremeKeys(side(r, keyType, 2 * rows, () -> base
                        + stride * (r.nextInt(3 * rows) - rows / 2) + (r.nextInt(4) == 0 ? r.nextInt(5) - 2 : 0),
                        false), keyType);
                String what = "seed=" + seed + " stride key=" + keyType + " full=" + full;
                for (JoinType type : JoinType.values()) {
                    for (Side buildSide : Side.values()) {
                        JoinStats stats = check(buildSide == Side.LEFT ? build : probe,
                                buildSide == Side.RIGHT ? build : probe, keyType, type, buildSide, Where.IN_MEMORY,
                                false, r, what);
                        assertThat(stats.tableKind()).as("%s %s build=%s", what, type, buildSide)
                                .isEqualTo("direct");
                        assertThat(stats.directTablesStrided()).as("%s %s", what, stats.toJson()).isEqualTo(1);
                    }
                }
                // inside the build's range, so that the key filter leaves the probe side the larger one (no pair's
                // roles reversed)
                List<Object[]> inRange = side(r, keyType, 4 * rows, () -> base + stride * r.nextInt(rows)
                        + (r.nextInt(4) == 0 ? r.nextInt(5) - 2 : 0), false);
                JoinStats spilled = check(inRange, build, keyType, JoinType.FULL_OUTER, Side.RIGHT,
                        Where.SPILLED_PAIRS, true, r, what + " spilled");
                if (spilled.roleReversals() < spilled.partitions()) { // a reversed pair loads the repeating probe keys
                    assertThat(spilled.directTables()).as(what + " spilled " + spilled.toJson()).isPositive();
                }
                assertThat(spilled.directTablesStrided()).as(what + " spilled " + spilled.toJson())
                        .isEqualTo(spilled.directTables());
                assertThat(spilled.toJson()).contains("\"direct_tables_strided\":" + spilled.directTables());
            }
        }
    }

    @Test
    void fallbacksUseTheHashTableAndStayCorrect() throws IOException {
        SplittableRandom r = new SplittableRandom(seed("fallbacks"));
        List<Object[]> probe = side(r, ColumnType.BIGINT, 500, () -> r.nextInt(600), false);
        // duplicates: found while filling, the hash table is built over the same rows
        List<Object[]> duplicates = side(r, ColumnType.BIGINT, 400, () -> r.nextInt(500), false);
        duplicates.add(new Object[] {7L, 1L, 1.0, true, 1, "a"});
        duplicates.add(new Object[] {7L, 2L, 2.0, false, 2, "b"});
        // the range overflows a long
        List<Object[]> extremes = side(r, ColumnType.BIGINT, 300, () -> r.nextInt(600), true);
        extremes.add(new Object[] {Long.MIN_VALUE, 1L, 1.0, true, 1, "a"});
        extremes.add(new Object[] {Long.MAX_VALUE, 2L, 2.0, false, 2, "b"});
        // a range above 2^31
        List<Object[]> wide = side(r, ColumnType.BIGINT, 300, () -> r.nextInt(600), true);
        wide.add(new Object[] {(1L << 31) + 5, 1L, 1.0, true, 1, "a"});
        // too sparse: 100 values per row (and not on a stride: some keys odd, some even)
        List<Object[]> sparse = side(r, ColumnType.BIGINT, 300, () -> 100L * r.nextInt(600) + r.nextInt(2), true);
        // only NULL keys
        List<Object[]> nullKeys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            nullKeys.add(new Object[] {null, (long) i, 1.0, true, i, "n"});
        }
        for (List<Object[]> build : List.of(duplicates, extremes, wide, sparse, nullKeys)) {
            for (JoinType type : JoinType.values()) {
                JoinStats stats = check(probe, build, ColumnType.BIGINT, type, Side.RIGHT, Where.IN_MEMORY, false, r,
                        "fallback");
                assertThat(stats.directTables()).as("%s %s", type, stats.toJson()).isZero();
            }
        }
        // with a projected variable-width build column as without: chosen
        List<Object[]> unique = side(r, ColumnType.BIGINT, 300, () -> r.nextInt(400), true);
        assertThat(check(probe, unique, ColumnType.BIGINT, JoinType.INNER, Side.RIGHT, Where.IN_MEMORY, true, r,
                "varchar").directTables()).isEqualTo(1);
        assertThat(check(probe, unique, ColumnType.BIGINT, JoinType.INNER, Side.RIGHT, Where.IN_MEMORY, false, r,
                "no varchar").directTables()).isEqualTo(1);
    }

    /**
     * A dense unique key but for three keys that repeat (one of them the range's maximum, so the range shrinks when
     * its rows move), at most one keyed row in eight: the build moves those keys' rows to the heavy partition and
     * keeps the direct-index table for the rest, in memory, on one worker and on two, both key types, for every join
     * type with either side as the build side (the probe rows of those keys are joined in the heavy pair, the other
     * rows against the table); equal to the oracle. Over 64 such keys, or one keyed row in eight, the hash table.
     */
    @Test
    void aFewDuplicateKeysGoToTheHeavyPairAndTheDirectTableHoldsTheRest() throws IOException {
        long seed = seed("duplicates routed");
        SplittableRandom r = new SplittableRandom(seed);
        int rows = 2000;
        long[] repeated = {7, 1000, rows - 1};
        for (ColumnType keyType : new ColumnType[] {ColumnType.BIGINT, ColumnType.INTEGER}) {
            List<Long> keys = new ArrayList<>();
            for (long k = 0; k < rows; k++) {
                keys.add(k);
            }
            java.util.Collections.shuffle(keys, new java.util.Random(r.nextLong()));
            keys.addAll(java.util.Collections.nCopies(60, 7L)); // 60 + 9 + 1 extra rows of 2,070: below 1 in 8
            keys.addAll(java.util.Collections.nCopies(9, 1000L));
            keys.add(rows - 1L);
            List<Object[]> build = side(r, keyType, keys.size() + 100, () -> 0, false); // the payloads
            for (int i = 0; i < build.size(); i++) { // the keys, then NULL keys
                Long key = i < keys.size() ? keys.get(i) : null;
                build.get(i)[0] = key == null ? null : keyType == ColumnType.INTEGER ? (Object) key.intValue() : key;
            }
            List<Object[]> probe = side(r, keyType, 3000, () -> r.nextInt(4) == 0 ? repeated[r.nextInt(3)]
                    : r.nextInt(rows + 40) - 20, false);
            for (JoinType type : JoinType.values()) {
                for (Side side : Side.values()) {
                    int threads = 1 + r.nextInt(2);
                    JoinStats stats = check(side == Side.LEFT ? build : probe, side == Side.RIGHT ? build : probe,
                            keyType, type, side, Where.IN_MEMORY, true, threads, r,
                            "seed=" + seed + " duplicates routed key=" + keyType);
                    String what = "seed=" + seed + " " + keyType + " " + type + " build=" + side + " threads="
                            + threads + " " + stats.toJson();
                    assertThat(stats.heavyHitterKeysFromDuplicates()).as(what).isEqualTo(repeated.length);
                    assertThat(stats.directTables()).as(what).isPositive();
                    assertThat(stats.spilledBytesBuild()).as(what).isPositive();
                }
            }
            List<Object[]> tooMany = new ArrayList<>(build);
            for (int k = 0; k < DUPLICATE_KEYS_AT_MOST; k++) { // 65 keys repeated
                tooMany.add(new Object[] {keyType == ColumnType.INTEGER ? (Object) (100 + k) : (Object) (100L + k),
                        1L, 1.0, true, 1, "m"});
            }
            List<Object[]> tooManyRows = new ArrayList<>(build);
            for (int k = 0; k < rows / 8; k++) { // 70 + 250 extra rows: above 1 in 8
                tooManyRows.add(new Object[] {keyType == ColumnType.INTEGER ? (Object) 5 : (Object) 5L, 1L, 1.0,
                        true, 1, "m"});
            }
            for (List<Object[]> hashBuild : List.of(tooMany, tooManyRows)) {
                JoinStats stats = check(probe, hashBuild, keyType, JoinType.INNER, Side.RIGHT, Where.IN_MEMORY,
                        false, r, "seed=" + seed + " too many duplicates");
                assertThat(stats.directTables()).as(stats.toJson()).isZero();
                assertThat(stats.heavyHitterKeysFromDuplicates()).as(stats.toJson()).isZero();
            }
        }
    }

    @Test
    void emptyAndOneRowBuildSides() throws IOException {
        SplittableRandom r = new SplittableRandom(seed("empty and one row"));
        List<Object[]> probe = side(r, ColumnType.INTEGER, 200, () -> r.nextInt(50) - 25, false);
        List<Object[]> oneRow = new ArrayList<>();
        oneRow.add(new Object[] {-3, 5L, null, true, null, "o"});
        for (JoinType type : JoinType.values()) {
            for (Side build : Side.values()) {
                List<Object[]> empty = List.of();
                check(build == Side.LEFT ? empty : probe, build == Side.LEFT ? probe : empty, ColumnType.INTEGER,
                        type, build, Where.IN_MEMORY, false, r, "empty build");
                JoinStats one = check(build == Side.LEFT ? oneRow : probe, build == Side.LEFT ? probe : oneRow,
                        ColumnType.INTEGER, type, build, Where.IN_MEMORY, false, r, "one-row build");
                assertThat(one.tableKind()).as("%s build=%s", type, build).isEqualTo("direct");
            }
        }
    }

    /**
     * Re-partitioned pairs: a pair limit below a level-0 pair's size makes the level-0 pairs split; children joined in
     * memory use direct tables while their keys stay dense enough (deeper levels may fall back to the hash table),
     * and the result equals the oracle.
     */
    @Test
    void repartitionedPairsAreJoinedWithDirectTables() throws IOException {
        long seed = seed("re-partitioned");
        SplittableRandom r = new SplittableRandom(seed);
        List<Object[]> build = side(r, ColumnType.BIGINT, 40_000, () -> r.nextInt(50_000), true);
        List<Object[]> probe = side(r, ColumnType.BIGINT, 2000, () -> r.nextInt(52_000), false);
        for (JoinType type : List.of(JoinType.FULL_OUTER, JoinType.RIGHT_SEMI)) {
            JoinConfig config = JoinConfig.builder().buildSide(Side.RIGHT).spillDirectory(spillRoot).forceSpill(true)
                    .roleReversal(false).fanoutLog2(1).pageSize(4096).spillBufferBytes(512).spillWindowBytes(4096)
                    .pairMemoryLimit(1536 << 10).build();
            List<ColumnRef> projection = projection(type, false);
            List<Object[]> expected = NestedLoopOracle.join(probe, build, new int[] {0}, new int[] {0}, type,
                    projection);
            try (MemoryReservation root = MemoryReservation.root("test", HashJoin.minimumBudget(config) + (8 << 20))) {
                JoinSpec spec = JoinSpec.builder(schema("l", ColumnType.BIGINT), schema("r", ColumnType.BIGINT))
                        .on(0, 0).joinType(type).projection(projection).reservation(root).config(config).build();
                JoinRunner.Result result = JoinRunner.run(spec,
                        Rows.toBatches(schema("l", ColumnType.BIGINT), probe, 256),
                        Rows.toBatches(schema("r", ColumnType.BIGINT), build, 256), JoinRunner.Mode.ITERATOR, root);
                JoinStats stats = result.stats();
                String what = "seed=" + seed + " " + type + " " + stats.toJson();
                assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
                assertThat(stats.maxRecursionDepth()).as(what).isPositive();
                assertThat(stats.directTables()).as(what).isPositive();
            }
        }
    }

    /**
     * An extra join condition marks serialized build rows through its candidate pairs, which the direct-index table
     * does not hold: such joins keep the hash table, and stay correct.
     */
    @Test
    void anExtraConditionKeepsTheHashTable() throws IOException {
        SplittableRandom r = new SplittableRandom(seed("condition"));
        List<Object[]> left = side(r, ColumnType.BIGINT, 300, () -> r.nextInt(400), true);
        List<Object[]> right = side(r, ColumnType.BIGINT, 300, () -> r.nextInt(400), true);
        PairCondition lessThan = (pairs, accepted) -> {
            for (int row = 0; row < pairs.rowCount(); row++) {
                if (pairs.column(0).isNull(row) || pairs.column(1).isNull(row)
                        || pairs.column(0).getLong(row) >= pairs.column(1).getLong(row)) {
                    accepted[row >>> 6] &= ~(1L << row);
                }
            }
        };
        for (JoinType type : JoinType.values()) {
            if (type == JoinType.NULL_AWARE_LEFT_ANTI) {
                continue; // NOT IN takes no extra condition
            }
            for (Side build : Side.values()) {
                List<ColumnRef> projection = projection(type, false);
                List<Object[]> expected = NestedLoopOracle.join(left, right, new int[] {0}, new int[] {0}, type,
                        projection, (l, rr) -> l[1] != null && rr[1] != null && (Long) l[1] < (Long) rr[1]);
                try (MemoryReservation root = MemoryReservation.root("test", 64L << 20)) {
                    JoinSpec spec = JoinSpec.builder(schema("l", ColumnType.BIGINT), schema("r", ColumnType.BIGINT))
                            .on(0, 0).joinType(type).projection(projection).reservation(root)
                            .config(JoinConfig.builder().buildSide(build).spillDirectory(spillRoot).build())
                            .condition(List.of(new ColumnRef(Side.LEFT, 1), new ColumnRef(Side.RIGHT, 1)), lessThan)
                            .build();
                    JoinRunner.Result result = JoinRunner.run(spec,
                            Rows.toBatches(schema("l", ColumnType.BIGINT), left, 100),
                            Rows.toBatches(schema("r", ColumnType.BIGINT), right, 100), JoinRunner.Mode.SINK, root);
                    String what = type + " build=" + build + " " + result.stats().toJson();
                    assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
                    assertThat(result.stats().tableKind()).as(what).isEqualTo("hash");
                }
            }
        }
    }

    /**
     * The planner's side of the table: W1's shape (a BIGINT key and one BIGINT payload column, 8.19 bytes per row in
     * the direct table, 16 to 32 in the hash table's directory). At a budget a little above what the join with the
     * direct table reserves at its peak in a large budget (256 KiB for what a smaller budget plans differently, such
     * as the writer shares it sets aside while it builds), every partition stays resident; the same rows with
     * duplicate keys in more than one keyed row in eight need the hash table, which does not fit there, so partitions
     * spill.
     */
    @Test
    void theDirectTablesSmallerSizeKeepsPartitionsResidentWhereTheHashTableWouldSpill() throws IOException {
        SplittableRandom r = new SplittableRandom(seed("resident"));
        int rows = 60_000;
        List<Object[]> build = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            build.add(new Object[] {(long) i - 30_000, (long) i, 1.0 * i, i % 2 == 0, i, "b"});
        }
        List<Object[]> probe = side(r, ColumnType.BIGINT, 20_000, () -> r.nextInt(70_000) - 35_000, false);
        long peak = runAt(64L << 20, probe, build).peakReservedBytes();
        // plus the sketches, which the join takes in the smaller budget only (in 64 MB the build stays in memory)
        long budget = peak + (256 << 10) + JoinSketches.memoryBytes();
        JoinStats direct = runAt(budget, probe, build);
        assertThat(direct.tableKind()).as(direct.toJson()).isEqualTo("direct");
        assertThat(direct.partitions()).as(direct.toJson()).isZero();
        List<Object[]> withDuplicates = new ArrayList<>(build);
        for (int i = 0; i < rows / 4; i++) {
            withDuplicates.add(new Object[] {(long) i - 30_000, -1L, -1.0, true, -1, "d"});
        }
        JoinStats hash = runAt(budget, probe, withDuplicates);
        assertThat(hash.directTables()).as(hash.toJson()).isZero();
        assertThat(hash.partitions()).as(hash.toJson()).isPositive();
    }

    /**
     * W1 at the tight setting's budget, 32 bytes per build row: the build pass holds 17-byte rows, the writer shares
     * no partition used go back to the budget, and the direct table takes 8.19 bytes per row, so nothing spills, on
     * one worker and on two; the result is W1's, the peak within the budget.
     */
    @Test
    void w1AtThirtyTwoBytesPerBuildRowJoinsWithoutASpill() {
        long nR = 500_000;
        long nS = 1_000_000;
        long budget = 32 * nR;
        long[] expected = GeneratedSource.w1CountAndSum(nR, nS);
        for (int threads : new int[] {1, 2}) {
            CountAndSum result = new CountAndSum();
            JoinStats stats;
            try (MemoryReservation root = MemoryReservation.root("w1-tight", budget)) {
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(root)
                        .config(JoinConfig.builder().spillDirectory(spillRoot).threads(threads).rowsPerWorker(0)
                                .build()).build();
                try (HashJoin join = HashJoin.create(spec)) {
                    join.run(GeneratedSource.w1Build(nR), GeneratedSource.w1Probe(nS, nR), result);
                    stats = join.stats();
                }
                assertThat(root.reserved()).isZero();
            }
            String what = threads + " workers: " + stats.toJson();
            assertThat(result.count()).as(what).isEqualTo(expected[0]);
            assertThat(result.sum()).as(what).isEqualTo(expected[1]);
            assertThat(stats.tableKind()).as(what).isEqualTo("direct");
            assertThat(stats.partitions()).as(what).isZero();
            assertThat(stats.spilledBytesBuild() + stats.spilledBytesProbe()).as(what).isZero();
            assertThat(stats.peakReservedBytes()).as(what).isLessThanOrEqualTo(budget);
        }
    }

    /** An INNER join of {@code probe} with {@code build} projecting (probe key, build BIGINT) at {@code budget}. */
    private JoinStats runAt(long budget, List<Object[]> probe, List<Object[]> build) {
        Schema left = schema("l", ColumnType.BIGINT);
        Schema right = schema("r", ColumnType.BIGINT);
        List<ColumnRef> projection = List.of(new ColumnRef(Side.LEFT, 0), new ColumnRef(Side.RIGHT, 1));
        Map<Object, List<Object>> payloadOfKey = new HashMap<>();
        for (Object[] row : build) {
            payloadOfKey.computeIfAbsent(row[0], k -> new ArrayList<>()).add(row[1]);
        }
        List<Object[]> expected = new ArrayList<>();
        for (Object[] row : probe) {
            for (Object payload : row[0] == null ? List.of() : payloadOfKey.getOrDefault(row[0], List.of())) {
                expected.add(new Object[] {row[0], payload});
            }
        }
        JoinConfig config = JoinConfig.builder().buildSide(Side.RIGHT).spillDirectory(spillRoot).pageSize(64 << 10)
                .spillBufferBytes(4096).spillWindowBytes(4096).build();
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinSpec spec = JoinSpec.builder(left, right).on(0, 0).projection(projection).reservation(root)
                    .config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(left, probe, 1024),
                    Rows.toBatches(right, build, 1024), JoinRunner.Mode.SINK, root);
            assertThat(Rows.multiset(result.rows())).as(result.stats().toJson()).isEqualTo(Rows.multiset(expected));
            System.out.println("budget " + budget + ": " + result.stats().toJson());
            return result.stats();
        }
    }
}
