package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RowWriter}'s partitioned write: from any start row, it writes exactly the rows whose exclusion bit is clear,
 * in order, each into its partition's arena with its key, hash and NULL-key flag, and stops at the first row whose
 * arena refuses a page; checked against a plain loop over the rows, for batches of every length around the 64-row
 * words of the masks.
 */
class RowWriterTest {
    private static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    private static final RowLayout LAYOUT = new RowLayout(SCHEMA, new int[] {0}, new int[] {0, 1});

    @Test
    void writesTheRowsNotExcludedFromTheStartRowInOrderUntilAPageIsRefused() {
        long seed = Seeds.logged("RowWriterTest");
        SplittableRandom random = new SplittableRandom(seed);
        int rowBytes = LAYOUT.fixedRowLength();
        for (int n : new int[] {1, 63, 64, 65, 127, 128, 200, 1000}) {
            for (int round = 0; round < 20; round++) {
                BatchBuilder builder = new BatchBuilder(SCHEMA, n);
                for (int i = 0; i < n; i++) {
                    builder.addRow(random.nextInt(10) == 0 ? null : (long) i, (long) -i);
                }
                Batch batch = builder.build().get(0);
                int words = (n + 63) >>> 6;
                long[] hashes = new long[n];
                long[] nullKeys = new long[words];
                new KeyHasher(new int[] {0}).hash(batch, hashes, nullKeys);
                long[] exclude = new long[words];
                double share = random.nextDouble();
                int[] partitionOfRow = new int[n];
                for (int i = 0; i < n; i++) {
                    if (random.nextDouble() < share) {
                        exclude[i >>> 6] |= 1L << i;
                    }
                    partitionOfRow[i] = random.nextInt(3);
                }
                int from = random.nextInt(n);
                List<Integer> expected = new ArrayList<>();
                for (int i = from; i < n; i++) {
                    if ((exclude[i >>> 6] & (1L << i)) == 0) {
                        expected.add(i);
                    }
                }
                // Room for only part of the rows now and then: the write stops at the first row refused.
                int page = (4 * rowBytes + 7) & ~7;
                long limit = random.nextBoolean() ? 1 << 20 : (long) page * (1 + random.nextInt(6));
                try (MemoryReservation memory = MemoryReservation.root("test", limit)) {
                    RowArena[] arenas = new RowArena[3];
                    for (int p = 0; p < 3; p++) {
                        arenas[p] = new RowArena(memory, page);
                    }
                    RowWriter writer = new RowWriter(LAYOUT);
                    int stop = writer.write(batch, from, hashes, nullKeys, exclude, partitionOfRow, arenas);
                    int written = writer.writtenCount();
                    assertThat(written).as("n=%d from=%d", n, from).isLessThanOrEqualTo(expected.size());
                    assertThat(stop).as("the first row not written")
                            .isEqualTo(written == expected.size() ? n : expected.get(written));
                    if (limit == 1 << 20) {
                        assertThat(written).as("all fit").isEqualTo(expected.size());
                    }
                    long[] perArena = new long[3];
                    for (int j = 0; j < written; j++) {
                        int i = writer.writtenRows()[j];
                        assertThat(i).isEqualTo(expected.get(j));
                        long row = writer.writtenAddresses()[j];
                        boolean nullKey = batch.column(0).isNull(i);
                        assertThat(LAYOUT.hasNullKey(row)).isEqualTo(nullKey);
                        if (!nullKey) {
                            assertThat(NativeMemory.getLong(LAYOUT.fixedAddress(row, 0))).isEqualTo(i);
                        }
                        assertThat(NativeMemory.getLong(LAYOUT.fixedAddress(row, 1))).isEqualTo(-i);
                        perArena[partitionOfRow[i]]++;
                    }
                    for (int p = 0; p < 3; p++) {
                        assertThat(arenas[p].rowCount()).as("rows in partition %d's arena", p).isEqualTo(perArena[p]);
                        arenas[p].close();
                    }
                }
            }
        }
    }
}
