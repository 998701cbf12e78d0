package dev.spilljoin.it;

import org.junit.jupiter.api.TestInstance;

/**
 * A test class bound to one oracle: its test interfaces ({@link InMemoryJoinCases}, {@link SpillingJoinCases},
 * {@link TableKindJoinCases}, {@link ManyOutputRowsCases}, {@link ComparisonTeethCases}) run against
 * {@link #oracle()}. The run's seed is {@code -Dseed=} or the clock, printed by each randomized test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
interface OracleTest {
    long SEED = Long.getLong("seed", System.nanoTime());

    SqlOracle oracle();
}
