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
                long[] values = out.longs();
                if (setNulls(at, count, out, outStart)) {
                    for (int j = 0; j < count; j++) {
                        values[outStart + j] = NativeMemory.getLongOrZero(at[j]);
                    }
                } else {
                    for (int j = 0; j < count; j++) {
                        values[outStart + j] = NativeMemory.getLong(at[j]);
                    }
                }
            }
            case INTEGER -> {
                int[] values = out.ints();
                if (setNulls(at, count, out, outStart)) {
                    for (int j = 0; j < count; j++) {
                        values[outStart + j] = NativeMemory.getIntOrZero(at[j]);
                    }
                } else {
                    for (int j = 0; j < count; j++) {
                        values[outStart + j] = NativeMemory.getInt(at[j]);
                    }
                }
            }
            case DOUBLE -> {
                double[] values = out.doubles();
                if (setNulls(at, count, out, outStart)) {
                    for (int j = 0; j < count; j++) {
                        values[outStart + j] = NativeMemory.getDoubleOrZero(at[j]);
                    }
                } else {
                    for (int j = 0; j < count; j++) {
                        values[outStart + j] = NativeMemory.getDouble(at[j]);
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

    /**
     * Sets the NULL bit of each row {@code outStart + j} whose {@code at[j]} is 0, by arithmetic instead of a branch
     * per row (an address is positive, so {@code (at - 1) >>> 63} is 1 exactly for 0): the fixed-width gathers above
     * read every value without a branch (a NULL's from a zero, {@link NativeMemory#getLongOrZero}), so that their
     * loads, mostly cache misses in a large table, are in flight together; a branch per row on the NULL, mispredicted
     * whenever NULLs are common (an outer join's unmatched rows), held each behind it. A word's bits are gathered in a
     * register and ORed into the bitmap once: ORed into it row by row, each row's store waited for the one before
     * it (the same word), a third of the gather's time in W1's probe. Returns whether a row was NULL: a first loop
     * ORs every address minus one (the sign bit set only by a 0), so that rows without a NULL, the usual case, write
     * no bit and take their values by plain loads, without the zero's select (the bits' loop, a dependent OR per
     * row, took 7 % of W1's probe).
     */
    private static boolean setNulls(long[] at, int count, ColumnVector out, int outStart) {
        long signs = 0;
        for (int j = 0; j < count; j++) {
            signs |= at[j] - 1;
        }
        if (signs >= 0) {
            return false; // no address is 0
        }
        long[] nulls = out.nullBitmap();
        int end = outStart + count;
        for (int row = outStart; row < end; ) {
            int wordEnd = Math.min(end, (row | 63) + 1);
            long bits = 0;
            for (; row < wordEnd; row++) {
                bits |= (at[row - outStart] - 1) >>> 63 << row;
            }
            nulls[(row - 1) >>> 6] |= bits;
        }
        out.nullsWritten();
        return true;
    }
}
