package dev.spilljoin.operator;

import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.estimator.PartitionPlan;
import dev.spilljoin.estimator.PartitionPlanner;
import dev.spilljoin.estimator.PlannerConfig;
import dev.spilljoin.operator.table.UnchainedTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The memory layout: sizes within their ranges and a layout that fits every budget at or over its minimum; the
 * fanout is the partition planner's, planned with the layout's writer share and the table's directory share.
 */
class SpillSizingTest {
    private static final long KB = 1024;
    private static final long MB = KB * KB;
    /** A (BIGINT key, BIGINT payload) row: a byte of flags and null bits, 16 value bytes. */
    private static final int ROW = 17;

    /**
     * Row pages from 2 MiB up are whole huge pages (the nearest number, ties down, within the configured page), and a
     * build worker's share of one stays whole huge pages while it holds one; below 2 MiB they are as computed.
     */
    @Test
    void rowPagesFromTwoMibUpAreWholeHugePages() {
        int configured = 4 << 20;
        assertThat(SpillSizing.rowPageBytes(configured, 1_000_000)).isEqualTo(1_000_000);
        assertThat(SpillSizing.rowPageBytes(configured, 2_000_001)).isEqualTo(2_000_000);
        assertThat(SpillSizing.rowPageBytes(configured, 2L << 20)).isEqualTo(2 << 20);
        assertThat(SpillSizing.rowPageBytes(configured, 3L << 20)).as("a tie rounds down").isEqualTo(2 << 20);
        assertThat(SpillSizing.rowPageBytes(configured, 4_000_000)).isEqualTo(4 << 20);
        assertThat(SpillSizing.rowPageBytes(configured, 1L << 30)).as("at most the configured page").isEqualTo(4 << 20);
        assertThat(SpillSizing.rowPageBytes(3 << 20, 1L << 30)).as("whole huge pages within the configured page")
                .isEqualTo(2 << 20);
        assertThat(SpillSizing.rowPageBytes(configured, 10)).isEqualTo(64);

        InputStatistics expected = SpillSizing.expectedBuild(null, 1_000_000, 16_000_000, ROW);
        SpillSizing generous = SpillSizing.choose(JoinConfig.DEFAULT, 512_000_000, 512_000_000, expected, ROW);
        assertThat(generous.pageSize()).as(generous.toString()).isEqualTo(4 << 20);
        assertThat(generous.workerPageBytes(1)).isEqualTo(4 << 20);
        assertThat(generous.workerPageBytes(2)).isEqualTo(2 << 20);
        assertThat(generous.workerPageBytes(3)).as("less than a huge page each").isEqualTo(((4 << 20) / 3) & ~7);
    }

    /**
     * A build expected small gets pages of twice a partition's expected share (a power of two, at least 64 KiB), not
     * the configured page for every partition: 10,000 rows under 512 MB took 16 pages of 4 MiB for 170 kB of rows. A
     * build expected large, or not known, keeps the configured page.
     */
    @Test
    void aSmallExpectedBuildGetsPagesOfTwiceAPartitionsShare() {
        long budget = 512 * MB;
        SpillSizing tiny = SpillSizing.choose(JoinConfig.DEFAULT, budget, budget,
                SpillSizing.expectedBuild(null, 10_000, 160_000, ROW), ROW);
        assertThat(tiny.pageSize()).as(tiny.toString()).isEqualTo(64 * KB);
        SpillSizing small = SpillSizing.choose(JoinConfig.DEFAULT, budget, budget,
                SpillSizing.expectedBuild(null, 100_000, 1_600_000, ROW), ROW);
        assertThat(small.pageSize()).as(small.toString())
                .isEqualTo(Long.highestOneBit(2 * 1_700_000L / small.plan().fanout()) << 1);
        SpillSizing unknown = SpillSizing.choose(JoinConfig.DEFAULT, budget, budget, null, ROW);
        assertThat(unknown.pageSize()).isEqualTo(JoinConfig.DEFAULT.pageSize());
        SpillSizing large = SpillSizing.choose(JoinConfig.DEFAULT, budget, budget,
                SpillSizing.expectedBuild(null, 10_000_000, 160_000_000, ROW), ROW);
        assertThat(large.pageSize()).isEqualTo(JoinConfig.DEFAULT.pageSize());
        assertThat(SpillSizing.expectedPageBound(InputStatistics.of(0, 0, 0), 16)).isEqualTo(64 * KB);
        assertThat(SpillSizing.expectedPageBound(InputStatistics.of(1, 3 * MB, 0), 16)).isEqualTo(512 * KB);
        for (long bytes : new long[] {Long.MAX_VALUE / 2, Long.MAX_VALUE}) {
            assertThat(SpillSizing.expectedPageBound(InputStatistics.of(1, bytes, 0), 1)).as("no overflow at %d", bytes)
                    .isEqualTo(Long.MAX_VALUE);
        }
    }

    @Test
    void everyBudgetFromTheMinimumUpGetsALayoutThatFitsIt() {
        long minimum = SpillSizing.absoluteMinimum(JoinConfig.DEFAULT);
        assertThat(minimum).as("the nested loop's pair-phase term, 57,408 bytes (two readers of a 4 KiB window and a"
                + " 4 KiB block, a writer's 4 KiB buffer, a 16 KiB pair page and one block's table of 20,544 bytes; a"
                + " writer holds no window, so the planner's 8 shares of 4 KiB are below it), in whole kilobytes")
                .isEqualTo(57 * KB);
        assertThat(SpillSizing.choose(JoinConfig.DEFAULT, minimum, minimum, null, ROW).minimumBudget())
                .isLessThanOrEqualTo(minimum);
        long[] hints = {-1, 0, 1000, 1_000_000, 100_000_000};
        for (long budget = minimum; budget <= 8L << 30; budget = budget * 3 / 2) {
            for (long rows : hints) {
                InputStatistics expected = SpillSizing.expectedBuild(null, rows, rows < 0 ? -1 : rows * 16, ROW);
                SpillSizing s = SpillSizing.choose(JoinConfig.DEFAULT, budget, budget, expected, ROW);
                String what = "budget " + budget + " rows " + rows + ": " + s;
                assertThat(s.minimumBudget()).as(what).isLessThanOrEqualTo(budget);
                assertThat(s.fanoutLog2()).as(what).isBetween(1, 10);
                assertThat(s.windowBytes() % 4096).as(what).isZero();
                assertThat(s.readWindowBytes() % 4096).as(what).isZero();
                assertThat(s.windowBytes()).as(what).isBetween(4096, (int) MB);
                assertThat(s.readWindowBytes()).as(what).isBetween(s.windowBytes(), (int) MB);
                assertThat(s.bufferBytes()).as(what).isBetween(4096, 64 * 1024);
                assertThat((long) s.fanout() * s.writerShare()).as("the planner's buffer bound: " + what)
                        .isLessThanOrEqualTo(budget / 2);
            }
        }
    }

    @Test
    void theFanoutIsThePlannersForTheLayoutsWriterShare() {
        long[][] cases = {{4 * MB, 1_000_000}, {4 * MB, 1_000}, {256 * MB, 100_000_000}, {MB, 1L << 36}};
        for (long[] c : cases) {
            long budget = c[0];
            InputStatistics expected = SpillSizing.expectedBuild(null, c[1], c[1] * 16, ROW);
            SpillSizing s = SpillSizing.choose(JoinConfig.DEFAULT, budget, budget, expected, ROW);
            PartitionPlanner planner = new PartitionPlanner(PlannerConfig.defaults(s.writerShare(),
                    UnchainedTable.plannedBytesPerRow(ROW)));
            PartitionPlan plan = planner.plan(expected, budget);
            assertThat(s.plan()).as("budget %d rows %d", budget, c[1]).isEqualTo(plan);
        }
        // 1M rows of 17 + 33 bytes (16 of directory, 17 of compact row) = 50 MB under 4 MB: partitions of at most
        // 0.8 × (4 MB − 2 writer shares)
        SpillSizing w1 = SpillSizing.choose(JoinConfig.DEFAULT, 4 * MB, 4 * MB,
                SpillSizing.expectedBuild(null, 1_000_000, 16_000_000, ROW), ROW);
        long capacity = (long) (0.8 * (4 * MB - 2 * w1.writerShare()));
        int needed = (int) ((50_000_000 + capacity - 1) / capacity);
        assertThat(w1.fanout()).as("the power of two at or above %d partitions", needed)
                .isEqualTo(Integer.highestOneBit(needed - 1) * 2);
        assertThat(SpillSizing.choose(JoinConfig.DEFAULT, 4 * MB, 4 * MB,
                SpillSizing.expectedBuild(null, 1_000, 16_000, ROW), ROW).plan().fitsInMemory())
                .as("a tiny input: the smallest fanout, all resident").isTrue();
        SpillSizing huge = SpillSizing.choose(JoinConfig.DEFAULT, MB, MB, SpillSizing.expectedBuild(null, 1L << 36, -1,
                ROW), ROW);
        assertThat(huge.fanout() * huge.writerShare()).as("capped by the buffers' half of a small budget")
                .isLessThanOrEqualTo(MB / 2);
    }

    /**
     * A spilled partition's writer holds a buffer for each worker where the budget holds them, else fewer (the
     * workers then share its buffer under a lock): the smallest budget is the same for any number of workers.
     */
    @Test
    void eachWorkerGetsAWriteBufferPerPartitionWhereTheBudgetHoldsThem() {
        JoinConfig two = JoinConfig.builder().threads(2).build();
        long minimum = SpillSizing.absoluteMinimum(two);
        assertThat(minimum).isEqualTo(SpillSizing.absoluteMinimum(JoinConfig.DEFAULT));
        SpillSizing smallest = SpillSizing.choose(two, minimum, minimum, null, ROW);
        assertThat(smallest.writerBuffers()).as(smallest.toString()).isEqualTo(1);
        assertThat(smallest.minimumBudget()).isLessThanOrEqualTo(minimum);
        SpillSizing large = SpillSizing.choose(two, 64 * MB, 64 * MB, null, ROW);
        assertThat(large.writerBuffers()).as(large.toString()).isEqualTo(2);
        assertThat(large.writerShare()).isEqualTo(2L * large.bufferBytes());
        assertThat(large.pairWriterShare()).as("a pair-phase writer runs on one thread").isEqualTo(large.bufferBytes());
    }

    @Test
    void anUnknownInputGetsThePlannersSmallestFanout() {
        SpillSizing s = SpillSizing.choose(JoinConfig.DEFAULT, 64 * MB, 64 * MB, null, ROW);
        assertThat(s.fanout()).isEqualTo(16);
        assertThat(s.plan().recursionExpected()).isFalse();
    }

    @Test
    void configuredSizesWinAndTheMinimumFollowsThem() {
        JoinConfig config = JoinConfig.builder().fanoutLog2(1).spillBufferBytes(64).spillWindowBytes(4096).build();
        SpillSizing s = SpillSizing.choose(config, 64 * KB, 64 * KB, null, ROW);
        assertThat(s.fanout()).isEqualTo(2);
        assertThat(s.bufferBytes()).isEqualTo(64);
        assertThat(s.windowBytes()).isEqualTo(4096);
        assertThat(SpillSizing.absoluteMinimum(config)).isLessThan(SpillSizing.absoluteMinimum(JoinConfig.DEFAULT));
    }

    @Test
    void theWritersTakeHalfTheBudgetForALargeInputTheSmallestSharesForASmallOneElseAThird() {
        long budget = 3 * MB;
        assertThat(SpillSizing.writersBudget(4 * budget + 1, budget, 16)).as("larger than 4 budgets").isEqualTo(budget / 2);
        assertThat(SpillSizing.writersBudget(4 * budget, budget, 16)).as("4 budgets").isEqualTo(budget / 3);
        assertThat(SpillSizing.writersBudget(budget / 2, budget, 16)).as("half the budget: fits")
                .isEqualTo(16 * 8 * KB);
        assertThat(SpillSizing.writersBudget(-1, budget, 16)).as("unknown").isEqualTo(budget / 3);
    }
}
