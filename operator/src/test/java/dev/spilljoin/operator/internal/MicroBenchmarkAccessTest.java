package dev.spilljoin.operator.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowCursor;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowPages;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;

import org.junit.jupiter.api.Test;

/**
 * The parts of the benchmarks' entry point that are more than a delegation: the row cursor's copying of whole rows
 * across pages, and the batch partitioning (the benchmarks' own test checks every operation against its result).
 */
class MicroBenchmarkAccessTest {
    private static final Schema SCHEMA = Schema.of(new Column("k", ColumnType.BIGINT, false),
            new Column("v", ColumnType.BIGINT, false));
    private static final int ROWS = 1000;
    /** A (BIGINT, BIGINT) row: a byte of flags and null bits, two 8-byte fields. */
    private static final int ROW_BYTES = 17;
    private static final MicroBenchmarkAccess ACCESS = MicroBenchmarkAccess.forRows(SCHEMA, new int[] {0});

    private static RowPages rows(MemoryReservation memory) {
        Batch batch = new Batch(SCHEMA, ROWS);
        for (int i = 0; i < ROWS; i++) {
            batch.column(0).setLong(i, i);
            batch.column(1).setLong(i, -i);
        }
        batch.setRowCount(ROWS);
        long[] hashes = new long[ROWS];
        long[] nullKeys = new long[(ROWS + 63) / 64];
        ACCESS.batchHasher().hash(batch, hashes, nullKeys);
        RowPages rows = ACCESS.newRowPages(memory, 4096);
        assertThat(rows.write(batch, hashes, nullKeys)).isEqualTo(ROWS);
        return rows;
    }

    @Test
    void cursorCopiesEveryRowWholeAcrossPagesInBufferSizedChunks() {
        int capacity = 1000;
        try (MemoryReservation memory = MemoryReservation.root("access test", 1 << 20)) {
            RowPages rows = rows(memory);
            assertThat(rows.reservedBytes()).as("several pages").isGreaterThan(4096L * 3);
            assertThat(memory.tryGrow(capacity)).isTrue();
            NativeMemory.NativePage buffer = NativeMemory.allocate(memory, capacity);
            RowCursor cursor = rows.cursor();
            long copied = 0;
            long hashSum = 0;
            int chunks = 0;
            int fill;
            while ((fill = cursor.copyTo(buffer.address(), capacity)) > 0) {
                assertThat(fill).as("chunk %d", chunks).isEqualTo(Math.min(capacity / ROW_BYTES * ROW_BYTES,
                        ROWS * ROW_BYTES - copied));
                hashSum += rows.keyHashSum(buffer.address(), fill);
                copied += fill;
                chunks++;
            }
            assertThat(copied).isEqualTo((long) ROWS * ROW_BYTES);
            assertThat(hashSum).isEqualTo(rows.keyHashSum());
            assertThat(cursor.copyTo(buffer.address(), capacity)).as("after the end").isZero();
            buffer.close();
            memory.shrink(capacity);
            rows.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    @Test
    void cursorRefusesABufferSmallerThanARow() {
        try (MemoryReservation memory = MemoryReservation.root("access test", 1 << 20)) {
            RowPages rows = rows(memory);
            assertThat(memory.tryGrow(ROW_BYTES)).isTrue();
            NativeMemory.NativePage buffer = NativeMemory.allocate(memory, ROW_BYTES);
            assertThatThrownBy(() -> rows.cursor().copyTo(buffer.address(), ROW_BYTES - 8))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a row of 17 bytes does not fit in a buffer of 9 bytes");
            buffer.close();
            memory.shrink(ROW_BYTES);
            rows.close();
        }
    }

    @Test
    void partitionsOfTakesTheTopBitsOfH1AtTheLevel() {
        long[] hashes = {0L, 1L, -1L, 0x123456789abcdefL, Long.MIN_VALUE};
        int[] partitions = new int[hashes.length];
        for (int level = 0; level < 3; level++) {
            MicroBenchmarkAccess.partitionsOf(hashes, hashes.length, level, 5, partitions);
            for (int i = 0; i < hashes.length; i++) {
                long h1 = MicroBenchmarkAccess.partitionHash(hashes[i], level);
                assertThat(partitions[i]).isEqualTo((int) (h1 >>> 59));
            }
        }
    }
}
