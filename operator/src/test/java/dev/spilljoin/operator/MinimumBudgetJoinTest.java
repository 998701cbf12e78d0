package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.CountAndSum;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The smallest budget the join accepts against a build side thousands of times larger: W1 (../shared/WORKLOADS.md)
 * with nR = nS = 200,000 under {@link HashJoin#minimumBudget} (57kB), with the default sizing and with every level
 * split in two (a fanout of 2, so that the recursion runs deep: the planner expects some seven levels). Every spilled
 * pair must be re-partitioned until it fits, never handed to the nested loop, which streams a pair's probe rows once
 * per chunk of its build rows and so grows with the square of the input. The checks: no nested-loop chunk, a depth
 * within a level of the plan's (beyond the old fixed bound of four levels with a fanout of 2), each level's pairs at
 * most the level's fanout times the one above, each side spilled once per level (bytes below (depth + 1) × rows × the
 * spill format's 26.4 bytes a row), and the exact count and sum, computed from the generators through the inverse of
 * W1's key permutation.
 */
class MinimumBudgetJoinTest {
    private static final long ROWS = 200_000;
    /** The compact spill format's bound for a (BIGINT, BIGINT) row, block headers included (1.1 × 24 bytes). */
    private static final double SPILLED_BYTES_PER_ROW = 1.1 * 24;

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    @Test
    void theDefaultMinimumBudgetRePartitionsUntilEveryPairFitsAndNeverTakesTheNestedLoop() {
        JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).build();
        assertThat(HashJoin.minimumBudget(config)).as("SpillSizingTest: the nested loop's pair-phase term")
                .isEqualTo(57 * 1024);
        JoinStats stats = joinAtTheMinimum(config);
        assertThat(stats.maxRecursionDepth()).as("re-partitioned").isPositive();
    }

    @Test
    void aFanoutOfTwoRePartitionsBeyondFourLevels() {
        JoinStats stats = joinAtTheMinimum(JoinConfig.builder().spillDirectory(spillRoot.path()).fanoutLog2(1).build());
        assertThat(stats.maxRecursionDepth()).as("re-partitioned beyond the old bound of 4 levels").isGreaterThan(4);
    }

    /** W1 200K × 200K under {@code config}'s minimum budget: the checks of the class comment; its stats. */
    private JoinStats joinAtTheMinimum(JoinConfig config) {
        long budgetBytes = HashJoin.minimumBudget(config);
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("minimum budget", budgetBytes)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                    .config(config).build();
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(GeneratedSource.w1Build(ROWS), GeneratedSource.w1Probe(ROWS, ROWS), result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(budgetBytes);
        }
        System.out.println("W1 200K x 200K under the minimum budget: " + stats.toJson());
        long[] expected = GeneratedSource.w1CountAndSum(ROWS, ROWS);
        assertThat(result.count()).isEqualTo(expected[0]);
        assertThat(result.sum()).isEqualTo(expected[1]);

        assertThat(stats.peakReservedBytes()).isLessThanOrEqualTo(budgetBytes);
        assertThat(stats.nestedLoopChunks()).as("no pair took the nested loop").isZero();
        assertThat(stats.heavyHitterRows()).as("no row went through the nested loop").isZero();
        int depth = stats.maxRecursionDepth();
        assertThat(depth).as("within a level of the planner's expectation " + stats.plannedFanoutPerLevel())
                .isLessThanOrEqualTo(stats.plannedFanoutPerLevel().size());
        assertThat(stats.partitionsPerLevel()).hasSize(depth + 1);
        for (int level = 1; level <= depth; level++) {
            assertThat(stats.partitionsPerLevel().get(level)).as("pairs at level " + level)
                    .isLessThanOrEqualTo(stats.partitionsPerLevel().get(level - 1) * stats.fanoutPerLevel().get(level));
        }
        long oncePerLevel = (long) ((depth + 1) * ROWS * SPILLED_BYTES_PER_ROW);
        assertThat(stats.spilledBytesBuild()).as("build rows spilled once per level").isLessThanOrEqualTo(oncePerLevel);
        assertThat(stats.spilledBytesProbe()).as("probe rows spilled once per level").isLessThanOrEqualTo(oncePerLevel);
        return stats;
    }
}
