package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.NativeMemory;

import java.util.Arrays;

/**
 * The serialized in-memory row format of build rows (and of probe rows on their way to a spill file): a
 * self-describing, relocatable byte range in off-heap memory (nothing in a row points outside it). Spill files hold
 * the same rows without the in-memory-only parts ({@link SpillRowFormat}); the hash table holds compact copies
 * ({@code UnchainedTable}). Two shapes, chosen by the layout's field types:
 *
 * <pre>
 * fixed-width layouts (no VARCHAR or VARBINARY field): every row is {@link #fixedRowLength()} bytes, unpadded
 *   0      cb   bits        bit 0 MATCHED (a probe row matched it), bit 1 NULL_KEY (some key column is NULL),
 *                           bit 2 + f: field f is NULL; cb = ceil((2 + fields) / 8), one byte for up to 6 fields
 *   cb          key region, then payload region
 * variable-width layouts whose key fields are all fixed-width (e.g. a BIGINT key, a VARCHAR payload), unpadded:
 *   0      4    rowLength   total bytes of the row
 *   4      cb   bits        as above
 *   4+cb        key region, then payload region
 * variable-width layouts with a variable-width key field:
 *   0      4    rowLength   total bytes of the row, a multiple of 8 (these rows are 8-byte aligned in a page)
 *   4      4    keyLength   bytes of the key region
 *   8      8    hash        the key's 64-bit hash H (HashFunctions), computed once and stored: a variable-width
 *                           key is costly to hash again
 *  16      cb   bits        as above
 *  16+cb        key region, then payload region, then padding to a multiple of 8
 * key region:     fixed key fields in key order: BIGINT 8, INTEGER 4, DOUBLE 8 (normalized), BOOLEAN 1;
 *                 then variable key fields in key order: int length + bytes
 * payload region: fixed payload fields: BIGINT 8, INTEGER 4, DOUBLE 8 (raw bits), BOOLEAN 1;
 *                 then variable payload fields: int length + bytes
 * </pre>
 *
 * <p>A row whose key fields are fixed-width stores no hash and no key length: {@link #hash} recomputes H from its key
 * fields exactly as {@link KeyHasher} computed it from the batch (a multiply and a mix per key field), which costs
 * less than 8 bytes per row in memory and on disk, and the key region's length is the layout's. A (BIGINT key, BIGINT
 * payload) row is 17 bytes, a (BIGINT key, 10-byte VARCHAR payload) row 4 + 1 + 8 + 4 + 10 = 27 (it is its own spill
 * encoding, {@link SpillRowFormat}).
 *
 * <p>Fields: field {@code k < keyCount} is key column {@code k}; the payload fields are the side's other columns
 * the output needs. A key column is read back from its key field, except DOUBLE keys: their key bytes are
 * normalized (-0.0 as 0.0, one NaN), so a projected DOUBLE key also gets a payload field holding the exact value.
 * NULL values are stored as zeros / empty (only NULL_KEY rows, never compared, can hold a NULL key field).
 * Multi-byte values are in native byte order, unaligned.
 */
public final class RowLayout {
    /** Offsets of a variable-width row's header fields. */
    private static final int LENGTH = 0;
    private static final int KEY_LENGTH = 4;
    private static final int HASH = 8;
    /** Offset of the bits in a variable-width row with a variable-width key field, and in one without. */
    private static final int VARIABLE_KEY_BITS = 16;
    private static final int FIXED_KEY_VARIABLE_BITS = 4;
    /** Bit 0 of the bits: a probe row matched this row. */
    public static final byte MATCHED = 1;
    /** Bit 1 of the bits: some key column is NULL. */
    public static final byte NULL_KEY = 2;
    /** The bit of field 0's NULL flag; field f's is this plus f. */
    public static final int FIELD_BITS_SHIFT = 2;

    private final ColumnType[] fieldTypes;
    private final int[] sourceColumns;
    private final int keyCount;
    /** Whether the key is one 8-byte field (BIGINT, DOUBLE): {@link #keyHash}'s common case, without its loop. */
    private final boolean singleLongKey;
    private final int bitBytes;
    private final boolean variableWidth;
    /** Whether some key field is variable-width: rows then store their key length and hash, and are padded. */
    private final boolean variableKey;
    /** Offset of the bits from the row start: 0, 4 or 16 (see the class comment). */
    private final int bitsOffset;
    private final int keyOffset;
    /** The length of every row of a fixed-width layout, -1 for a variable-width layout. */
    private final int fixedRowLength;
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
        singleLongKey = keyCount == 1 && (fieldTypes[0] == ColumnType.BIGINT || fieldTypes[0] == ColumnType.DOUBLE);
        payloadFixedBytes = assignPositions(keyCount, fields);
        boolean variable = false;
        for (ColumnType type : fieldTypes) {
            variable |= type.isVariableWidth();
        }
        variableWidth = variable;
        boolean anyVariableKey = false;
        for (int k = 0; k < keyCount; k++) {
            anyVariableKey |= fieldTypes[k].isVariableWidth();
        }
        variableKey = anyVariableKey;
        bitBytes = (FIELD_BITS_SHIFT + fields + 7) >>> 3;
        bitsOffset = !variable ? 0 : variableKey ? VARIABLE_KEY_BITS : FIXED_KEY_VARIABLE_BITS;
        keyOffset = bitsOffset + bitBytes;
        fixedRowLength = variable ? -1 : keyOffset + keyFixedBytes + payloadFixedBytes;
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

    /** Bytes of the bits (flags and NULL bits) of a row. */
    public int bitBytes() {
        return bitBytes;
    }

    /** Offset of the bits from the row start. */
    public int bitsOffset() {
        return bitsOffset;
    }

    /** Whether some field is variable-width (rows then carry their length). */
    public boolean isVariableWidth() {
        return variableWidth;
    }

    /** Whether some key field is variable-width (rows then also carry their key length and hash, and are padded). */
    public boolean hasVariableKey() {
        return variableKey;
    }

    /** The length of every row of a fixed-width layout; -1 for a variable-width layout. */
    public int fixedRowLength() {
        return fixedRowLength;
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

    /** The shortest row of this layout: every variable field empty (its 4-byte length only), padded if padded. */
    public int minRowLength() {
        if (!variableWidth) {
            return fixedRowLength;
        }
        int length = keyOffset + keyFixedBytes + payloadFixedBytes;
        for (ColumnType type : fieldTypes) {
            length += type.isVariableWidth() ? 4 : 0;
        }
        return paddedLength(length);
    }

    /** A row of {@code length} bytes with its padding: to a multiple of 8 with a variable-width key, else none. */
    public int paddedLength(int length) {
        return variableKey ? (length + 7) & ~7 : length;
    }

    /** For a fixed field, its offset within its region; for a variable field, its index among its region's. */
    public int position(int field) {
        return position[field];
    }

    public boolean isKey(int field) {
        return field < keyCount;
    }

    // ---- writing a row's header

    /**
     * Writes the header of a row of {@code length} bytes (its key region {@code keyLength} bytes) with hash
     * {@code hash} at {@code row}: no field NULL, MATCHED clear, NULL_KEY as given. (A fixed-width row's header is its
     * bits only; a row's key length and hash are implied by the layout and the key unless a key field is
     * variable-width.)
     */
    public void writeHeader(long row, int length, int keyLength, long hash, boolean nullKey) {
        if (variableWidth) {
            NativeMemory.putInt(row + LENGTH, length);
        }
        if (variableKey) {
            NativeMemory.putInt(row + KEY_LENGTH, keyLength);
            NativeMemory.putLong(row + HASH, hash);
        }
        NativeMemory.putByte(row + bitsOffset, nullKey ? NULL_KEY : 0);
        for (int b = 1; b < bitBytes; b++) {
            NativeMemory.putByte(row + bitsOffset + b, (byte) 0);
        }
    }

    /** Sets field {@code field}'s NULL bit in the row at {@code row}. */
    public void setNull(long row, int field) {
        int bit = FIELD_BITS_SHIFT + field;
        long at = row + bitsOffset + (bit >>> 3);
        NativeMemory.putByte(at, (byte) (NativeMemory.getByte(at) | (1 << (bit & 7))));
    }

    // ---- reading a row at an address

    public int rowLength(long row) {
        return variableWidth ? NativeMemory.getInt(row + LENGTH) : fixedRowLength;
    }

    public int keyLength(long row) {
        return variableKey ? NativeMemory.getInt(row + KEY_LENGTH) : keyFixedBytes;
    }

    /** The key hash H of the row at {@code row}: stored with a variable-width key, else recomputed from the key. */
    public long hash(long row) {
        return variableKey ? NativeMemory.getLong(row + HASH) : keyHash(row + keyOffset);
    }

    /**
     * H of the fixed-width key fields at {@code key}, as {@link KeyHasher} folds them (INTEGER sign-extended, DOUBLE
     * as its stored normalized bits, BOOLEAN as 0/1).
     */
    long keyHash(long key) {
        if (singleLongKey) {
            return HashFunctions.singleKeyHash(NativeMemory.getLong(key + position[0]));
        }
        long h = HashFunctions.KEY_SEED;
        for (int f = 0; f < keyCount; f++) {
            long at = key + position[f];
            long value = switch (fieldTypes[f]) {
                case BIGINT, DOUBLE -> NativeMemory.getLong(at);
                case INTEGER -> NativeMemory.getInt(at);
                case BOOLEAN -> NativeMemory.getByte(at);
                case VARCHAR, VARBINARY -> throw new IllegalStateException("a variable-width key's hash is stored");
            };
            h = HashFunctions.combine(h, value);
        }
        return h;
    }

    /** The row's MATCHED and NULL_KEY bits. */
    public int flags(long row) {
        return NativeMemory.getByte(row + bitsOffset) & (MATCHED | NULL_KEY);
    }

    public boolean isMatched(long row) {
        return (NativeMemory.getByte(row + bitsOffset) & MATCHED) != 0;
    }

    public void setMatched(long row) {
        NativeMemory.putByte(row + bitsOffset, (byte) (NativeMemory.getByte(row + bitsOffset) | MATCHED));
    }

    public boolean hasNullKey(long row) {
        return (NativeMemory.getByte(row + bitsOffset) & NULL_KEY) != 0;
    }

    /** Whether some bit of the row is set: a NULL field, a NULL key, or MATCHED. */
    public boolean anyBitSet(long row) {
        for (int b = 0; b < bitBytes; b++) {
            if (NativeMemory.getByte(row + bitsOffset + b) != 0) {
                return true;
            }
        }
        return false;
    }

    public boolean isNull(long row, int field) {
        int bit = FIELD_BITS_SHIFT + field;
        return (NativeMemory.getByte(row + bitsOffset + (bit >>> 3)) & (1 << (bit & 7))) != 0;
    }

    /** Whether field {@code field}'s NULL bit is set in {@code bits}: rows' {@link #bitBytes} bit bytes, e.g. ORed. */
    public static boolean isNull(byte[] bits, int field) {
        int bit = FIELD_BITS_SHIFT + field;
        return (bits[bit >>> 3] & (1 << (bit & 7))) != 0;
    }

    /** Address of a fixed-width field's value. */
    public long fixedAddress(long row, int field) {
        return field < keyCount
                ? row + keyOffset + position[field]
                : row + keyOffset + keyLength(row) + position[field];
    }

    /**
     * Address of the first variable-width value (its int length) of the row's key region ({@code key}) or payload
     * region: the region's variable-width values follow it back to back, in position order ({@link #skipValues}).
     */
    public long variableValues(long row, boolean key) {
        return key ? row + keyOffset + keyFixedBytes : row + keyOffset + keyLength(row) + payloadFixedBytes;
    }

    /** The address of the variable-width value {@code count} values after the one at {@code value}. */
    public static long skipValues(long value, int count) {
        long p = value;
        for (int skip = count; skip > 0; skip--) {
            p += Integer.BYTES + NativeMemory.getInt(p);
        }
        return p;
    }
}
