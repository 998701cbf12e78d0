package dev.spilljoin.spark;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The partition-count arithmetic of the README: max(parallelism, ceil(2 × build bytes / task budget)). */
class PartitionSizingTest {
    private static final long MIB = 1L << 20;

    @Test
    void enoughPartitionsForEachBuildSideToFitItsBudget() {
        // 10 GiB build side, 512 MiB per task: 2 * 10240 / 512 = 40 partitions.
        assertThat(PartitionSizing.partitions(10_240 * MIB, 512 * MIB, 8, 200)).isEqualTo(40);
        // rounds up: 2 * 1000 / 512 = 3.9 -> 4, but never below the default parallelism
        assertThat(PartitionSizing.partitions(1000 * MIB, 512 * MIB, 2, 200)).isEqualTo(4);
        assertThat(PartitionSizing.partitions(MIB, 512 * MIB, 8, 200)).isEqualTo(8);
    }

    @Test
    void unknownSizeFallsBackToShufflePartitionsAndHugeSizesAreCapped() {
        assertThat(PartitionSizing.partitions(Long.MAX_VALUE, 512 * MIB, 8, 200)).isEqualTo(200);
        assertThat(PartitionSizing.partitions(Long.MAX_VALUE - 1, MIB, 8, 200)).isEqualTo(PartitionSizing.MAX_PARTITIONS);
    }
}
