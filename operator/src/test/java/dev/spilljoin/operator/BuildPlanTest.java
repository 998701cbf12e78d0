package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What is reserved and planned before the build: at the minimum budget neither the sketches nor the filter fit and
 * the partitioning gets the whole budget; with room, both are reserved and the partitioning is planned with what
 * they leave.
 */
class BuildPlanTest {
    private static final long MB = 1 << 20;

    private static JoinSpec spec(JoinConfig config) {
        return JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k").budgetBytes(MB)
                .config(config).build();
    }

    private static BuildSideChoice choice(long rows) {
        return BuildSideChoice.choose(Side.LEFT, BuildSideChoice.InputSize.of(rows * 16, rows, null),
                BuildSideChoice.InputSize.of(-1, -1, null));
    }

    @Test
    void atTheMinimumBudgetTheHelpersAreOffAndThePartitioningGetsEverything() {
        long minimum = HashJoin.minimumBudget(JoinConfig.DEFAULT);
        try (MemoryReservation memory = MemoryReservation.root("plan", minimum)) {
            BuildPlan plan = BuildPlan.make(spec(JoinConfig.DEFAULT), memory, choice(1_000_000));
            assertThat(plan.sketches().value()).isNull();
            assertThat(plan.sketches().note()).startsWith("off: the budget of");
            assertThat(plan.keyFilter().value()).isNull();
            assertThat(plan.keyFilter().note()).startsWith("off: the budget of");
            assertThat(plan.sizing().planBudget()).isEqualTo(minimum);
            assertThat(memory.reserved()).isZero();
        }
    }

    @Test
    void withRoomBothAreReservedAndThePartitioningIsPlannedWithWhatTheyLeave() {
        try (MemoryReservation memory = MemoryReservation.root("plan", 16 * MB)) {
            BuildPlan plan = BuildPlan.make(spec(JoinConfig.DEFAULT), memory, choice(200_000));
            assertThat(plan.sketches().value()).isNotNull();
            assertThat(plan.keyFilter().value()).isNotNull();
            long held = plan.sketches().bytes() + plan.keyFilter().bytes();
            assertThat(plan.keyFilter().bytes()).as("sized for the hinted rows").isEqualTo(262_144);
            assertThat(memory.reserved()).isEqualTo(held);
            assertThat(plan.sizing().planBudget()).isEqualTo(16 * MB - held)
                    .isEqualTo(BuildPlan.partitioningBudget(16 * MB, plan.sketches().bytes(), plan.keyFilter().bytes()));
            PartitionedBuild.closeAll(plan.sketches().value(), plan.keyFilter().value());
            assertThat(memory.reserved()).isZero();
        }
    }

    /**
     * A build side expected to take at most half the budget (rows and table: 100,000 rows of 16 bytes hinted, 4.7 MB
     * planned in 16 MB) gets no sketches, which only a spilling build uses; the key filter it still gets.
     */
    @Test
    void aBuildSideExpectedToStayInMemoryGetsNoSketches() {
        try (MemoryReservation memory = MemoryReservation.root("plan", 16 * MB)) {
            BuildPlan plan = BuildPlan.make(spec(JoinConfig.DEFAULT), memory, choice(100_000));
            assertThat(plan.sketches().value()).isNull();
            assertThat(plan.sketches().note()).startsWith("off: the build side is expected to stay in memory");
            assertThat(plan.keyFilter().value()).isNotNull();
            assertThat(memory.reserved()).isEqualTo(plan.keyFilter().bytes());
            assertThat(plan.sizing().planBudget()).isEqualTo(16 * MB - plan.keyFilter().bytes());
            PartitionedBuild.closeAll(null, plan.keyFilter().value());
            assertThat(memory.reserved()).isZero();
        }
    }
}
