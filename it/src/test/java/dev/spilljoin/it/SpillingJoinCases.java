package dev.spilljoin.it;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Joins that spill, against the oracle: a 1 MB budget under a build side of several MB, with the fanout forced so
 * that the spilled partitions are joined directly (no re-partitioning), after one level of re-partitioning, or after
 * two or more; every join type SQL expresses, uniform, many-to-many and Zipf-skewed keys of one and two columns.
 * The stats prove the path: spilled partitions &gt; 0 and the recursion depth as intended; peak reserved ≤ budget
 * and nothing left reserved are checked by {@link SpilljoinRun}.
 */
interface SpillingJoinCases extends OracleTest {
    String NEEDS_ISSUE_4 = "needs the hybrid join of issue 4";
    long SPILL_BUDGET = 1L << 20;
    int PROBE_ROWS = 40_000;
    int BUILD_ROWS = 60_000;

    /** How deep the forced fanout makes the join re-partition a build side of ~6 MB under 1 MB. */
    enum Recursion {
        /** Fanout 64: every spilled partition (~100 KB) fits. */
        NONE(64, 0, 0),
        /** Fanout 4: level-0 partitions (~1.5 MB) do not fit, level-1 ones (~400 KB) do. */
        ONE_LEVEL(4, 1, 1),
        /** Fanout 2: ~3 MB, ~1.5 MB, then ~750 KB (which may still need a level with the join's overheads). */
        TWO_OR_MORE(2, 2, Integer.MAX_VALUE);

        final int fanout;
        final int minDepth;
        final int maxDepth;

        Recursion(int fanout, int minDepth, int maxDepth) {
            this.fanout = fanout;
            this.minDepth = minDepth;
            this.maxDepth = maxDepth;
        }
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
    @Disabled(NEEDS_ISSUE_4)
    default void spillingJoinMatchesTheOracle(Recursion recursion, KeyDistribution distribution, KeyShape shape)
            throws SQLException {
        long seed = SEED ^ (recursion.ordinal() * 0x9E3779B97F4A7C15L) ^ (distribution.ordinal() * 0xC2B2AE3D27D4EB4FL);
        System.out.println(getClass().getSimpleName() + " spilling " + recursion + " " + distribution + " " + shape
                + ": seed=" + SEED + " (replay with -Dseed=" + SEED + ")");
        JoinCase c = InputGenerator.generate(distribution, shape, PROBE_ROWS, BUILD_ROWS, 0.02, seed);
        JoinConfig config = HybridJoinKnobs.forceFanout(JoinConfig.DEFAULT.withBuildSide(Side.RIGHT), recursion.fanout);
        try (OracleTables tables = new OracleTables(oracle())) {
            String l = tables.load("l", c.leftSchema(), c.left());
            String r = tables.load("r", c.rightSchema(), c.right());
            for (JoinType type : JoinType.values()) {
                if (!c.supports(type)) {
                    continue;
                }
                JoinStats stats = OracleCheck.assertSame(tables, l, r, c, type, c.fullProjection(type), SPILL_BUDGET,
                        config, "-Dseed=" + SEED);
                assertThat(StatsFields.get(stats, "partitions")).as("%s spilled partitions: %s", type, stats).isPositive();
                assertThat(StatsFields.get(stats, "max_recursion_depth")).as("%s recursion depth: %s", type, stats)
                        .isBetween((long) recursion.minDepth, (long) recursion.maxDepth);
            }
        }
    }
}
