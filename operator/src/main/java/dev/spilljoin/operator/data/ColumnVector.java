package dev.spilljoin.operator.data;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One column of a {@link Batch}: a primitive array for its type plus a null bitmap.
 *
 * <p>Storage by type: BIGINT in {@link #longs()}, INTEGER in {@link #ints()}, DOUBLE in {@link #doubles()},
 * BOOLEAN in {@link #booleans()}; VARCHAR/VARBINARY as {@link #offsets()} (row {@code i} spans
 * {@code bytes[offsets[i] .. offsets[i+1])}) plus {@link #bytes()}. The null bitmap has one bit per row in
 * {@code long} words, bit set = NULL; {@link #mayHaveNulls()} is false when no bit was ever set since the last
 * {@link #reset()}, so hot loops skip the bitmap entirely. Arrays grow and are kept across {@link #reset()}: a
 * vector reused for every batch allocates nothing in steady state.
 *
 * <p>Invariant for variable-width columns: rows are written in order ({@link #setBytes} for row {@code i} after row
 * {@code i-1}); a NULL row is written as an empty value by {@link #setNull}.
 */
public final class ColumnVector {
    private final ColumnType type;
    private int capacity;
    private long[] longs;
    private int[] ints;
    private double[] doubles;
    private boolean[] booleans;
    private int[] offsets;
    private byte[] bytes;
    private long[] nulls;
    private boolean mayHaveNulls;

    public ColumnVector(ColumnType type, int capacity) {
        this.type = type;
        this.capacity = 0;
        this.nulls = new long[0];
        ensureCapacity(Math.max(capacity, 1));
    }

    public ColumnType type() {
        return type;
    }

    public int capacity() {
        return capacity;
    }

    /** Grows the arrays to hold {@code rows} rows, keeping their contents. */
    public void ensureCapacity(int rows) {
        if (rows <= capacity) {
            return;
        }
        int n = Math.max(rows, capacity + (capacity >>> 1));
        switch (type) {
            case BIGINT -> longs = longs == null ? new long[n] : Arrays.copyOf(longs, n);
            case INTEGER -> ints = ints == null ? new int[n] : Arrays.copyOf(ints, n);
            case DOUBLE -> doubles = doubles == null ? new double[n] : Arrays.copyOf(doubles, n);
            case BOOLEAN -> booleans = booleans == null ? new boolean[n] : Arrays.copyOf(booleans, n);
            case VARCHAR, VARBINARY -> {
                offsets = offsets == null ? new int[n + 1] : Arrays.copyOf(offsets, n + 1);
                if (bytes == null) {
                    bytes = new byte[Math.max(16, n * 8)];
                }
            }
        }
        nulls = Arrays.copyOf(nulls, (n + 63) >>> 6);
        capacity = n;
    }

    /** Clears the null bitmap (of the first {@code usedRows} rows) and the variable-width data, keeping arrays. */
    public void reset(int usedRows) {
        if (mayHaveNulls) {
            Arrays.fill(nulls, 0, Math.min(nulls.length, (usedRows + 63) >>> 6), 0L);
            mayHaveNulls = false;
        }
        if (offsets != null) {
            offsets[0] = 0;
        }
    }

    /**
     * Makes this vector hold the first {@code rows} values of {@code source} (of the same type): a copy that outlives
     * the source's reuse, with no object per value.
     */
    public void copyFrom(ColumnVector source, int rows) {
        if (source.type != type) {
            throw new IllegalArgumentException("cannot copy a " + source.type + " column into a " + type + " column");
        }
        reset(capacity);
        ensureCapacity(rows);
        switch (type) {
            case BIGINT -> System.arraycopy(source.longs, 0, longs, 0, rows);
            case INTEGER -> System.arraycopy(source.ints, 0, ints, 0, rows);
            case DOUBLE -> System.arraycopy(source.doubles, 0, doubles, 0, rows);
            case BOOLEAN -> System.arraycopy(source.booleans, 0, booleans, 0, rows);
            case VARCHAR, VARBINARY -> {
                System.arraycopy(source.offsets, 0, offsets, 0, rows + 1);
                ensureByteCapacity(source.offsets[rows]);
                System.arraycopy(source.bytes, 0, bytes, 0, source.offsets[rows]);
            }
        }
        if (source.mayHaveNulls) {
            System.arraycopy(source.nulls, 0, nulls, 0, (rows + 63) >>> 6);
            mayHaveNulls = true;
        }
    }

    /**
     * Writes rows {@code [from, from + count)} of {@code source} (of the same type) as rows {@code [at, at + count)}
     * of this vector, values and NULLs, each kind in one array copy (the variable-width offsets shifted one by one):
     * for a run of consecutive rows. Variable-width rows are written in order, so {@code at} must be the next row.
     */
    public void copyRows(ColumnVector source, int from, int count, int at) {
        switch (type) {
            case BIGINT -> System.arraycopy(source.longs, from, longs, at, count);
            case INTEGER -> System.arraycopy(source.ints, from, ints, at, count);
            case DOUBLE -> System.arraycopy(source.doubles, from, doubles, at, count);
            case BOOLEAN -> System.arraycopy(source.booleans, from, booleans, at, count);
            case VARCHAR, VARBINARY -> {
                int[] sourceOffsets = source.offsets;
                int first = sourceOffsets[from];
                int length = sourceOffsets[from + count] - first;
                int start = offsets[at];
                ensureByteCapacity(start + length);
                System.arraycopy(source.bytes, first, bytes, start, length);
                int shift = start - first;
                for (int k = 1; k <= count; k++) {
                    offsets[at + k] = sourceOffsets[from + k] + shift;
                }
            }
        }
        if (source.mayHaveNulls) {
            for (int k = 0; k < count; k++) {
                if (source.isNull(from + k)) {
                    Bitmaps.set(nulls, at + k);
                    mayHaveNulls = true;
                }
            }
        }
    }

    public boolean mayHaveNulls() {
        return mayHaveNulls;
    }

    public boolean isNull(int row) {
        return mayHaveNulls && Bitmaps.isSet(nulls, row);
    }

    /** Marks {@code row} NULL (a variable-width row is written as empty, keeping the offsets in order). */
    public void setNull(int row) {
        Bitmaps.set(nulls, row);
        mayHaveNulls = true;
        if (offsets != null) {
            offsets[row + 1] = offsets[row];
        }
    }

    public long[] nullBitmap() {
        return nulls;
    }

    /**
     * Records that NULL bits of fixed-width rows were set in {@link #nullBitmap()} directly (by a caller filling rows
     * in bulk, as {@link #setNull} would have set them one by one).
     */
    public void nullsWritten() {
        mayHaveNulls = true;
    }

    public long[] longs() {
        return longs;
    }

    public int[] ints() {
        return ints;
    }

    public double[] doubles() {
        return doubles;
    }

    public boolean[] booleans() {
        return booleans;
    }

    public int[] offsets() {
        return offsets;
    }

    public byte[] bytes() {
        return bytes;
    }

    public long getLong(int row) {
        return longs[row];
    }

    public int getInt(int row) {
        return ints[row];
    }

    public double getDouble(int row) {
        return doubles[row];
    }

    public boolean getBoolean(int row) {
        return booleans[row];
    }

    public int byteOffset(int row) {
        return offsets[row];
    }

    public int byteLength(int row) {
        return offsets[row + 1] - offsets[row];
    }

    public byte[] getBytes(int row) {
        return Arrays.copyOfRange(bytes, offsets[row], offsets[row + 1]);
    }

    public String getString(int row) {
        return new String(bytes, offsets[row], byteLength(row), StandardCharsets.UTF_8);
    }

    public void setLong(int row, long value) {
        longs[row] = value;
    }

    public void setInt(int row, int value) {
        ints[row] = value;
    }

    public void setDouble(int row, double value) {
        doubles[row] = value;
    }

    public void setBoolean(int row, boolean value) {
        booleans[row] = value;
    }

    /** Writes row {@code row}'s value (rows in order); grows the byte array as needed. */
    public void setBytes(int row, byte[] source, int offset, int length) {
        int start = offsets[row];
        ensureByteCapacity(start + length);
        System.arraycopy(source, offset, bytes, start, length);
        offsets[row + 1] = start + length;
    }

    /**
     * Reserves {@code length} bytes for row {@code row} (rows in order) and returns their start in {@link #bytes()}
     * for the caller to fill: the way to copy from off-heap memory without a temporary array.
     */
    public int reserveBytes(int row, int length) {
        int start = offsets[row];
        ensureByteCapacity(start + length);
        offsets[row + 1] = start + length;
        return start;
    }

    private void ensureByteCapacity(int needed) {
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(needed, bytes.length * 2));
        }
    }
}
