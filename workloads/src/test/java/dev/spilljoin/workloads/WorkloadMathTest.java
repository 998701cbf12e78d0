package dev.spilljoin.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WorkloadMathTest {

    @Test
    void hIsSplitMix64OutputFromTheSeed() {
        // Published SplitMix64 outputs for state 0.
        assertThat(WorkloadMath.h(0, 0)).isEqualTo(0xE220A8397B1DCDAFL);
        assertThat(WorkloadMath.h(0, 1)).isEqualTo(0x6E789E6AA1B965F4L);
        assertThat(WorkloadMath.h(0, 2)).isEqualTo(0x06C45D188009454FL);
        // java.util.SplittableRandom(seed).nextLong() is the same generator: its (i+1)-th output is h(seed, i).
        for (long seed : new long[] {0x11, 0x22, 0x31, -7}) {
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < 1000; i++) {
                assertThat(WorkloadMath.h(seed, i)).as("seed %d, i %d", seed, i).isEqualTo(random.nextLong());
            }
        }
    }

    @Test
    void payloadAndUniformTakeTheStatedBits() {
        long h = WorkloadMath.h(0x22, 5);
        assertThat(WorkloadMath.payload(0x22, 5)).isEqualTo(h >>> 33).isBetween(0L, (1L << 31) - 1);
        assertThat(WorkloadMath.uniform(0x21, 5, 1000)).isEqualTo((WorkloadMath.h(0x21, 5) >>> 1) % 1000);
        // h(0, 0) = 0xE220A8397B1DCDAF: >>> 1 = 8147104208329303767, mod 1000 = 767; >>> 33 = 1896895516.
        assertThat(WorkloadMath.uniform(0, 0, 1000)).isEqualTo(767);
        assertThat(WorkloadMath.payload(0, 0)).isEqualTo(1896895516L);
    }

    @Test
    void permMatchesHandComputedValuesAndIsABijection() {
        assertThat(WorkloadMath.perm(0, 10)).isZero();
        assertThat(WorkloadMath.perm(3, 10)).isEqualTo(3); // 7963307283 mod 10
        assertThat(WorkloadMath.perm(1, 1_000_000)).isEqualTo(435_761);
        assertThat(WorkloadMath.perm(999_999, 1_000_000)).isEqualTo(564_239); // 2654433106564239 mod 10^6
        int n = 100_003;
        BitSet seen = new BitSet(n);
        for (int i = 0; i < n; i++) {
            seen.set((int) WorkloadMath.perm(i, n));
        }
        assertThat(seen.cardinality()).isEqualTo(n);
    }

    @Test
    void zipfRankIsTheSmallestRankWhoseCumulativeWeightExceedsTheDraw() {
        ZipfDistribution zipf = ZipfDistribution.integerWeights(3);
        long c1 = 1L << 40;                 // w(1) = 2^40
        long c2 = c1 + (1L << 39);          // w(2) = 2^39
        long c3 = c2 + 366_503_875_925L;    // w(3) = floor(2^40 / 3)
        assertThat(zipf.cumulativeWeight(1)).isEqualTo(c1);
        assertThat(zipf.cumulativeWeight(2)).isEqualTo(c2);
        assertThat(zipf.totalWeight()).isEqualTo(c3).isEqualTo(2_015_771_317_589L);
        assertThat(zipf.rank(0)).isEqualTo(1);
        assertThat(zipf.rank(c1 - 1)).isEqualTo(1);
        assertThat(zipf.rank(c1)).isEqualTo(2);
        assertThat(zipf.rank(c2 - 1)).isEqualTo(2);
        assertThat(zipf.rank(c2)).isEqualTo(3);
        assertThat(zipf.rank(c3 - 1)).isEqualTo(3);
    }
}
