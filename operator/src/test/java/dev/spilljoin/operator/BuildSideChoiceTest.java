package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;
import dev.spilljoin.estimator.InputStatistics;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The build-side rule: forced, else smaller by bytes, else by rows, else right; cached statistics replace hints. */
class BuildSideChoiceTest {
    private static BuildSideChoice.InputSize hints(long bytes, long rows) {
        return BuildSideChoice.InputSize.of(bytes, rows, null);
    }

    @Test
    void theSmallerInputByBytesThenByRowsElseTheRightSide() {
        assertThat(BuildSideChoice.choose(null, hints(100, 1_000), hints(200, 10)).side())
                .as("bytes decide when both give them").isEqualTo(Side.LEFT);
        assertThat(BuildSideChoice.choose(null, hints(-1, 1_000), hints(200, 10)).side())
                .as("rows decide when a side gives no bytes").isEqualTo(Side.RIGHT);
        assertThat(BuildSideChoice.choose(null, hints(-1, -1), hints(-1, 10)).side())
                .as("unknown: the right side").isEqualTo(Side.RIGHT);
        assertThat(BuildSideChoice.choose(null, hints(100, 10), hints(100, 10)).side())
                .as("equal: the right side").isEqualTo(Side.RIGHT);
    }

    @Test
    void aForcedSideWinsAndKeepsItsHints() {
        BuildSideChoice c = BuildSideChoice.choose(Side.RIGHT, hints(100, 7), hints(200, 9));
        assertThat(c.side()).isEqualTo(Side.RIGHT);
        assertThat(c.hintBytes()).isEqualTo(200);
        assertThat(c.hintRows()).isEqualTo(9);
        assertThat(c.estimateSource()).isEqualTo("hint");
        assertThat(c.estimatedDistinctKeys()).isEqualTo(EstimatesVsActuals.UNKNOWN);
    }

    @Test
    void cachedStatisticsReplaceTheHints() {
        InputStatistics cached = InputStatistics.of(50, 800, 40);
        BuildSideChoice c = BuildSideChoice.choose(null, BuildSideChoice.InputSize.of(100, 10, cached),
                hints(500, 20));
        assertThat(c.side()).as("800 cached bytes beat 500 hinted ones").isEqualTo(Side.RIGHT);
        BuildSideChoice left = BuildSideChoice.choose(Side.LEFT, BuildSideChoice.InputSize.of(100, 10, cached),
                hints(500, 20));
        assertThat(left.hintRows()).isEqualTo(50);
        assertThat(left.hintBytes()).isEqualTo(800);
        assertThat(left.estimateSource()).isEqualTo("cache");
        assertThat(left.estimatedDistinctKeys()).isEqualTo(40);
    }

    @Test
    void nothingKnownIsNoEstimate() {
        BuildSideChoice c = BuildSideChoice.choose(null, hints(-1, -1), hints(-5, -1));
        assertThat(c.hintBytes()).as("negative hints read as unknown").isEqualTo(-1);
        assertThat(c.estimateSource()).isEqualTo("none");
    }
}
