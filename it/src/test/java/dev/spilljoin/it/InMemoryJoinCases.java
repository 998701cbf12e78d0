package dev.spilljoin.it;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.testing.RandomJoinInputs;
import dev.spilljoin.operator.testing.Rows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory comparisons, run against each oracle by the test class that opens it ({@link OracleTest}): spilljoin's result must be the
 * oracle's, as a multiset, for every join type SQL can express, on (1) random schemas from the operator's own
 * generator (1–3 key columns of any type, NULLs, -0.0/NaN, extreme values, empty inputs), in both build
 * orientations with random projections, and (2) every {@link KeyDistribution} × {@link KeyShape} with payloads of
 * every type. Seeds are printed; replay with {@code -Dseed=} (and {@code -Dcases=} for the random schemas).
 */
interface InMemoryJoinCases extends OracleTest {
    /** Generous: these joins never spill. */
    long BUDGET = 256L << 20;

    @Test
    default void randomSchemasEveryJoinTypeBothOrientations() throws SQLException {
        SqlOracle oracle = oracle();
        int cases = Integer.getInteger("cases", 25);
        System.out.println(getClass().getSimpleName() + " random schemas: seed=" + OracleTest.SEED + " cases=" + cases
                + " (replay with -Dseed=" + OracleTest.SEED + ")");
        SplittableRandom random = new SplittableRandom(OracleTest.SEED);
        int joins = 0;
        for (int i = 0; i < cases; i++) {
            long caseSeed = random.nextLong();
            SplittableRandom r = new SplittableRandom(caseSeed);
            RandomJoinInputs in = new RandomJoinInputs(r, 150);
            JoinCase c = new JoinCase("random schemas case " + i + " (case seed " + caseSeed + ")", in.left, in.right,
                    in.leftKeys, in.rightKeys, Rows.toBatches(in.left, in.leftRows, 1 + r.nextInt(64)),
                    Rows.toBatches(in.right, in.rightRows, 1 + r.nextInt(64)));
            try (OracleTables tables = new OracleTables(oracle)) {
                String l = tables.load("l", c.leftSchema(), c.left());
                String rt = tables.load("r", c.rightSchema(), c.right());
                for (JoinType type : JoinType.values()) {
                    if (!c.supports(type)) {
                        continue;
                    }
                    List<ColumnRef> projection = in.randomProjection(type);
                    for (Side build : Side.values()) {
                        // every other case with two workers (the probe pass on worker threads)
                        JoinConfig config = JoinConfig.builder().buildSide(build).outputBatchRows(1 + r.nextInt(300))
                                .threads(1 + i % 2).rowsPerWorker(0).build();
                        OracleCheck.assertSame(tables, l, rt, c, type, projection, BUDGET, config,
                                "-Dseed=" + OracleTest.SEED + " (case " + i + ")");
                        joins++;
                    }
                }
            }
        }
        assertThat(joins).as("joins compared").isGreaterThanOrEqualTo(cases * 16);
    }

    /** Every key distribution with every key shape. */
    static Stream<Arguments> distributionsAndShapes() {
        List<Arguments> out = new ArrayList<>();
        for (KeyDistribution d : KeyDistribution.values()) {
            for (KeyShape s : KeyShape.values()) {
                out.add(Arguments.of(d, s));
            }
        }
        return out.stream();
    }

    /** Rows per side for a distribution: the cross product of ONE_KEY and the fan-out of MANY_TO_MANY stay small. */
    static int[] sizes(KeyDistribution d) {
        return switch (d) {
            case UNIFORM, ZIPF, DISJOINT -> new int[]{6_000, 5_000};
            case ONE_KEY -> new int[]{250, 200};
            case MANY_TO_MANY -> new int[]{2_400, 3_000};
        };
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.spilljoin.it.InMemoryJoinCases#distributionsAndShapes")
    default void keyDistributionsEveryJoinType(KeyDistribution distribution, KeyShape shape) throws SQLException {
        SqlOracle oracle = oracle();
        long seed = OracleTest.SEED ^ (distribution.ordinal() * 0x9E3779B97F4A7C15L) ^ (shape.ordinal() * 0xC2B2AE3D27D4EB4FL);
        System.out.println(getClass().getSimpleName() + " " + distribution + " " + shape + ": seed=" + OracleTest.SEED
                + " (replay with -Dseed=" + OracleTest.SEED + ")");
        int[] n = sizes(distribution);
        JoinCase c = InputGenerator.generate(distribution, shape, n[0], n[1], 0.02, seed);
        try (OracleTables tables = new OracleTables(oracle)) {
            String l = tables.load("l", c.leftSchema(), c.left());
            String r = tables.load("r", c.rightSchema(), c.right());
            for (JoinType type : JoinType.values()) {
                if (!c.supports(type)) {
                    continue;
                }
                JoinStats stats = OracleCheck.assertSame(tables, l, r, c, type, c.fullProjection(type), BUDGET,
                        JoinConfig.DEFAULT, "-Dseed=" + OracleTest.SEED);
                assertThat(stats.rows(Side.LEFT) + stats.rows(Side.RIGHT)).isEqualTo(n[0] + n[1]);
                assertThat(stats.partitions()).as("spilled partitions under a generous budget: %s", stats).isZero();
            }
        }
    }
}
