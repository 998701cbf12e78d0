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
 * reused by {@link #clear()}, except that one grown past {@link BatchSizing#MAX_KEPT_VALUE_BYTES} by a large row
 * is given back there. Only {@link CsvReader} appends.
 *
 * <p>Large rows: the open row's bytes are counted as they are appended; once they pass the chunk's row limit
 * ({@link BatchSizing#maxRowBytes()} by default) the row's further bytes are counted per column but not stored, so
 * the reader can finish the record and report its real size ({@link #openRowTooLarge()}) without holding it.
 */
public final class CsvChunk {
    private static final int MAX_INITIAL_COLUMN_BYTES = 16 << 10;
    private static final int INITIAL_BYTES_PER_ROW = 8;
    private static final int MIN_COLUMN_BYTES = 64;

    private final int capacity;
    /** The field bytes after which the chunk takes no further row. */
    private final int targetBytes;
    private final long maxRowBytes;
    private final int initialColumnBytes;
    private long heldBytes;
    private long openBytes;
    /** Per column, the open row's bytes counted but not stored (it passed the row limit); null until first needed. */
    private long[] dropped;
    private boolean openRowTooLarge;
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
        this(types, capacity, BatchSizing.maxRowBytes(), BatchSizing.TARGET_BYTES);
    }

    /** As {@link #CsvChunk(ColumnType[], int)}, with rows of more than {@code maxRowBytes} field bytes refused. */
    CsvChunk(ColumnType[] types, int capacity, long maxRowBytes) {
        this(types, capacity, maxRowBytes, BatchSizing.TARGET_BYTES);
    }

    /**
     * As {@link #CsvChunk(ColumnType[], int, long)}, taking no further row once its field bytes reach
     * {@code targetBytes} ({@link CsvReader#read}).
     */
    CsvChunk(ColumnType[] types, int capacity, long maxRowBytes, int targetBytes) {
        if (capacity < 1 || targetBytes < 1) {
            throw new IllegalArgumentException("capacity and target bytes must be positive: " + capacity + ", "
                    + targetBytes);
        }
        this.capacity = capacity;
        this.targetBytes = targetBytes;
        this.maxRowBytes = maxRowBytes;
        this.initialColumnBytes = (int) Math.min(MAX_INITIAL_COLUMN_BYTES,
                Math.max(MIN_COLUMN_BYTES, (long) capacity * INITIAL_BYTES_PER_ROW));
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

    /**
     * Adds a column (used while the reader learns the column count from the first record: row 0 is then open, and
     * its field of the new column starts empty).
     */
    void addColumn(ColumnType type) {
        int c = columns++;
        if (columns > types.length) { // grown by doubling: learning 10,000 columns is not quadratic
            int room = Math.max(4, 2 * types.length);
            types = Arrays.copyOf(types, room);
            bytes = Arrays.copyOf(bytes, room);
            offsets = Arrays.copyOf(offsets, room);
            nulls = Arrays.copyOf(nulls, room);
            longs = Arrays.copyOf(longs, room);
            doubles = Arrays.copyOf(doubles, room);
            booleans = Arrays.copyOf(booleans, room);
        }
        if (writeEnd.length < columns) {
            writeEnd = Arrays.copyOf(writeEnd, types.length);
        }
        types[c] = type;
        bytes[c] = new byte[initialColumnBytes];
        writeEnd[c] = 0; // the open row's field of a new column starts at row 0, the only row while learning
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

    /** The field bytes after which {@link CsvReader#read} puts no further row into this chunk. */
    int targetBytes() {
        return targetBytes;
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
        return heldBytes;
    }

    /**
     * Empties the chunk, keeping its arrays; a column's byte array grown past
     * {@link BatchSizing#MAX_KEPT_VALUE_BYTES} (by a large row) goes back to its initial size, so that large rows do
     * not pin the heap.
     */
    public void clear() {
        for (int c = 0; c < columns; c++) {
            if (bytes[c].length > BatchSizing.MAX_KEPT_VALUE_BYTES) {
                bytes[c] = new byte[initialColumnBytes];
            }
        }
        rows = 0;
        heldBytes = 0;
    }

    /** The row limit of this chunk's rows (field bytes). */
    long maxRowBytes() {
        return maxRowBytes;
    }

    /** Whether the open row passed the row limit: its bytes past it were counted, not stored. */
    boolean openRowTooLarge() {
        return openRowTooLarge;
    }

    /** The open row's field bytes, stored or not. */
    long openRowBytes() {
        return openBytes;
    }

    /** The open row's field bytes of column {@code c} (after its field ended), stored or not. */
    long openFieldBytes(int c) {
        return writeEnd[c] - offsets[c][rows] + (dropped == null ? 0 : dropped[c]);
    }

    // ---- appending (CsvReader only): the open record is row `rows`, committed by commitRow() ----

    /** Appends bytes to the open field of column {@code c}. */
    void append(int c, byte[] src, int from, int length) {
        openBytes += length;
        if (openBytes > maxRowBytes) {
            drop(c, length);
            return;
        }
        int end = writeEnd[c];
        byte[] target = bytes[c];
        if (end + length > target.length) {
            target = grow(c, end + length);
        }
        ByteWords.copy(src, from, target, end, length);
        writeEnd[c] = end + length;
    }

    void appendByte(int c, byte value) {
        if (++openBytes > maxRowBytes) {
            drop(c, 1);
            return;
        }
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
        openBytes = 0;
        if (openRowTooLarge) {
            Arrays.fill(dropped, 0L);
            openRowTooLarge = false;
        }
    }

    /** Counts {@code length} bytes of column {@code c} of the open row that pass the row limit. */
    private void drop(int c, int length) {
        if (dropped == null || dropped.length < columns) {
            dropped = dropped == null ? new long[types.length] : Arrays.copyOf(dropped, types.length);
        }
        dropped[c] += length;
        openRowTooLarge = true;
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
        if (openRowTooLarge) {
            throw new IllegalStateException("a row of " + openBytes + " bytes passed the limit of " + maxRowBytes
                    + " and cannot be committed");
        }
        heldBytes += openBytes;
        rows++;
    }

    private byte[] grow(int c, int needed) {
        long size = Math.min(Math.max((long) needed, (long) bytes[c].length * 2), Integer.MAX_VALUE - 8);
        bytes[c] = Arrays.copyOf(bytes[c], (int) size);
        return bytes[c];
    }
}
