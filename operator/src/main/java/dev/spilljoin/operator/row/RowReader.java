package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.table.BuildRowReader;
import dev.spilljoin.spill.NativeMemory;

/**
 * Copies one field of many serialized rows into a column vector (a gather) in two loops: the first finds each
 * row's value address, the second copies the values, the type switch outside the loop. A row address of 0 stands
 * for "no row" and yields NULL (the padding of outer joins). The copying loop ({@link #gatherValues}) is shared with
 * the spilled rows' format ({@link SpillRowFormat#valueAddresses}).
 */
public final class RowReader implements BuildRowReader {
    private final RowLayout layout;
    private long[] addresses = new long[0];

    public RowReader(RowLayout layout) {
        this.layout = layout;
    }

    /** Writes field {@code field} of {@code rows[0..count)} into {@code out} rows {@code [outStart, outStart+count)}. */
    @Override
    public void gather(int field, long[] rows, int count, ColumnVector out, int outStart) {
        if (addresses.length < count) {
            addresses = new long[Math.max(count, 2 * addresses.length)];
        }
        long[] at = addresses;
        boolean variable = layout.fieldType(field).isVariableWidth();
        for (int j = 0; j < count; j++) {
            long row = rows[j];
            at[j] = row == 0 || RowLayout.isNull(row, field) ? 0
                    : variable ? layout.variableAddress(row, field) : layout.fixedAddress(row, field);
        }
        gatherValues(layout.fieldType(field), at, count, out, outStart);
    }

    /** The whole serialized row's length. */
    @Override
    public int rowBytes(long row) {
        return RowLayout.rowLength(row);
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
