package dev.spilljoin.it;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.Rows;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which table held the build rows ({@code table_kind} in the stats), against the oracle: every join type SQL
 * expresses × key spread {direct-index table: unique keys over a dense range; hash table: unique keys over a wide
 * range, or every key twice} × where the rows are joined {in memory, in spilled pairs, after re-partitioning, with a
 * hot key in the heavy pair (in memory, on the nested loop, or reversed)}. A single integer key (BIGINT, INTEGER, or
 * an INTEGER column joined to a BIGINT one: the oracle compares them as they are, spilljoin gets the INTEGER side
 * widened, as the CLI reads such keys); payloads of every fixed-width type, and a VARCHAR (NULL, empty or short),
 * which the direct-index table keeps in its heap, on every path. The stats prove the path and the tables:
 * {@link #assertTables}. Small inputs (a few thousand rows a side) in batches of 128 rows. Seeded; replay with
 * {@code -Dseed=}.
 */
interface TableKindJoinCases extends OracleTest {
    /** Batches small enough that the build's sketch is asked for heavy keys (every 4 batches) early. */
    int BATCH_ROWS = 128;

    /** How each side's keys are spread, which decides the table. */
    enum Spread {
        /**
         * Unique keys, 4 of every 5 values of a range: the direct-index table, also in pairs of 1/32 of the keys
         * (40 range values a row, under its limit of 64).
         */
        DENSE,
        /**
         * Unique keys about 997 apart and on no common stride: far sparser than the direct-index table's 64 values a
         * row, so the hash table.
         */
        SPARSE,
        /** Every key exactly twice (both rows in the same pair at every level): the hash table. */
        TWICE,
        /**
         * As {@link #DENSE}, with {@value #REPEATED_KEYS} of its keys {@value #REPEATS} times more each (W2's build
         * side in small): the build routes them to the heavy pair and keeps the direct-index table for the rest.
         * Joined in memory only (in spilled pairs such keys go to a pair's hash table, as {@link #TWICE}'s do).
         */
        DENSE_FEW_REPEATED,
        /**
         * Unique keys on a stride of 997, 4 of every 5 multiples of a range: as sparse as {@link #SPARSE}, but the
         * direct-index table spans their quotients (key - min) / 997, in memory and in spilled pairs (whose keys are
         * on a stride of 997 or a multiple of it). Not on the heavy paths, whose hot keys are off the stride.
         */
        STRIDED
    }

    /** Keys repeated in {@link Spread#DENSE_FEW_REPEATED}. */
    int REPEATED_KEYS = 3;
    /** Extra rows of each repeated key. */
    int REPEATS = 5;

    /** Where the build rows are joined, and how the join is made to get there. */
    enum Where {
        /** A generous budget: the level-0 table holds every build row. */
        IN_MEMORY,
        /**
         * Forced spilling, fanout 16 under 1 MB: every pair fits, none re-partitions. Role reversal stays on: both
         * sides are spread alike, so a reversed pair builds the same kind of table.
         */
        SPILLED_PAIRS,
        /** Forced spilling, fanout 2, pairs limited to 192 KiB, no role reversal: pairs re-partition once or more. */
        REPARTITIONED,
        /**
         * A hot key on each side ({@link #hotRows}) under 512 KiB: the build's sketch routes it to the heavy pair,
         * which is joined in memory; role reversal off, so the pair loads its build side, the hot key's rows.
         */
        HEAVY_PAIR,
        /** As {@link #HEAVY_PAIR}, pairs limited to 96 KiB: the heavy pair does not fit and takes the nested loop. */
        HEAVY_PAIR_NESTED_LOOP,
        /**
         * As {@link #HEAVY_PAIR} with role reversal on: the heavy pair's probe file (the other side's one row of the
         * hot key) is the smaller, so the pair loads that row instead, into a direct-index table.
         */
        HEAVY_PAIR_REVERSED;

        boolean heavy() {
            return this == HEAVY_PAIR || this == HEAVY_PAIR_NESTED_LOOP || this == HEAVY_PAIR_REVERSED;
        }
    }

    /** The key columns' types: the operator's, and the oracle's left one. */
    enum KeyTypes {
        BIGINT(ColumnType.BIGINT, ColumnType.BIGINT),
        INTEGER(ColumnType.INTEGER, ColumnType.INTEGER),
        /** The oracle joins an INTEGER column to a BIGINT one; spilljoin gets the left column as BIGINT. */
        INTEGER_TO_BIGINT(ColumnType.BIGINT, ColumnType.INTEGER);

        final ColumnType operator;
        final ColumnType oracleLeft;

        KeyTypes(ColumnType operator, ColumnType oracleLeft) {
            this.operator = operator;
            this.oracleLeft = oracleLeft;
        }
    }

    /** Every path × spread; key types rotate so each path sees each of them; NULL keys on both sides in half. */
    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        for (Where where : Where.values()) {
            for (Spread spread : Spread.values()) {
                if (spread == Spread.DENSE_FEW_REPEATED && where != Where.IN_MEMORY
                        || spread == Spread.STRIDED && where != Where.IN_MEMORY && where != Where.SPILLED_PAIRS) {
                    continue;
                }
                int cell = where.ordinal() + spread.ordinal();
                out.add(Arguments.of(where, spread, KeyTypes.values()[cell % 3], cell % 2 == 0));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} NULL keys {3}")
    @MethodSource("dev.spilljoin.it.TableKindJoinCases#cells")
    default void tableKindAndResultMatchTheOracle(Where where, Spread spread, KeyTypes keyTypes, boolean nullKeys)
            throws SQLException {
        long seed = OracleTest.SEED ^ (where.ordinal() * 0x9E3779B97F4A7C15L)
                ^ (spread.ordinal() * 0xC2B2AE3D27D4EB4FL);
        String replay = "-Dseed=" + OracleTest.SEED;
        System.out.println(getClass().getSimpleName() + " table kind " + where + " " + spread + " " + keyTypes
                + ": seed=" + OracleTest.SEED + " (replay with " + replay + ")");
        SplittableRandom random = new SplittableRandom(seed);
        int rows = where == Where.IN_MEMORY ? 2_000 : 3_000;
        long base = random.nextInt(2001) - 1000;
        List<Object[]> leftRows = side(random, spread, where, rows, base, nullKeys, true);
        List<Object[]> rightRows = side(random, spread, where, rows, base, nullKeys, false);
        JoinCase c = joinCase(where + " " + spread + " " + keyTypes + " keys, " + rows + " rows a side, seed " + seed,
                keyTypes.operator, keyTypes.operator, leftRows, rightRows);
        JoinCase oracleRows = joinCase(c.description(), keyTypes.oracleLeft, keyTypes.operator, leftRows, rightRows);
        StringBuilder summary = new StringBuilder(getClass().getSimpleName() + " table kind " + where + " " + spread
                + " (kind, direct/hash tables, depth):");
        try (OracleTables tables = new OracleTables(oracle())) {
            String l = tables.load("l", oracleRows.leftSchema(), oracleRows.left());
            String r = tables.load("r", oracleRows.rightSchema(), oracleRows.right());
            for (JoinType type : JoinType.values()) {
                // in memory and in spilled pairs either side builds; the re-partitioning and heavy-key cells are sized
                // for a build side of whole rows (as in SpillingJoinCases)
                List<Side> builds = where == Where.IN_MEMORY || where == Where.SPILLED_PAIRS ? List.of(Side.values())
                        : List.of(SpillingJoinCases.fullRowBuildSide(type));
                for (Side build : builds) {
                    JoinConfig config = config(where, type, build);
                    JoinStats stats = OracleCheck.assertSame(tables, l, r, c, type, c.fullProjection(type),
                            budget(where), config, replay);
                    summary.append(" ").append(type).append('/').append(build).append(": ").append(stats.tableKind())
                            .append(' ').append(stats.directTables()).append('d').append(stats.hashTables()).append('h')
                            .append(" depth ").append(stats.maxRecursionDepth());
                    assertTables(where, spread, type, build, stats, hotRows(rows));
                }
            }
        }
        System.out.println(summary);
    }

    static long budget(Where where) {
        return switch (where) {
            case IN_MEMORY -> 64L << 20;
            case SPILLED_PAIRS, REPARTITIONED -> SpillingJoinCases.SPILL_BUDGET;
            case HEAVY_PAIR, HEAVY_PAIR_NESTED_LOOP, HEAVY_PAIR_REVERSED -> 512L << 10;
        };
    }

    /** The join's configuration for the path: one worker or two alternately, except for the heavy pair (one). */
    static JoinConfig config(Where where, JoinType type, Side build) {
        JoinConfig.Builder b = JoinConfig.builder().buildSide(build).threads(1 + type.ordinal() % 2).rowsPerWorker(0);
        return switch (where) {
            case IN_MEMORY -> b.build();
            case SPILLED_PAIRS -> b.forceSpill(true).fanoutLog2(4).build();
            // a pair needs its reader's window (128 KiB under 1 MB), its rows (small pages) and its table: a level-0
            // pair (~1,500 rows) more than 192 KiB, a level-1 or level-2 pair less
            case REPARTITIONED -> b.forceSpill(true).fanoutLog2(1).roleReversal(false).pageSize(4096)
                    .spillBufferBytes(512).spillWindowBytes(4096).pairMemoryLimit(192L << 10).build();
            case HEAVY_PAIR -> b.threads(1).roleReversal(false).build();
            case HEAVY_PAIR_NESTED_LOOP -> b.threads(1).roleReversal(false).pairMemoryLimit(96L << 10).build();
            case HEAVY_PAIR_REVERSED -> b.threads(1).roleReversal(true).build();
        };
    }

    /**
     * The path and the tables the stats must show. Direct (DENSE): every table direct, except the heavy pair's built
     * on the hot side, which holds the hot key many times and so is a hash table (or nested-loop chunks): "mixed".
     * Hash (SPARSE, TWICE): no direct table anywhere, except the reversed heavy pair's one-row table: "mixed".
     * STRIDED: every table direct and indexed by the stride.
     * DENSE_FEW_REPEATED: its repeated keys routed to the heavy pair, the level-0 table direct.
     */
    private static void assertTables(Where where, Spread spread, JoinType type, Side build, JoinStats stats,
                                     long hotBuildRows) {
        String what = where + " " + spread + " " + type + " build=" + build + ": " + stats.toJson();
        if (spread == Spread.DENSE_FEW_REPEATED) {
            assertThat(stats.heavyHitterKeysFromDuplicates()).as("repeated keys routed, %s", what)
                    .isEqualTo(REPEATED_KEYS);
            assertThat(stats.directTables()).as("the level-0 table, %s", what).isPositive();
            assertThat(stats.spilledBytesBuild()).as("the repeated keys' rows in the heavy pair, %s", what)
                    .isPositive();
            return;
        }
        switch (where) {
            case IN_MEMORY -> {
                assertThat(stats.partitions()).as("spilled partitions, %s", what).isZero();
                assertThat(stats.directTables() + stats.hashTables()).as("level 0's table only, %s", what)
                        .isEqualTo(1);
            }
            case SPILLED_PAIRS -> {
                assertThat(stats.partitions()).as("spilled partitions, %s", what).isPositive();
                assertThat(stats.residentPartitions()).as("resident partitions, %s", what).isZero();
                assertThat(stats.maxRecursionDepth()).as("recursion depth, %s", what).isZero();
            }
            case REPARTITIONED -> {
                assertThat(stats.partitions()).as("spilled partitions, %s", what).isPositive();
                assertThat(stats.maxRecursionDepth()).as("recursion depth, %s", what).isPositive();
                assertThat(stats.heavyHitterRows()).as("nested-loop rows, %s", what).isZero();
            }
            case HEAVY_PAIR, HEAVY_PAIR_NESTED_LOOP, HEAVY_PAIR_REVERSED -> {
                assertThat(stats.heavyHitterKeysFromSketch()).as("heavy keys routed, %s", what).isEqualTo(1);
                assertThat(stats.heavyHitterRowsFromSketch()).as("hot build rows in the heavy pair, %s", what)
                        .isEqualTo(hotBuildRows);
                if (where == Where.HEAVY_PAIR_NESTED_LOOP) {
                    assertThat(stats.heavyHitterRows()).as("nested-loop rows, %s", what).isGreaterThan(hotBuildRows);
                } else {
                    assertThat(stats.heavyHitterRows()).as("nested-loop rows, %s", what).isZero();
                }
                if (where == Where.HEAVY_PAIR_REVERSED) {
                    assertThat(stats.roleReversals()).as("reversed pairs, %s", what).isPositive();
                } else {
                    assertThat(stats.roleReversals()).as("reversed pairs, %s", what).isZero();
                }
            }
        }
        if (where == Where.HEAVY_PAIR_REVERSED) {
            boolean dense = spread == Spread.DENSE;
            assertThat(stats.tableKind()).as("table kind, %s", what).isEqualTo(dense ? "direct" : "mixed");
            if (!dense) {
                assertThat(stats.directTables()).as("the heavy pair's table only, %s", what).isEqualTo(1);
            }
        } else if (spread == Spread.STRIDED) {
            assertThat(stats.tableKind()).as("table kind, %s", what).isEqualTo("direct");
            assertThat(stats.directTablesStrided()).as("strided tables, %s", what).isPositive()
                    .isEqualTo(stats.directTables());
        } else if (spread == Spread.DENSE) {
            assertThat(stats.directTables()).as("direct tables, %s", what).isPositive();
            assertThat(stats.tableKind()).as("table kind, %s", what)
                    .isEqualTo(where.heavy() ? "mixed" : "direct");
            if (where.heavy()) {
                // the heavy pair alone: one hash table in memory, or its nested-loop chunks
                assertThat(stats.hashTables()).as("hash tables, %s", what)
                        .isEqualTo(where == Where.HEAVY_PAIR_NESTED_LOOP ? stats.nestedLoopChunks() : 1);
            }
        } else {
            assertThat(stats.directTables()).as("direct tables, %s", what).isZero();
            assertThat(stats.tableKind()).as("table kind, %s", what).isEqualTo("hash");
        }
    }

    /**
     * One side's rows {@code (k, a, d, i, b, s)}: {@code n} keyed rows spread as {@code spread} says from {@code base},
     * 3% NULL keys if {@code nullKeys}, NULL payloads now and then, in random order; on the heavy path also
     * {@link #hotRows} rows of this side's hot key and one row of the other side's (one only: a second would put a duplicate in the
     * pair that holds it when this side builds).
     */
    private static List<Object[]> side(SplittableRandom r, Spread spread, Where where, int n, long base,
                                       boolean nullKeys, boolean left) {
        List<Long> keys = new ArrayList<>();
        int range = n + n / 4;
        switch (spread) {
            case DENSE, SPARSE, DENSE_FEW_REPEATED, STRIDED -> {
                int[] ids = permutation(r, range);
                for (int i = 0; i < n; i++) {
                    long step = spread == Spread.SPARSE || spread == Spread.STRIDED ? 997L : 1L;
                    keys.add(base + step * ids[i] + (spread == Spread.SPARSE ? ids[i] % 7 : 0)); // SPARSE: no stride
                }
                for (int k = 0; spread == Spread.DENSE_FEW_REPEATED && k < REPEATED_KEYS; k++) {
                    for (int i = 0; i < REPEATS; i++) {
                        keys.add(base + ids[k]);
                    }
                }
            }
            case TWICE -> {
                int[] ids = permutation(r, range / 2);
                for (int i = 0; i < n; i++) {
                    keys.add(base + ids[i / 2]);
                }
            }
        }
        if (where.heavy()) {
            for (int i = 0; i < hotRows(n); i++) {
                keys.add(hotKey(base, left));
            }
            keys.add(hotKey(base, !left));
        }
        if (nullKeys) {
            for (int i = 0; i < n * 3 / 100; i++) {
                keys.add(null);
            }
        }
        List<Object[]> out = new ArrayList<>();
        for (Long k : keys) {
            out.add(new Object[] {k, (long) out.size(), r.nextInt(10) == 0 ? null : r.nextDouble() * 1e6 - 5e5,
                r.nextInt(10) == 0 ? null : r.nextInt(), r.nextInt(10) == 0 ? null : r.nextBoolean(), text(r)});
        }
        for (int i = out.size() - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            Object[] t = out.get(i);
            out.set(i, out.get(j));
            out.set(j, t);
        }
        return out;
    }

    /** A VARCHAR payload: NULL, empty, or a few characters. */
    private static String text(SplittableRandom r) {
        int kind = r.nextInt(10);
        return kind == 0 ? null : kind == 1 ? "" : "v" + r.nextInt(1000);
    }

    /**
     * The rows of a side's hot key beside {@code n} keyed rows: enough that the planner routes it however the build's
     * sampled sketch estimates it, few enough that the heavy pair still joins in memory. With as many as the keyed
     * rows, its estimated footprint plus a partition's share came to 91–97 % of the partition capacity for one seed in
     * 13 or more (276 kB of a 353 kB plan; the sketch saw 2,538–2,729 of its 3,000 rows), and the key went unrouted;
     * with 7/5 as many, the DENSE cells' heavy pair no longer fits and takes the nested loop.
     */
    private static int hotRows(int n) {
        return n * 6 / 5;
    }

    /** A side's hot key: just below the range, so that the other side's one row of it keeps its pair dense. */
    private static long hotKey(long base, boolean left) {
        return base - (left ? 3 : 7);
    }

    private static int[] permutation(SplittableRandom r, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            int j = r.nextInt(i + 1);
            p[i] = p[j];
            p[j] = i;
        }
        return p;
    }

    /** The rows as a case with key columns of the given types (INTEGER keys narrowed, payloads as they are). */
    private static JoinCase joinCase(String description, ColumnType leftKey, ColumnType rightKey,
                                     List<Object[]> leftRows, List<Object[]> rightRows) {
        Schema left = schema("l_", leftKey);
        Schema right = schema("r_", rightKey);
        return new JoinCase(description, left, right, new int[] {0}, new int[] {0},
                Rows.toBatches(left, typed(leftRows, leftKey, left.size()), BATCH_ROWS),
                Rows.toBatches(right, typed(rightRows, rightKey, right.size()), BATCH_ROWS));
    }

    private static Schema schema(String prefix, ColumnType key) {
        return Schema.of(Column.of(prefix + "k", key), Column.of(prefix + "a", ColumnType.BIGINT),
                Column.of(prefix + "d", ColumnType.DOUBLE), Column.of(prefix + "i", ColumnType.INTEGER),
                Column.of(prefix + "b", ColumnType.BOOLEAN), Column.of(prefix + "s", ColumnType.VARCHAR));
    }

    /** The first {@code columns} values of each row, the key narrowed to an int for an INTEGER key. */
    private static List<Object[]> typed(List<Object[]> rows, ColumnType key, int columns) {
        List<Object[]> out = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            Object[] copy = Arrays.copyOf(row, columns);
            if (key == ColumnType.INTEGER) {
                copy[0] = row[0] == null ? null : Math.toIntExact((Long) row[0]);
            }
            out.add(copy);
        }
        return out;
    }
}
