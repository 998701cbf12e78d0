package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.spill.NativeMemory;

/**
 * The key statistics of build rows that size a {@link DirectIndexTable}: the least and greatest non-NULL key, their
 * stride (the greatest common divisor of the keys' differences), the keyed and NULL-key rows, the payload fields that
 * held a NULL, and per variable-width payload field its longest value and the bytes of its values longer than a wide
 * entry holds (what the table's entry widths and heap are sized by). Taken row by row
 * ({@link #add(long)}: a pass over an arena, {@link #scan}, or each row as it is written elsewhere, a spilled
 * partition's rows as they go to its file) and combined over any split of the rows ({@link #add(KeyRange)},
 * {@link #plus}): the statistics of a split's parts added up are those of all its rows.
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class KeyRange {
    private final RowLayout layout;
    private final boolean intKey;
    private final long keyOffset;
    private final long bitsAt;
    /** The variable-width payload fields, in field order. */
    private final int[] variable;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    /** The first keyed row's key: every key differs from it by a multiple of {@link #stride}. */
    private long anyKey;
    /** The greatest common divisor of the keys' differences, unsigned (0: a single key value). */
    private long stride;
    /** {@link #stride} as a divisor, kept for the test of each key (a new one only when the stride shrinks). */
    private KeyStride step = KeyStride.of(0);
    long keyedRows;
    long nullKeyRows;
    /** Per field (variable-width payload fields only): the longest value's bytes. */
    private final int[] maxLength;
    /** Per field (variable-width payload fields only): its values longer than a wide entry holds, with lengths. */
    private final long[] longValueBytes;
    /** The most a row's variable-width payload values count in its row bytes: 4 bytes and the length each. */
    int maxVariableRowBytes;
    /** Every row's NULL bits ORed: which fields held a NULL. */
    private final byte[] nullBits;

    private KeyRange(RowLayout layout) {
        this.layout = layout;
        this.intKey = layout.fieldType(0) == ColumnType.INTEGER;
        this.keyOffset = layout.keyOffset();
        this.bitsAt = layout.bitsOffset();
        this.variable = DirectIndexTable.variableFields(layout);
        this.nullBits = new byte[layout.bitBytes()];
        this.maxLength = new int[layout.fieldCount()];
        this.longValueBytes = new long[layout.fieldCount()];
    }

    /** An empty range for rows of {@code layout} (which must be {@link DirectIndexTable#supports supported}). */
    public static KeyRange empty(RowLayout layout) {
        return new KeyRange(layout);
    }

    /** The statistics of {@code arena}'s rows of {@code layout}. */
    public static KeyRange scan(RowLayout layout, RowArena arena) {
        KeyRange r = new KeyRange(layout);
        for (int p = 0; p < arena.pageCount(); p++) {
            long row = arena.pageAddress(p);
            long end = row + arena.pageUsed(p);
            while (row < end) {
                r.add(row);
                row += layout.rowLength(row);
            }
        }
        return r;
    }

    /** Adds the row at {@code row}, in this range's layout. */
    public void add(long row) {
        if (layout.hasNullKey(row)) {
            nullKeyRows++;
        } else {
            long key = DirectIndexTable.keyAt(row, intKey, keyOffset);
            if (keyedRows == 0) {
                anyKey = key;
            }
            long difference = Math.abs(key - anyKey); // wrong only past a span no table takes
            if (!step.divides(difference)) { // rare: the stride at most halves each time
                stride = KeyStride.gcd(stride, difference);
                step = KeyStride.of(stride);
            }
            min = Math.min(min, key);
            max = Math.max(max, key);
            keyedRows++;
        }
        for (int b = 0; b < nullBits.length; b++) {
            nullBits[b] |= NativeMemory.getByte(row + bitsAt + b);
        }
        int rowVariableBytes = 0;
        long value = layout.variableValues(row, false);
        for (int f : variable) {
            int length = DirectIndexTable.valueLength(layout, row, f, value);
            maxLength[f] = Math.max(maxLength[f], length);
            longValueBytes[f] += DirectIndexTable.heapBytes(length);
            rowVariableBytes += Integer.BYTES + length;
            value = RowLayout.skipValues(value, 1);
        }
        maxVariableRowBytes = Math.max(maxVariableRowBytes, rowVariableBytes);
    }

    /** A new range with this range's rows and {@code other}'s. */
    public KeyRange plus(KeyRange other) {
        KeyRange sum = new KeyRange(layout);
        sum.add(this);
        sum.add(other);
        return sum;
    }

    /** Adds {@code other}'s rows to this range. */
    public void add(KeyRange other) {
        if (keyedRows == 0) {
            anyKey = other.anyKey;
            stride = other.stride;
        } else if (other.keyedRows > 0) {
            stride = KeyStride.gcd(KeyStride.gcd(stride, other.stride), Math.abs(other.anyKey - anyKey));
        }
        step = KeyStride.of(stride);
        min = Math.min(min, other.min);
        max = Math.max(max, other.max);
        keyedRows += other.keyedRows;
        nullKeyRows += other.nullKeyRows;
        for (int f : variable) {
            maxLength[f] = Math.max(maxLength[f], other.maxLength[f]);
            longValueBytes[f] += other.longValueBytes[f];
        }
        maxVariableRowBytes = Math.max(maxVariableRowBytes, other.maxVariableRowBytes);
        for (int b = 0; b < nullBits.length; b++) {
            nullBits[b] |= other.nullBits[b];
        }
    }

    /** The rows with a non-NULL key. */
    public long keyedRows() {
        return keyedRows;
    }

    /** The rows with a NULL key. */
    public long nullKeyRows() {
        return nullKeyRows;
    }

    /** The longest value of variable-width payload field {@code field}, in bytes (0: none, or only empty ones). */
    int maxLength(int field) {
        return maxLength[field];
    }

    /** The bytes of variable-width field {@code field}'s values longer than a wide entry holds, with their lengths. */
    long longValueBytes(int field) {
        return longValueBytes[field];
    }

    /** Whether some row held a NULL in payload field {@code field}. */
    boolean fieldHasNull(int field) {
        return field > 0 && RowLayout.isNull(nullBits, field);
    }

    /** Whether there are more keyed rows than values in the keys' range: then some key surely occurs twice. */
    public boolean surelyRepeats() {
        return keyedRows > range();
    }

    /**
     * The values a table over these keys indexes, {@code (max - min) / stride + 1}, or -1 when there is no keyed
     * row or {@code max - min} does not fit a long.
     */
    long range() {
        long span = max - min;
        if (keyedRows == 0 || span < 0 || span == Long.MAX_VALUE) {
            return -1;
        }
        return stride == 0 ? 1 : Long.divideUnsigned(span, stride) + 1;
    }

    /** The keys' stride (1 for a single key value). */
    KeyStride stride() {
        return stride == 0 ? KeyStride.ONE : KeyStride.of(stride);
    }
}
