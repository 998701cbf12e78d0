package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.spill.NativeMemory;

/**
 * Copies values lying at given addresses (one per row, 0 = NULL; the value's bytes in the row formats' encoding)
 * into a column vector, the type switch outside the loop: the last step of every gather from serialized rows (a
 * table's compact rows, {@code UnchainedTable#gather}; spilled rows, {@link SpillRowFormat#valueAddresses}).
 */
public final class RowReader {
    private RowReader() {
    }

    /**
     * Writes the values of type {@code type} at {@code at[0..count)} (for variable-width types: an int length, then
     * the bytes; 0 = NULL) into {@code out} rows {@code [outStart, outStart+count)}.
     */
    public static void gatherValues(ColumnType type, long[] at, int count, ColumnVector out, int outStart) {
        out.ensureCapacity(outStart + count);
        switch (type) {
            case BIGINT -> {
                for (int j = 0; j < count; j++) {
                    if (at[j] == 0) {
                        out.setNull(outStart + j);
                    } else {
                        out.setLong(outStart + j, NativeMemory.getLong(at[j]));
                    }
                }
            }
            case INTEGER -> {
                for (int j = 0; j < count; j++) {
                    if (at[j] == 0) {
                        out.setNull(outStart + j);
                    } else {
                        out.setInt(outStart + j, NativeMemory.getInt(at[j]));
                    }
                }
            }
            case DOUBLE -> {
                for (int j = 0; j < count; j++) {
                    if (at[j] == 0) {
                        out.setNull(outStart + j);
                    } else {
                        out.setDouble(outStart + j, NativeMemory.getDouble(at[j]));
                    }
                }
            }
            case BOOLEAN -> {
                for (int j = 0; j < count; j++) {
                    if (at[j] == 0) {
                        out.setNull(outStart + j);
                    } else {
                        out.setBoolean(outStart + j, NativeMemory.getByte(at[j]) != 0);
                    }
                }
            }
            case VARCHAR, VARBINARY -> {
                for (int j = 0; j < count; j++) {
                    if (at[j] == 0) {
                        out.setNull(outStart + j);
                    } else {
                        int length = NativeMemory.getInt(at[j]);
                        int start = out.reserveBytes(outStart + j, length);
                        NativeMemory.copyToArray(at[j] + 4, out.bytes(), start, length);
                    }
                }
            }
        }
    }
}
