package dev.spilljoin.estimator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SketchConfig}'s written-out {@code equals} and {@code hashCode}: a record's, field by field. */
class SketchConfigTest {

    @Test
    void configsAreEqualExactlyWhenEveryFieldIs() {
        SketchConfig config = new SketchConfig(15, 2048, 16, 1);
        assertThat(config).isEqualTo(SketchConfig.BUILD).hasSameHashCodeAs(SketchConfig.BUILD);
        assertThat(config).isNotEqualTo(new SketchConfig(14, 2048, 16, 1))
                .isNotEqualTo(new SketchConfig(15, 1024, 16, 1))
                .isNotEqualTo(new SketchConfig(15, 2048, 2, 1))
                .isNotEqualTo(new SketchConfig(15, 2048, 16, 3))
                .isNotEqualTo(config.withoutFrequentItems())
                .isNotEqualTo(null)
                .isNotEqualTo(config.toString());
        assertThat(config.sampleEveryKthBatch(1)).isEqualTo(config);
    }
}
