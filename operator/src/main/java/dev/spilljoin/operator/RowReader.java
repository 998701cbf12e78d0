package dev.spilljoin.operator;

import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.spill.NativeMemory;

/**
 * Copies one field of many serialized rows into a column vector (a gather), the type switch outside the loop.
 * A row address of 0 stands for "no row" and yields NULL (the padding of outer joins).
 */
public final class RowReader {
    private final RowLayout layout;

    public RowReader(RowLayout layout) {
        this.layout = layout;
    }

    /** Writes field {@code field} of {@code rows[0..count)} into {@code out} rows {@code [outStart, outStart+count)}. */
    public void gather(int field, long[] rows, int count, ColumnVector out, int outStart) {
        out.ensureCapacity(outStart + count);
        switch (layout.fieldType(field)) {
            case BIGINT -> {
                for (int j = 0; j < count; j++) {
                    long row = rows[j];
                    if (row == 0 || RowLayout.isNull(row, field)) {
                        out.setNull(outStart + j);
                    } else {
                        out.setLong(outStart + j, NativeMemory.getLong(layout.fixedAddress(row, field)));
                    }
                }
            }
            case INTEGER -> {
                for (int j = 0; j < count; j++) {
                    long row = rows[j];
                    if (row == 0 || RowLayout.isNull(row, field)) {
                        out.setNull(outStart + j);
                    } else {
                        out.setInt(outStart + j, NativeMemory.getInt(layout.fixedAddress(row, field)));
                    }
                }
            }
            case DOUBLE -> {
                for (int j = 0; j < count; j++) {
                    long row = rows[j];
                    if (row == 0 || RowLayout.isNull(row, field)) {
                        out.setNull(outStart + j);
                    } else {
                        out.setDouble(outStart + j, NativeMemory.getDouble(layout.fixedAddress(row, field)));
                    }
                }
            }
            case BOOLEAN -> {
                for (int j = 0; j < count; j++) {
                    long row = rows[j];
                    if (row == 0 || RowLayout.isNull(row, field)) {
                        out.setNull(outStart + j);
                    } else {
                        out.setBoolean(outStart + j, NativeMemory.getByte(layout.fixedAddress(row, field)) != 0);
                    }
                }
            }
            case VARCHAR, VARBINARY -> {
                for (int j = 0; j < count; j++) {
                    long row = rows[j];
                    if (row == 0 || RowLayout.isNull(row, field)) {
                        out.setNull(outStart + j);
                    } else {
                        long p = layout.variableAddress(row, field);
                        int length = NativeMemory.getInt(p);
                        int start = out.reserveBytes(outStart + j, length);
                        NativeMemory.copyToArray(p + 4, out.bytes(), start, length);
                    }
                }
            }
        }
    }
}
