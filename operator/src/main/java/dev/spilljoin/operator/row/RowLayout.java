package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.NativeMemory;

import java.util.Arrays;

/**
 * The serialized in-memory row format of build rows (and of probe rows on their way to a spill file): a
 * self-describing, relocatable byte range in off-heap memory (nothing in a row points outside it). Spill files hold
 * the same rows without the in-memory-only parts ({@link SpillRowFormat}); the hash table holds compact copies
 * ({@code UnchainedTable}).
 *
 * <pre>
 * offset  size  field
 *   0      4    rowLength   total bytes of the row, a multiple of 8 (rows are 8-byte aligned in a page)
 *   4      4    keyLength   bytes of the key region
 *   8      8    hash        the key's 64-bit hash H, computed once (HashFunctions); never recomputed
 *  16      8    next        0; unused since the chained table was replaced by UnchainedTable, which copies
 *                           rows into its compact format (kept: the build pass's format is unchanged)
 *  24      1    flags       bit 0 MATCHED (a probe row matched it), bit 1 NULL_KEY (some key column is NULL)
 *  25      nb   null bits   one bit per field (keys first), bit set = NULL; nb = ceil(fields / 8)
 *  K=25+nb      key region  (keyLength bytes; equal keys have equal key regions, so keys compare as bytes)
 *                 fixed key fields in key order: BIGINT 8, INTEGER 4, DOUBLE 8 (normalized), BOOLEAN 1
 *                 variable key fields in key order: int length + bytes
 *  K+keyLength  payload region
 *                 fixed payload fields: BIGINT 8, INTEGER 4, DOUBLE 8 (raw bits), BOOLEAN 1
 *                 variable payload fields: int length + bytes
 *               padding to a multiple of 8
 * </pre>
 *
 * <p>Fields: field {@code k < keyCount} is key column {@code k}; the payload fields are the side's other columns
 * the output needs. A key column is read back from its key field, except DOUBLE keys: their key bytes are
 * normalized (-0.0 as 0.0, one NaN), so a projected DOUBLE key also gets a payload field holding the exact value.
 * NULL values are stored as zeros / empty (only NULL_KEY rows, never compared, can hold a NULL key field).
 * Multi-byte values are in native byte order, unaligned.
 */
public final class RowLayout {
    public static final int LENGTH = 0;
    public static final int KEY_LENGTH = 4;
    public static final int HASH = 8;
    public static final int NEXT = 16;
    public static final int FLAGS = 24;
    public static final int NULLS = 25;
    public static final byte MATCHED = 1;
    public static final byte NULL_KEY = 2;

    private final ColumnType[] fieldTypes;
    private final int[] sourceColumns;
    private final int keyCount;
    private final int nullBytes;
    private final int keyOffset;
    /** For a fixed field: its offset within its region; for a variable field: its index among its region's. */
    private final int[] position;
    private final int keyFixedBytes;
    private final int payloadFixedBytes;
    private final int[] fieldOfColumn;

    /**
     * A layout for rows of {@code schema} keyed by {@code keyColumns} that must be able to give back every column in
     * {@code outputColumns} (columns of the same schema, any order).
     */
    public RowLayout(Schema schema, int[] keyColumns, int[] outputColumns) {
        keyCount = keyColumns.length;
        int[] payload = Arrays.stream(outputColumns).distinct()
                .filter(c -> indexOf(keyColumns, c) < 0 || schema.type(c) == ColumnType.DOUBLE).toArray();
        int fields = keyCount + payload.length;
        fieldTypes = new ColumnType[fields];
        sourceColumns = new int[fields];
        position = new int[fields];
        for (int f = 0; f < fields; f++) {
            sourceColumns[f] = f < keyCount ? keyColumns[f] : payload[f - keyCount];
            fieldTypes[f] = schema.type(sourceColumns[f]);
        }
        keyFixedBytes = assignPositions(0, keyCount);
        payloadFixedBytes = assignPositions(keyCount, fields);
        nullBytes = (fields + 7) >>> 3;
        keyOffset = NULLS + nullBytes;
        fieldOfColumn = new int[schema.size()];
        Arrays.fill(fieldOfColumn, -1);
        for (int k = 0; k < keyCount; k++) {
            fieldOfColumn[keyColumns[k]] = k;
        }
        for (int p = 0; p < payload.length; p++) {
            fieldOfColumn[payload[p]] = keyCount + p;
        }
    }

    private int assignPositions(int from, int to) {
        int fixed = 0;
        int var = 0;
        for (int f = from; f < to; f++) {
            if (fieldTypes[f].isVariableWidth()) {
                position[f] = var++;
            } else {
                position[f] = fixed;
                fixed += fieldTypes[f].fixedWidth();
            }
        }
        return fixed;
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }

    public int fieldCount() {
        return fieldTypes.length;
    }

    public int keyCount() {
        return keyCount;
    }

    public ColumnType fieldType(int field) {
        return fieldTypes[field];
    }

    /** The column of the side's schema that field {@code field} holds. */
    public int sourceColumn(int field) {
        return sourceColumns[field];
    }

    /** The field from which column {@code column} is read back, or -1 if rows do not hold it. */
    public int fieldOfColumn(int column) {
        return fieldOfColumn[column];
    }

    public int nullBytes() {
        return nullBytes;
    }

    /** Offset of the key region from the row start. */
    public int keyOffset() {
        return keyOffset;
    }

    public int keyFixedBytes() {
        return keyFixedBytes;
    }

    public int payloadFixedBytes() {
        return payloadFixedBytes;
    }

    /** The shortest row of this layout: every variable field empty (its 4-byte length only), padded to 8. */
    public int minRowLength() {
        int length = keyOffset + keyFixedBytes + payloadFixedBytes;
        for (ColumnType type : fieldTypes) {
            length += type.isVariableWidth() ? 4 : 0;
        }
        return (length + 7) & ~7;
    }

    /** For a fixed field, its offset within its region; for a variable field, its index among its region's. */
    public int position(int field) {
        return position[field];
    }

    public boolean isKey(int field) {
        return field < keyCount;
    }

    // ---- reading a row at an address

    public static int rowLength(long row) {
        return NativeMemory.getInt(row + LENGTH);
    }

    public static int keyLength(long row) {
        return NativeMemory.getInt(row + KEY_LENGTH);
    }

    public static long hash(long row) {
        return NativeMemory.getLong(row + HASH);
    }

    public static byte flags(long row) {
        return NativeMemory.getByte(row + FLAGS);
    }

    public static boolean isMatched(long row) {
        return (NativeMemory.getByte(row + FLAGS) & MATCHED) != 0;
    }

    public static void setMatched(long row) {
        NativeMemory.putByte(row + FLAGS, (byte) (NativeMemory.getByte(row + FLAGS) | MATCHED));
    }

    public static boolean hasNullKey(long row) {
        return (NativeMemory.getByte(row + FLAGS) & NULL_KEY) != 0;
    }

    public static boolean isNull(long row, int field) {
        return (NativeMemory.getByte(row + NULLS + (field >>> 3)) & (1 << (field & 7))) != 0;
    }

    /** Address of a fixed-width field's value. */
    public long fixedAddress(long row, int field) {
        return field < keyCount
                ? row + keyOffset + position[field]
                : row + keyOffset + keyLength(row) + position[field];
    }

    /** Address of a variable-width field's int length (its bytes follow). */
    public long variableAddress(long row, int field) {
        long p = field < keyCount
                ? row + keyOffset + keyFixedBytes
                : row + keyOffset + keyLength(row) + payloadFixedBytes;
        for (int skip = position[field]; skip > 0; skip--) {
            p += 4 + NativeMemory.getInt(p);
        }
        return p;
    }
}
