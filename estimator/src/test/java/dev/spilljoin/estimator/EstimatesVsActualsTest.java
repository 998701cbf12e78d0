package dev.spilljoin.estimator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EstimatesVsActualsTest {

    @Test
    void rendersEstimatesBesideActualsAsJson() {
        EstimatesVsActuals report = new EstimatesVsActuals("cache", 1000, 1200, 24000, 28800, 900, 1100);
        assertThat(report.toJson()).isEqualTo("{\"estimate_source\":\"cache\",\"rows\":{\"estimated\":1000,"
                + "\"actual\":1200},\"bytes\":{\"estimated\":24000,\"actual\":28800},"
                + "\"distinct_keys\":{\"estimated\":900,\"actual\":1100}}");
    }

    @Test
    void unknownFiguresAreNullAndSourceIsEscaped() {
        EstimatesVsActuals report = new EstimatesVsActuals("hint \"left\"\n", EstimatesVsActuals.UNKNOWN, 5,
                EstimatesVsActuals.UNKNOWN, 120, EstimatesVsActuals.UNKNOWN, EstimatesVsActuals.UNKNOWN);
        assertThat(report.toJson()).isEqualTo("{\"estimate_source\":\"hint \\\"left\\\"\\n\",\"rows\":{\"estimated\":"
                + "null,\"actual\":5},\"bytes\":{\"estimated\":null,\"actual\":120},"
                + "\"distinct_keys\":{\"estimated\":null,\"actual\":null}}");
    }

    @Test
    void negativeFiguresAreRefused() {
        assertThatThrownBy(() -> new EstimatesVsActuals("hint", -2, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("estimates and actuals must be >= 0 or UNKNOWN (-1), got -2");
    }
}
