package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link StagedSpillOrder}: the staged rows grouped by partition, each partition's in staging order, only the
 * partitions asked for, and the workers' first partitions spread over the partitions. Seeded; replay with
 * {@code -Dseed=<seed>}.
 */
class StagedSpillOrderTest {

    @Test
    void groupsEveryKeptRowUnderItsPartitionInStagingOrder() {
        long seed = Seeds.logged("StagedSpillOrderTest");
        SplittableRandom random = new SplittableRandom(seed);
        for (int c = 0; c < 200; c++) {
            int partitions = 1 + random.nextInt(33);
            StagedSpillOrder order = new StagedSpillOrder(partitions, 0, 1);
            for (int round = 0; round < 3; round++) { // the same order again, with other rows: nothing left over
                int batchRows = random.nextInt(600);
                int[] partitionOfRow = new int[batchRows];
                for (int i = 0; i < batchRows; i++) {
                    partitionOfRow[i] = random.nextInt(partitions);
                }
                int m = batchRows == 0 ? 0 : random.nextInt(batchRows + 1);
                int[] rows = new int[m]; // staged rows: an increasing selection of the batch's rows
                for (int j = 0, i = 0; j < m; j++, i++) {
                    while (batchRows - i > m - j && random.nextBoolean()) {
                        i++;
                    }
                    rows[j] = i;
                }
                boolean[] spilled = null;
                if (random.nextBoolean()) {
                    spilled = new boolean[partitions];
                    for (int p = 0; p < partitions; p++) {
                        spilled[p] = random.nextBoolean();
                    }
                }
                order.group(partitionOfRow, rows, m, spilled);
                String where = "seed=" + seed + " case=" + c + " round=" + round;
                for (int p = 0; p < partitions; p++) {
                    List<Integer> expected = new ArrayList<>();
                    for (int j = 0; j < m; j++) {
                        if (partitionOfRow[rows[j]] == p && (spilled == null || spilled[p])) {
                            expected.add(j);
                        }
                    }
                    List<Integer> actual = new ArrayList<>();
                    for (int i = order.from(p); i < order.to(p); i++) {
                        actual.add(order.stagedRow(i));
                    }
                    assertEquals(expected, actual, where + " partition " + p);
                }
            }
        }
    }

    @Test
    void workersStartTheirRoundsSpreadOverThePartitions() {
        assertEquals(0, new StagedSpillOrder(17, 0, 2).firstPartition());
        assertEquals(8, new StagedSpillOrder(17, 1, 2).firstPartition());
        assertEquals(12, new StagedSpillOrder(17, 3, 4).firstPartition());
        assertEquals(1, new StagedSpillOrder(2, 3, 4).firstPartition());
        assertEquals(0, new StagedSpillOrder(1, 5, 8).firstPartition());
    }
}
