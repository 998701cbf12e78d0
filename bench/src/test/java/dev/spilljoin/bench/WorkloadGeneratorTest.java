package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.workloads.WorkloadMath;
import org.junit.jupiter.api.Test;

class WorkloadGeneratorTest {

    @Test
    void skewedBuildKeysHoldTheStatedShares() {
        long nR = 100_000;
        long[] heavy = new long[4];
        for (long i = 0; i < nR; i++) {
            long key = WorkloadGenerator.skewedBuildKey(i, nR);
            if (i % 1000 >= 18) {
                assertThat(key).isEqualTo(WorkloadMath.perm(i, nR));
            } else {
                heavy[(int) key]++;
            }
        }
        assertThat(heavy).containsExactly(1000, 500, 200, 100);
    }
}
