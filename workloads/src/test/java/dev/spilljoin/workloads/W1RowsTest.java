package dev.spilljoin.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class W1RowsTest {

    /** The rows at the small scale (1M x 10M) join to the count and sum docs/WORKLOADS.md lists for W1. */
    @Test
    void smallScaleJoinsToTheListedCountAndSum() {
        int nR = 1_000_000;
        long nS = 10_000_000;
        long[] buildPayloadByKey = new long[nR];
        BitSet seen = new BitSet(nR);
        for (int i = 0; i < nR; i++) {
            int key = (int) W1Rows.buildKey(i, nR);
            seen.set(key);
            buildPayloadByKey[key] = W1Rows.buildPayload(i);
        }
        assertThat(seen.cardinality()).as("distinct build keys, all in [0, nR)").isEqualTo(nR);
        assertThat(seen.length()).isEqualTo(nR);
        long count = 0;
        long sum = 0;
        for (long i = 0; i < nS; i++) {
            long key = W1Rows.probeKey(i, nR);
            if (key >= 0 && key < nR) {
                count++;
                sum += buildPayloadByKey[(int) key] + W1Rows.probePayload(i);
            }
        }
        assertThat(count).isEqualTo(10_000_000L);
        assertThat(sum).isEqualTo(21481313584743985L);
    }
}
