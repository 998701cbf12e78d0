package dev.spilljoin.workloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ZipfDistributionTest {

    @Test
    void integerWeightsAreExactAtTheLargeScale() {
        int n = 10_000_000;
        ZipfDistribution zipf = ZipfDistribution.integerWeights(n);
        long sum = 0;
        int firstInexact = 0;
        for (int r = 1; r <= n; r++) {
            sum += (1L << 40) / r;
            if (firstInexact == 0 && (long) zipf.cumulativeWeight(r) != sum) {
                firstInexact = r;
            }
        }
        assertThat(firstInexact).as("the first rank whose C(r) differs from the long sum").isZero();
        assertThat((long) zipf.totalWeight()).isEqualTo(sum);
        long below = sum - (1L << 40) / n;
        assertThat(zipf.rank(below - 1)).isEqualTo(n - 1);
        assertThat(zipf.rank(below)).isEqualTo(n);
        assertThat(zipf.rank(sum - 1)).isEqualTo(n);
    }

    @Test
    void exponentWeightsAreNormalizedPowers() {
        ZipfDistribution zipf = ZipfDistribution.ofExponent(3, 1.0);
        // weights 1, 1/2, 1/3: sum 11/6, probabilities 6/11, 3/11, 2/11
        assertThat(zipf.ranks()).isEqualTo(3);
        assertThat(zipf.cumulativeWeight(1)).isCloseTo(6.0 / 11, within(1e-15));
        assertThat(zipf.cumulativeWeight(2)).isCloseTo(9.0 / 11, within(1e-15));
        assertThat(zipf.totalWeight()).isEqualTo(1.0);
        assertThat(zipf.rank(0)).isEqualTo(1);
        assertThat(zipf.rank(0.54)).isEqualTo(1);
        assertThat(zipf.rank(0.55)).isEqualTo(2);
        assertThat(zipf.rank(0.81)).isEqualTo(2);
        assertThat(zipf.rank(0.82)).isEqualTo(3);
        assertThat(zipf.rank(Math.nextDown(1.0))).isEqualTo(3);
    }

    @Test
    void exponentWeightsAreSummedInRankOrderAsOneOverAPower() {
        int n = 1000;
        double s = 1.1;
        ZipfDistribution zipf = ZipfDistribution.ofExponent(n, s);
        double[] sums = new double[n];
        double sum = 0;
        for (int r = 1; r <= n; r++) {
            sum += 1.0 / Math.pow(r, s);
            sums[r - 1] = sum;
        }
        for (int r = 1; r <= n; r++) {
            assertThat(zipf.cumulativeWeight(r)).as("rank %d", r).isEqualTo(sums[r - 1] / sum);
        }
    }

    @Test
    void noRanksIsRejected() {
        assertThatThrownBy(() -> ZipfDistribution.integerWeights(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("n = 0");
        assertThatThrownBy(() -> ZipfDistribution.ofExponent(-1, 1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("n = -1");
    }
}
