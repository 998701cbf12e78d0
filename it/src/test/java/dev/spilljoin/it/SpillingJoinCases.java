package dev.spilljoin.it;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Joins that spill, against the oracle: a 1 MB budget under a build side of about 3 MB (30,000 rows of seven
 * columns), with the fanout forced so that the spilled partitions are joined directly (no re-partitioning), after
 * one level of re-partitioning, or after two or more; every join type SQL expresses, uniform, many-to-many and
 * Zipf-skewed keys of one and two columns. The stats prove the path: spilled partitions &gt; 0 and the recursion
 * depth as intended; peak reserved ≤ budget, nothing left reserved and an empty spill root are checked by
 * {@link SpilljoinRun}.
 */
interface SpillingJoinCases extends OracleTest {
    long SPILL_BUDGET = 1L << 20;
    int ROWS = 30_000;

    /**
     * How deep the forced fanout makes the join re-partition a build side of ~3 MB under 1 MB. Where a depth of one
     * or more is asserted, per-pair role reversal is off: a reversed pair loads the smaller file instead (for a
     * semi join, the other side's keys alone) and would not need to re-partition. NONE keeps the default (on), so
     * reversed pairs are compared with the oracle too.
     */
    enum Recursion {
        /** Fanout 16: every spilled partition (~200 KB) fits. */
        NONE(16, 0, 0, true),
        /** Fanout 4: level-0 partitions (~750 KB plus the pair's table) do not fit, level-1 ones (~200 KB) do. */
        ONE_LEVEL(4, 1, 1, false),
        /** Fanout 2: ~1.5 MB, ~750 KB (does not fit with the pair's table), then ~375 KB or one level more. */
        TWO_OR_MORE(2, 2, Integer.MAX_VALUE, false);

        final int fanout;
        final int minDepth;
        final int maxDepth;
        final boolean roleReversal;

        Recursion(int fanout, int minDepth, int maxDepth, boolean roleReversal) {
            this.fanout = fanout;
            this.minDepth = minDepth;
            this.maxDepth = maxDepth;
            this.roleReversal = roleReversal;
        }
    }

    /**
     * The build side that keeps whole rows for {@code type}: the side the result returns (a build side whose columns
     * are not returned keeps only its keys, a fraction of the bytes, and would spill less deep).
     */
    static Side fullRowBuildSide(JoinType type) {
        return type.returnedSideOnly() == Side.LEFT ? Side.LEFT : Side.RIGHT;
    }

    /**
     * Whether the build side has a Zipf-hot key (≈ 10% of its rows): re-partitioning cannot split one key, so its
     * partition may go deeper than the others (or to the nested loop) whatever the fanout.
     */
    static boolean hotBuildKey(KeyDistribution distribution, JoinType type) {
        return distribution == KeyDistribution.ZIPF && fullRowBuildSide(type) == Side.LEFT;
    }

    static Stream<Arguments> recursionsAndInputs() {
        List<Arguments> out = new ArrayList<>();
        for (Recursion r : Recursion.values()) {
            out.add(Arguments.of(r, KeyDistribution.UNIFORM, KeyShape.BIGINT));
            out.add(Arguments.of(r, KeyDistribution.MANY_TO_MANY, KeyShape.VARCHAR));
            out.add(Arguments.of(r, KeyDistribution.ZIPF, KeyShape.BIGINT_VARCHAR));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("dev.spilljoin.it.SpillingJoinCases#recursionsAndInputs")
    default void spillingJoinMatchesTheOracle(Recursion recursion, KeyDistribution distribution, KeyShape shape)
            throws SQLException {
        long seed = SEED ^ (recursion.ordinal() * 0x9E3779B97F4A7C15L) ^ (distribution.ordinal() * 0xC2B2AE3D27D4EB4FL);
        System.out.println(getClass().getSimpleName() + " spilling " + recursion + " " + distribution + " " + shape
                + ": seed=" + SEED + " (replay with -Dseed=" + SEED + ")");
        JoinCase c = InputGenerator.generate(distribution, shape, ROWS, ROWS, 0.02, seed);
        try (OracleTables tables = new OracleTables(oracle())) {
            String l = tables.load("l", c.leftSchema(), c.left());
            String r = tables.load("r", c.rightSchema(), c.right());
            for (JoinType type : JoinType.values()) {
                if (!c.supports(type)) {
                    continue;
                }
                // every other join type with two workers (probe pass and spilled pairs on worker threads)
                JoinConfig config = JoinConfig.builder().buildSide(fullRowBuildSide(type))
                        .fanoutLog2(Integer.numberOfTrailingZeros(recursion.fanout))
                        .roleReversal(recursion.roleReversal).threads(1 + type.ordinal() % 2).rowsPerWorker(0).build();
                JoinStats stats = OracleCheck.assertSame(tables, l, r, c, type, c.fullProjection(type), SPILL_BUDGET,
                        config, "-Dseed=" + SEED);
                assertThat(stats.partitions()).as("%s spilled partitions: %s", type, stats).isPositive();
                // each of N pair workers joins in 1/N of the budget: pairs that one worker would split once may
                // split deeper then, so the upper bound holds for one pair worker only
                boolean oneWorker = stats.spilledPairsThreads() == 1;
                assertThat(stats.maxRecursionDepth()).as("%s recursion depth: %s", type, stats)
                        .isBetween(recursion.minDepth, hotBuildKey(distribution, type) || !oneWorker
                                ? Integer.MAX_VALUE : recursion.maxDepth);
            }
        }
    }
}
