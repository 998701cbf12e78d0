package dev.spilljoin.operator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The memory plan: fanout and sizes within their ranges, and a plan that fits every budget at or over its minimum. */
class SpillSizingTest {
    private static final long KB = 1024;
    private static final long MB = KB * KB;

    @Test
    void everyBudgetFromTheMinimumUpGetsAPlanThatFitsIt() {
        long minimum = SpillSizing.absoluteMinimum(JoinConfig.DEFAULT);
        assertThat(minimum).isBetween(64 * KB, 512 * KB);
        long[] hints = {-1, 0, 1000, 1_000_000, 100_000_000};
        for (long budget = minimum; budget <= 8L << 30; budget = budget * 3 / 2) {
            for (long rows : hints) {
                SpillSizing s = SpillSizing.choose(JoinConfig.DEFAULT, budget, rows < 0 ? -1 : rows * 16, rows);
                String what = "budget " + budget + " rows " + rows + ": " + s;
                assertThat(s.minimumBudget()).as(what).isLessThanOrEqualTo(budget);
                assertThat(s.fanoutLog2()).as(what).isBetween(4, 10);
                assertThat(s.windowBytes() % 4096).as(what).isZero();
                assertThat(s.readWindowBytes() % 4096).as(what).isZero();
                assertThat(s.windowBytes()).as(what).isBetween(4096, (int) MB);
                assertThat(s.readWindowBytes()).as(what).isBetween(s.windowBytes(), (int) MB);
                assertThat(s.bufferBytes()).as(what).isBetween(4096, 64 * 1024);
                assertThat((long) s.fanout() * s.writerShare()).as(what).isLessThanOrEqualTo(budget / 2 + 8 * KB * 16);
            }
        }
    }

    @Test
    void theFanoutFollowsTheBuildSizeHint() {
        assertThat(SpillSizing.choose(JoinConfig.DEFAULT, 4 * MB, 16_000_000, 1_000_000).fanout()).isEqualTo(32);
        assertThat(SpillSizing.choose(JoinConfig.DEFAULT, 4 * MB, 16_000, 1_000).fanout()).isEqualTo(16);
        assertThat(SpillSizing.choose(JoinConfig.DEFAULT, 256 * MB, 1_600_000_000, 100_000_000).fanout())
                .isEqualTo(64);
        assertThat(SpillSizing.choose(JoinConfig.DEFAULT, MB, 1L << 40, 1L << 36).fanout())
                .as("capped by the writers' share of a small budget").isEqualTo(32);
    }

    @Test
    void configuredSizesWinAndTheMinimumFollowsThem() {
        JoinConfig config = JoinConfig.DEFAULT.withSpillSizes(1, 64, 4096);
        SpillSizing s = SpillSizing.choose(config, 32 * KB, -1, -1);
        assertThat(s.fanout()).isEqualTo(2);
        assertThat(s.bufferBytes()).isEqualTo(64);
        assertThat(s.windowBytes()).isEqualTo(4096);
        assertThat(SpillSizing.absoluteMinimum(config)).isLessThan(SpillSizing.absoluteMinimum(JoinConfig.DEFAULT));
    }
}
