package dev.spilljoin.estimator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeavyHittersTest {

    @Test
    void keysAreSortedByHashAndFoundByBinarySearch() {
        HeavyHitters heavy = HeavyHitters.of(10, new long[] {50, -7, 3}, new long[] {500, 70, 30},
                new long[] {510, 75, 31}, new long[] {5000, 700, 300});

        assertThat(heavy.size()).isEqualTo(3);
        assertThat(new long[] {heavy.hash(0), heavy.hash(1), heavy.hash(2)}).containsExactly(-7, 3, 50);
        assertThat(heavy.estimatedRows(0)).isEqualTo(70);
        assertThat(heavy.upperBoundRows(2)).isEqualTo(510);
        assertThat(heavy.estimatedBytes(1)).isEqualTo(300);
        assertThat(heavy.contains(50)).isTrue();
        assertThat(heavy.contains(-7)).isTrue();
        assertThat(heavy.contains(4)).isFalse();
        assertThat(heavy.totalEstimatedRows()).isEqualTo(600);
        assertThat(heavy.totalEstimatedBytes()).isEqualTo(6000);
        assertThat(heavy.guaranteedAboveRows()).isEqualTo(10);
        assertThat(HeavyHitters.none().isEmpty()).isTrue();
        assertThat(HeavyHitters.none().contains(0)).isFalse();
    }

    @Test
    void inconsistentKeysAreRefused() {
        assertThatThrownBy(() -> HeavyHitters.of(0, new long[] {1, 2}, new long[] {1}, new long[] {1, 2},
                new long[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heavy hitter arrays must have equal lengths, got hashes 2, estimatedRows 1, "
                        + "upperBoundRows 2, estimatedBytes 2");
        assertThatThrownBy(() -> HeavyHitters.of(0, new long[] {1, 1}, new long[] {1, 1}, new long[] {1, 1},
                new long[] {1, 1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heavy hitter hash 1 given twice");
        assertThatThrownBy(() -> HeavyHitters.of(0, new long[] {0xff}, new long[] {5}, new long[] {4},
                new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heavy hitter ff needs 0 <= estimatedRows <= upperBoundRows and estimatedBytes >= 0, "
                        + "got 5, 4, 1");
        assertThatThrownBy(() -> new InputStatistics(1, 1, 1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heavyHitters must not be null; use HeavyHitters.none()");
    }
}
