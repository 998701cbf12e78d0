package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A batch of CSV records held column by column in flat arrays: no object per row or field.
 *
 * <p>Layout, for column {@code c} and row {@code r < rows()}:
 * <ul>
 *   <li>the field's unescaped bytes are {@code bytes(c)[offsets(c)[r] .. offsets(c)[r + 1])} (quotes removed,
 *       doubled quotes made single, UTF-8 untouched);</li>
 *   <li>it is NULL when bit {@code r} of {@code nulls(c)} is set ({@link #isNull}); a NULL field has no bytes,
 *       and an empty string is a non-NULL field of length 0;</li>
 *   <li>a typed key column (see {@link #type}) also holds the parsed value: {@code longs(c)[r]} for BIGINT and
 *       INTEGER, {@code doubles(c)[r]} for DOUBLE, {@code booleans(c)[r]} for BOOLEAN (undefined when NULL);
 *       VARCHAR/VARBINARY keys use the bytes, which for a key read as exact number text are its canonical text
 *       ({@link NumberText}), not necessarily the bytes read;</li>
 *   <li>{@code lines()[r]} is the physical line (1-based) where the record starts, for error messages.</li>
 * </ul>
 * This mirrors the operator's columnar batch (primitive array + null bitmap per column, var-length values as
 * int offsets into one byte[]), so converting a chunk is one loop or one array hand-over per column.
 *
 * <p>Invariants: {@code offsets(c)[0] == 0}; offsets are non-decreasing; byte arrays grow by doubling and are
 * reused by {@link #clear()}. Only {@link CsvReader} appends.
 */
public final class CsvChunk {
    /** A chunk stops taking records once its field bytes exceed this, so wide rows do not grow the heap. */
    static final int SOFT_BYTE_LIMIT = 8 << 20;
    /** A field larger than this is refused: on a 256MB heap it is almost surely an unclosed quote. */
    static final int MAX_FIELD_BYTES = 64 << 20;
    private static final int INITIAL_COLUMN_BYTES = 16 << 10;

    private final int capacity;
    private ColumnType[] types;
    private byte[][] bytes;
    private int[][] offsets;
    private long[][] nulls;
    private long[][] longs;
    private double[][] doubles;
    private boolean[][] booleans;
    private final long[] lines;
    private int[] writeEnd = new int[0];
    private int columns;
    private int rows;

    /**
     * A chunk of up to {@code capacity} rows over {@code types.length} columns; {@code types[c]} is the key type
     * of column {@code c}, or null for a text column.
     */
    public CsvChunk(ColumnType[] types, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.lines = new long[capacity];
        this.types = new ColumnType[0];
        this.bytes = new byte[0][];
        this.offsets = new int[0][];
        this.nulls = new long[0][];
        this.longs = new long[0][];
        this.doubles = new double[0][];
        this.booleans = new boolean[0][];
        for (ColumnType type : types) {
            addColumn(type);
        }
    }

    /** Adds a column (used while the reader learns the column count from the first record). */
    void addColumn(ColumnType type) {
        int c = columns++;
        types = Arrays.copyOf(types, columns);
        bytes = Arrays.copyOf(bytes, columns);
        offsets = Arrays.copyOf(offsets, columns);
        nulls = Arrays.copyOf(nulls, columns);
        longs = Arrays.copyOf(longs, columns);
        doubles = Arrays.copyOf(doubles, columns);
        booleans = Arrays.copyOf(booleans, columns);
        types[c] = type;
        bytes[c] = new byte[INITIAL_COLUMN_BYTES];
        offsets[c] = new int[capacity + 1];
        nulls[c] = new long[(capacity + 63) >>> 6];
        if (type == ColumnType.BIGINT || type == ColumnType.INTEGER) {
            longs[c] = new long[capacity];
        } else if (type == ColumnType.DOUBLE) {
            doubles[c] = new double[capacity];
        } else if (type == ColumnType.BOOLEAN) {
            booleans[c] = new boolean[capacity];
        }
    }

    public int columns() {
        return columns;
    }

    public int rows() {
        return rows;
    }

    public int capacity() {
        return capacity;
    }

    /** The key type of column {@code c}, or null when it is a text column. */
    public ColumnType type(int c) {
        return types[c];
    }

    public byte[] bytes(int c) {
        return bytes[c];
    }

    public int[] offsets(int c) {
        return offsets[c];
    }

    /** The null bitmap of column {@code c}: bit {@code r} (word {@code r >>> 6}) set means NULL. */
    public long[] nulls(int c) {
        return nulls[c];
    }

    public long[] longs(int c) {
        return longs[c];
    }

    public double[] doubles(int c) {
        return doubles[c];
    }

    public boolean[] booleans(int c) {
        return booleans[c];
    }

    public long[] lines() {
        return lines;
    }

    public boolean isNull(int c, int r) {
        return (nulls[c][r >>> 6] & (1L << r)) != 0;
    }

    public int start(int c, int r) {
        return offsets[c][r];
    }

    public int length(int c, int r) {
        return offsets[c][r + 1] - offsets[c][r];
    }

    /** The field as a String (tests and error messages only; never on a hot path); null when NULL. */
    public String text(int c, int r) {
        return isNull(c, r) ? null : new String(bytes[c], offsets[c][r], length(c, r), StandardCharsets.UTF_8);
    }

    /** Total field bytes held, over all columns. */
    public long byteSize() {
        long total = 0;
        for (int c = 0; c < columns; c++) {
            total += offsets[c][rows];
        }
        return total;
    }

    /** Empties the chunk, keeping its arrays. */
    public void clear() {
        rows = 0;
    }

    // ---- appending (CsvReader only): the open record is row `rows`, committed by commitRow() ----

    /** Appends bytes to the open field of column {@code c}. */
    void append(int c, byte[] src, int from, int length) {
        int end = writeEnd[c];
        byte[] target = bytes[c];
        if (end + length > target.length) {
            target = grow(c, end + length);
        }
        System.arraycopy(src, from, target, end, length);
        writeEnd[c] = end + length;
    }

    void appendByte(int c, byte value) {
        int end = writeEnd[c];
        byte[] target = bytes[c];
        if (end == target.length) {
            target = grow(c, end + 1);
        }
        target[end] = value;
        writeEnd[c] = end + 1;
    }

    /** Opens row {@code rows} for appending: each column's write position is the end of the previous row. */
    void beginRow(long line) {
        if (writeEnd.length < columns) {
            writeEnd = new int[columns];
        }
        for (int c = 0; c < columns; c++) {
            writeEnd[c] = offsets[c][rows];
        }
        lines[rows] = line;
    }

    /** Closes the field of column {@code c} in the open row, NULL or not. */
    void endField(int c, boolean isNull) {
        int r = rows;
        offsets[c][r + 1] = writeEnd[c];
        long bit = 1L << r;
        if (isNull) {
            nulls[c][r >>> 6] |= bit;
        } else {
            nulls[c][r >>> 6] &= ~bit;
        }
    }

    /** Marks the field of column {@code c} in the open row NULL, keeping its bytes (an empty typed key). */
    void markNull(int c) {
        nulls[c][rows >>> 6] |= 1L << rows;
    }

    /** The open row's field bytes of column {@code c} start here (its end is {@link #openEnd}). */
    int openStart(int c) {
        return offsets[c][rows];
    }

    int openEnd(int c) {
        return writeEnd[c];
    }

    /** Replaces the bytes of column {@code c}'s field in the open row (already ended) by {@code text[0 .. length)}. */
    void replaceOpenField(int c, byte[] text, int length) {
        writeEnd[c] = offsets[c][rows];
        append(c, text, 0, length);
        offsets[c][rows + 1] = writeEnd[c];
    }

    void setLong(int c, long value) {
        longs[c][rows] = value;
    }

    void setDouble(int c, double value) {
        doubles[c][rows] = value;
    }

    void setBoolean(int c, boolean value) {
        booleans[c][rows] = value;
    }

    /** Makes the open row part of the chunk. */
    void commitRow() {
        rows++;
    }

    private byte[] grow(int c, int needed) {
        long fieldLimit = (long) offsets[c][rows] + MAX_FIELD_BYTES;
        if (needed > fieldLimit) {
            throw new FieldTooLargeException();
        }
        // Never grow past the open field's limit, so that the byte beyond it comes back here and is refused.
        long size = Math.min(Math.min(Math.max((long) needed, (long) bytes[c].length * 2), fieldLimit),
                Integer.MAX_VALUE - 8);
        bytes[c] = Arrays.copyOf(bytes[c], (int) size);
        return bytes[c];
    }

    /** Thrown by an append that would make one field larger than {@link #MAX_FIELD_BYTES}; the reader reports it. */
    static final class FieldTooLargeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FieldTooLargeException() {
            super(null, null, false, false);
        }
    }
}
