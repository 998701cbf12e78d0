package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.testing.Seeds;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.NativeMemory.NativePage;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RowReader#gatherValues} of fixed-width values into a column at any start: a row whose address is 0 is NULL,
 * every other row gets the value at its address, and the rows before the start keep their values and NULLs; BIGINT,
 * INTEGER and DOUBLE alike, with NULLs (read as zeros) or without (read as they are).
 */
class RowReaderTest {
    private static final int VALUES = 512;
    private static final ColumnType[] TYPES = {ColumnType.BIGINT, ColumnType.INTEGER, ColumnType.DOUBLE};

    /** Stores {@code value} in row {@code row} of {@code out} as its type holds it (a DOUBLE: the long's bits). */
    private static void set(ColumnVector out, int row, long value) {
        switch (out.type()) {
            case BIGINT -> out.setLong(row, value);
            case INTEGER -> out.setInt(row, (int) value);
            default -> out.setDouble(row, Double.longBitsToDouble(value));
        }
    }

    /** Row {@code row}'s value as {@link #set} stored it. */
    private static long get(ColumnVector out, int row) {
        return switch (out.type()) {
            case BIGINT -> out.getLong(row);
            case INTEGER -> out.getInt(row);
            default -> Double.doubleToRawLongBits(out.getDouble(row));
        };
    }

    @Test
    void aZeroAddressIsNullAndEveryOtherRowGetsItsValueAtAnyStart() {
        SplittableRandom random = new SplittableRandom(Seeds.logged("RowReaderTest"));
        try (MemoryReservation memory = MemoryReservation.root("test", VALUES * Long.BYTES)) {
            assertThat(memory.tryGrow(VALUES * Long.BYTES)).isTrue();
            try (NativePage page = NativeMemory.allocate(memory, VALUES * Long.BYTES)) {
                for (int v = 0; v < VALUES; v++) { // a value's 8 bytes: its long, its double's bits or its int
                    NativeMemory.putLong(page.address() + (long) v * Long.BYTES, 1000L + v);
                }
                for (int round = 0; round < 600; round++) {
                    ColumnType type = TYPES[round % TYPES.length];
                    int start = random.nextInt(0, 200);
                    int count = random.nextInt(0, 300);
                    int nullOneIn = random.nextInt(0, 6); // 0: no NULL
                    long[] at = new long[count];
                    int[] value = new int[count];
                    for (int j = 0; j < count; j++) {
                        value[j] = random.nextInt(VALUES);
                        at[j] = nullOneIn > 0 && random.nextInt(nullOneIn) == 0 ? 0
                                : page.address() + (long) value[j] * Long.BYTES;
                    }
                    ColumnVector out = new ColumnVector(type, start + count);
                    for (int row = 0; row < start; row++) {
                        if (row % 3 == 0) {
                            out.setNull(row);
                        } else {
                            set(out, row, -row);
                        }
                    }
                    RowReader.gatherValues(type, at, count, out, start);
                    for (int row = 0; row < start; row++) {
                        assertThat(out.isNull(row)).as("round %d, row %d before the start", round, row)
                                .isEqualTo(row % 3 == 0);
                        if (row % 3 != 0) {
                            assertThat(get(out, row)).isEqualTo(-row);
                        }
                    }
                    for (int j = 0; j < count; j++) {
                        assertThat(out.isNull(start + j)).as("round %d, %s, start %d, row %d", round, type, start, j)
                                .isEqualTo(at[j] == 0);
                        if (at[j] != 0) {
                            assertThat(get(out, start + j)).as("round %d, %s, row %d", round, type, j)
                                    .isEqualTo(1000L + value[j]);
                        }
                    }
                    assertThat(out.mayHaveNulls()).isEqualTo(start > 0 || Arrays.stream(at).anyMatch(a -> a == 0));
                }
            }
        }
    }
}
