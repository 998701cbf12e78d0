package dev.spilljoin.estimator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class PartitionPlannerTest {
    private static final long KB = 1024;
    private static final long MB = 1024 * KB;
    private static final long ROW_BYTES = 24;
    private static final long TABLE_BYTES_PER_ROW = 16;

    private final PartitionPlanner planner = new PartitionPlanner(PlannerConfig.defaults(64 * KB, TABLE_BYTES_PER_ROW));

    /** An input of {@code rows} rows of 24 bytes. */
    private static InputStatistics input(long rows) {
        return InputStatistics.of(rows, rows * ROW_BYTES, rows);
    }

    @Test
    void tinyInputFitsWithTheSmallestFanoutAllResident() {
        PartitionPlan plan = planner.plan(input(1000), 64 * MB);

        assertThat(plan.fanout()).isEqualTo(16);
        assertThat(plan.fitsInMemory()).isTrue();
        assertThat(plan.residentPartitions()).isEqualTo(16);
        assertThat(plan.recursionExpected()).isFalse();
        assertThat(plan.nestedLoopKeys().isEmpty()).isTrue();
        assertThat(plan.bufferBytes()).isZero();
        assertThat(plan.expectedPartitionRows()).isEqualTo(63); // ceil(1000 / 16)
        assertThat(plan.level()).isZero();
    }

    @Test
    void exactFitStaysResidentAndOneByteMoreSpills() {
        long budget = 40 * MB; // 40 bytes per row as a table: exactly 1 Mi rows
        long rows = budget / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        assertThat(planner.footprint(rows, rows * ROW_BYTES)).isEqualTo(budget);

        PartitionPlan exact = planner.plan(input(rows), budget);
        assertThat(exact.fitsInMemory()).isTrue();
        assertThat(exact.fanout()).isEqualTo(16);

        PartitionPlan over = planner.plan(InputStatistics.of(rows, rows * ROW_BYTES + 1, rows), budget);
        assertThat(over.fitsInMemory()).isFalse();
        assertThat(over.residentPartitions()).isBetween(1, over.fanout() - 1);
        assertThat(over.recursionExpected()).isFalse();
        assertThat(over.expectedPartitionFootprint()).isLessThanOrEqualTo(over.partitionCapacityBytes());
        assertBuildPassFits(over, budget, 0);
    }

    @Test
    void hundredTimesTheBudgetTakesOnePassWithPartitionsThatFit() {
        long budget = 64 * MB;
        long rows = 100 * budget / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        PartitionPlan plan = planner.plan(input(rows), budget);

        // M = 6400 MiB, C = 0.8 × (64 MiB − 128 KiB) = 51.1 MiB: 126 partitions needed, rounded up to 128
        assertThat(plan.partitionCapacityBytes()).isEqualTo((long) (0.8 * (budget - 128 * KB)));
        assertThat(plan.fanout()).isEqualTo(128);
        assertThat(plan.recursionExpected()).isFalse();
        assertThat(plan.expectedPartitionFootprint()).isLessThanOrEqualTo(plan.partitionCapacityBytes());
        assertThat(plan.residentPartitions()).isEqualTo(1); // partition 0 (50 MiB) beside 127 buffers of 64 KiB
        assertBuildPassFits(plan, budget, 0);
    }

    @Test
    void heavyKeyThatAloneOverflowsAPartitionGoesToTheNestedLoop() {
        long budget = 16 * MB;
        long rows = 10 * budget / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        long capacity = planner.partitionCapacity(budget);
        long hotRows = 2 * capacity / (ROW_BYTES + TABLE_BYTES_PER_ROW); // twice a partition on its own
        long warmRows = capacity / 100 / (ROW_BYTES + TABLE_BYTES_PER_ROW); // 1 % of a partition
        HeavyHitters heavy = HeavyHitters.of(warmRows / 2, new long[] {0xAAAL, 0xBBBL},
                new long[] {hotRows, warmRows}, new long[] {hotRows, warmRows},
                new long[] {hotRows * ROW_BYTES, warmRows * ROW_BYTES});

        PartitionPlan plan = planner.plan(new InputStatistics(rows, rows * ROW_BYTES, rows / 2, heavy), budget);

        assertThat(plan.nestedLoopKeys().size()).isEqualTo(1);
        assertThat(plan.nestedLoopKeys().contains(0xAAAL)).isTrue();
        assertThat(plan.nestedLoopKeys().contains(0xBBBL)).isFalse();
        assertThat(plan.nestedLoopKeys().guaranteedAboveRows()).isEqualTo(Long.MAX_VALUE); // a selection
        assertThat(plan.expectedPartitionRows()).isEqualTo(ceilDiv(rows - hotRows, plan.fanout()));
        assertThat(plan.expectedPartitionFootprint() + planner.footprint(warmRows, warmRows * ROW_BYTES))
                .isLessThanOrEqualTo(plan.partitionCapacityBytes());
        assertThat(plan.recursionExpected()).isFalse();
        assertBuildPassFits(plan, budget, 1);
    }

    @Test
    void heavyKeyThatOverflowsOnlyBesideItsPartitionsShareIsRoutedToo() {
        long budget = 16 * MB;
        long rows = 10 * budget / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        PartitionPlan withoutHeavy = planner.plan(input(rows), budget);
        long room = withoutHeavy.partitionCapacityBytes() - withoutHeavy.expectedPartitionFootprint();
        long keyRows = 2 * room / (ROW_BYTES + TABLE_BYTES_PER_ROW); // below capacity, above the room left
        assertThat(planner.footprint(keyRows, keyRows * ROW_BYTES)).isLessThan(withoutHeavy.partitionCapacityBytes());
        HeavyHitters heavy = HeavyHitters.of(keyRows, new long[] {7}, new long[] {keyRows}, new long[] {keyRows},
                new long[] {keyRows * ROW_BYTES});

        PartitionPlan plan = planner.plan(new InputStatistics(rows, rows * ROW_BYTES, rows, heavy), budget);

        assertThat(plan.nestedLoopKeys().contains(7)).isTrue();
    }

    @Test
    void budgetsDownToOneMegabyteKeepTheBuffersWithinTheirShare() {
        for (long buffer : new long[] {8 * KB, 32 * KB}) {
            PartitionPlanner small = new PartitionPlanner(PlannerConfig.defaults(buffer, TABLE_BYTES_PER_ROW));
            for (long budget = MB; budget <= 64 * MB; budget *= 2) {
                for (long rows : new long[] {1000, 1_000_000, 100_000_000}) {
                    PartitionPlan plan = small.plan(input(rows), budget);
                    int extra = plan.nestedLoopKeys().isEmpty() ? 0 : 1;
                    assertThat((plan.fanout() + extra) * buffer).as("buffers at budget %d", budget)
                            .isLessThanOrEqualTo(budget / 2);
                    assertBuildPassFits(plan, budget, extra);
                    assertLevelsSplitToCapacity(small, plan, budget);
                }
            }
        }
        // 1 MiB, 32 KiB buffers: 16 buffers in half the budget, so at most 8 partitions beside the read buffer,
        // and 100M rows (4 GB as a table) need more passes
        PartitionPlanner tight = new PartitionPlanner(PlannerConfig.defaults(32 * KB, TABLE_BYTES_PER_ROW));
        PartitionPlan plan = tight.plan(input(100_000_000), MB);
        assertThat(plan.fanout()).isEqualTo(16);
        assertThat(plan.recursionExpected()).isTrue();
        assertThat(plan.overflowExpected()).isFalse();
        assertThat(plan.fanoutLog2PerLevel().subList(1, plan.fanoutLog2PerLevel().size())).allMatch(p -> p == 3);
    }

    @Test
    void budgetBelowTheMinimumIsRefusedNamingTheMinimum() {
        assertThat(planner.minimumBudget()).isEqualTo(512 * KB);
        assertThatThrownBy(() -> planner.plan(input(10), 512 * KB - 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("memory budget of 524287 bytes is below the join's minimum of 524288 bytes")
                .hasMessageContaining("raise the budget or use smaller partition buffers");
    }

    @Test
    void repartitionSplitsASpilledPartitionToFit() {
        PartitionPlanner planner2 = new PartitionPlanner(
                PlannerConfig.defaults(64 * KB, TABLE_BYTES_PER_ROW).withFanoutLog2(1, 10));
        long budget = 16 * MB;
        long capacity = planner2.partitionCapacity(budget);
        long rows = 3 * capacity / (ROW_BYTES + TABLE_BYTES_PER_ROW);

        PartitionPlan plan = planner2.planRepartition(1, input(rows), budget);

        assertThat(plan.level()).isEqualTo(1);
        assertThat(plan.fanout()).isEqualTo(4); // 3 partitions' worth, rounded up to a power of two
        assertThat(plan.recursionExpected()).isFalse();
        assertThat(plan.expectedPartitionFootprint()).isLessThanOrEqualTo(capacity);
        assertBuildPassFits(plan, budget, 1);

        long hotRows = 2 * capacity / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        HeavyHitters hot = HeavyHitters.of(hotRows, new long[] {42}, new long[] {hotRows}, new long[] {hotRows},
                new long[] {hotRows * ROW_BYTES});
        PartitionPlan skewed = planner2.planRepartition(2, new InputStatistics(rows, rows * ROW_BYTES, 0, hot), budget);
        assertThat(skewed.nestedLoopKeys().contains(42)).isTrue();
        assertThat(skewed.fanout()).isEqualTo(2); // one partition's worth is left, the minimum fanout is 2
        assertBuildPassFits(skewed, budget, 2);

        assertThatThrownBy(() -> planner2.planRepartition(0, input(rows), budget))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a re-partitioning pass has level >= 1, got 0");
    }

    @Test
    void fewDistinctKeysCannotBeSplitAndTheOverflowIsForeseen() {
        long budget = 64 * MB;
        long rows = 100 * budget / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        // 8 keys of 12.5 budgets each, and no heavy-key statistics: only 8 of the partitions get rows
        PartitionPlan plan = planner.plan(InputStatistics.of(rows, rows * ROW_BYTES, 8), budget);

        assertThat(plan.fanout()).isEqualTo(128);
        assertThat(plan.expectedPartitionRows()).isEqualTo(rows / 8);
        assertThat(plan.recursionExpected()).isFalse(); // one key per partition: another pass splits nothing
        assertThat(plan.overflowExpected()).isTrue();

        // 1000 budgets in 10,000 keys: 512 partitions (half of 64 MiB in 64 KiB buffers) of about 20 keys and
        // 125 MiB, above the 51 MiB capacity; a second pass of 16 splits them into partitions that fit
        long huge = 1000 * budget / (ROW_BYTES + TABLE_BYTES_PER_ROW);
        PartitionPlan splittable = planner.plan(InputStatistics.of(huge, huge * ROW_BYTES, 10_000), budget);
        assertThat(splittable.fanout()).isEqualTo(512);
        assertThat(splittable.expectedPartitionFootprint()).isGreaterThan(splittable.partitionCapacityBytes());
        assertThat(splittable.fanoutLog2PerLevel()).containsExactly(9, 4);
        assertThat(splittable.overflowExpected()).isFalse();
    }

    @Test
    void theWholeInputIsProjectedFromWhatIsKnownAndWhatWasRead() {
        long budget = 16 * MB;
        HeavyHitters hot = HeavyHitters.of(0, new long[] {9}, new long[] {300}, new long[] {310},
                new long[] {300 * ROW_BYTES});
        InputStatistics soFar = new InputStatistics(1000, 1000 * ROW_BYTES, 700, hot);

        // hinted 100K rows: the rows read are the first 1 %, the hot key's counts scale with them
        InputStatistics hinted = planner.projectWholeInput(InputStatistics.of(100_000, 0, 0), soFar, 8, budget);
        assertThat(hinted.rows()).isEqualTo(100_000);
        assertThat(hinted.bytes()).isEqualTo(100_000 * ROW_BYTES);
        assertThat(hinted.distinctKeys()).isEqualTo(700);
        assertThat(hinted.heavyHitters().estimatedRows(0)).isEqualTo(30_000);
        assertThat(hinted.heavyHitters().upperBoundRows(0)).isEqualTo(31_000);

        // a hint below what was read already: the rows read
        assertThat(planner.projectWholeInput(InputStatistics.of(10, 0, 0), soFar, 8, budget).rows()).isEqualTo(1000);

        // nothing known: the largest input the smallest fanout (16) takes in one pass, at the row size read so far
        InputStatistics unknown = planner.projectWholeInput(null, soFar, 8, budget);
        assertThat(planner.footprint(unknown.rows(), unknown.bytes()))
                .isBetween(planner.unknownInputFootprint(budget) - 2 * (ROW_BYTES + TABLE_BYTES_PER_ROW),
                        planner.unknownInputFootprint(budget) + ROW_BYTES);
        assertThat(planner.plan(unknown, budget).fanout()).isEqualTo(16);

        // before the first row: the expected statistics as they are, or the row-size guess with nothing known
        InputStatistics cached = new InputStatistics(5000, 5000 * ROW_BYTES, 4000, hot);
        assertThat(planner.projectWholeInput(cached, InputStatistics.of(0, 0, 0), 8, budget)).isEqualTo(cached);
        InputStatistics guessed = planner.projectWholeInput(null, InputStatistics.of(0, 0, 0), 8, budget);
        assertThat(guessed.bytes()).isEqualTo(guessed.rows() * 8);
        assertThat(guessed.heavyHitters().isEmpty()).isTrue();
    }

    @RepeatedTest(20)
    void randomInputsGivePlansThatKeepEveryInvariant() {
        long seed = KeyData.seed("randomInputsGivePlansThatKeepEveryInvariant");
        SplittableRandom random = new SplittableRandom(seed);
        long buffer = 1L << random.nextInt(12, 18);
        PartitionPlanner p = new PartitionPlanner(PlannerConfig.defaults(buffer, random.nextLong(0, 33)));
        long budget = p.minimumBudget() + random.nextLong(0, 1L << random.nextInt(20, 34));
        long rows = random.nextLong(0, 1L << random.nextInt(1, 33));
        long bytes = rows * random.nextLong(1, 200);
        int heavyCount = random.nextInt(0, 6);
        long[] hashes = new long[heavyCount];
        long[] heavyRows = new long[heavyCount];
        long[] heavyBytes = new long[heavyCount];
        for (int i = 0; i < heavyCount; i++) {
            hashes[i] = i;
            heavyRows[i] = rows / random.nextLong(2, 1000) / heavyCount;
            heavyBytes[i] = bytes / Math.max(1, rows) * heavyRows[i];
        }
        HeavyHitters heavy = HeavyHitters.of(0, hashes, heavyRows, heavyRows, heavyBytes);
        int level = random.nextInt(0, 3);
        InputStatistics statistics = new InputStatistics(rows, bytes, random.nextBoolean() ? 0 : rows, heavy);
        PartitionPlan plan = level == 0 ? p.plan(statistics, budget) : p.planRepartition(level, statistics, budget);

        int extra = (level == 0 ? 0 : 1) + (plan.nestedLoopKeys().isEmpty() ? 0 : 1);
        assertThat(Integer.bitCount(plan.fanout())).isEqualTo(1);
        assertThat(plan.fanout()).isBetween(2, 1024);
        assertThat((plan.fanout() + extra) * buffer).isLessThanOrEqualTo((long) (0.5 * budget));
        if (plan.fitsInMemory()) {
            assertThat(p.footprint(rows, bytes)).isLessThanOrEqualTo(budget);
            assertThat(plan.nestedLoopKeys().isEmpty()).isTrue();
        } else {
            assertThat(p.footprint(rows, bytes)).isGreaterThan(budget - (level == 0 ? 0 : buffer));
            assertBuildPassFits(plan, budget, extra);
            for (int i = 0; i < heavy.size(); i++) {
                long footprint = p.footprint(heavy.estimatedRows(i), heavy.estimatedBytes(i));
                boolean overflows = footprint + plan.expectedPartitionFootprint() > plan.partitionCapacityBytes();
                if (overflows) {
                    assertThat(plan.nestedLoopKeys().contains(heavy.hash(i))).as("key %d", i).isTrue();
                }
            }
        }
        assertLevelsSplitToCapacity(p, plan, budget);
    }

    /** The resident partitions and the other partitions' buffers fit the budget. */
    private static void assertBuildPassFits(PartitionPlan plan, long budget, int extraBuffers) {
        long buffer = plan.bufferBytes() / Math.max(1, plan.fanout() - plan.residentPartitions() + extraBuffers);
        assertThat(plan.residentPartitions() * plan.expectedPartitionFootprint() + plan.bufferBytes())
                .isLessThanOrEqualTo(budget);
        if (plan.residentPartitions() < plan.fanout()) {
            // one more resident partition would not have fitted
            assertThat((plan.residentPartitions() + 1) * plan.expectedPartitionFootprint() + plan.bufferBytes()
                    - buffer).isGreaterThan(budget);
        }
    }

    /**
     * Following the planned levels (splitting by their full fanout: these inputs have many distinct keys) brings an
     * expected partition under the capacity, unless the plan says it overflows after its last planned level.
     */
    private static void assertLevelsSplitToCapacity(PartitionPlanner p, PartitionPlan plan, long budget) {
        long size = plan.expectedPartitionFootprint();
        for (int level = 1; level < plan.fanoutLog2PerLevel().size(); level++) {
            assertThat(size).isGreaterThan(plan.partitionCapacityBytes());
            size = ceilDiv(size, 1L << plan.fanoutLog2PerLevel().get(level));
        }
        assertThat(size > plan.partitionCapacityBytes()).isEqualTo(plan.overflowExpected());
        if (plan.overflowExpected()) {
            assertThat(plan.fanoutLog2PerLevel()).hasSize(16); // the planner lists 16 passes at most
        }
        assertThat(plan.partitionCapacityBytes()).isEqualTo(p.partitionCapacity(budget));
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
