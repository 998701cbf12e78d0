package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.row.GatherScratch;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.spill.NativeMemory;

/**
 * The row format inside an {@link UnchainedTable}: a build row ({@link RowLayout}) without what only the build pass
 * and the spill files need (a stored hash; a fixed-width row's bits when no row needs them).
 * Where a row lies tells its slot, so no hash is kept; keys are compared by value.
 *
 * <pre>
 * every field fixed-width ("fixed"; stride = header + keyFixedBytes + payloadFixedBytes, no padding, unaligned):
 *   [header: RowLayout's bits: bit 0 MATCHED, bit 1 NULL_KEY, bit 2+f NULL of field f; ceil((2 + fields) / 8) bytes]
 *   [key fields as RowLayout's key region][payload fields as RowLayout's payload region]
 *   i.e. the RowLayout row itself. The header is left out (0 bytes) when no row of the table has a NULL field or a
 *   NULL key and the join never marks rows (the table decides while counting, {@link #withoutHeader}).
 * some field variable-width, every key field fixed-width ("variable"; the RowLayout row itself):
 *   [int rowLength][bits][key region][payload region]
 * some key field variable-width ("variable"; RowLayout's row less its hash: rowLength - 8 bytes):
 *   [int rowLength][int keyLength][bits][key region][payload region][padding]
 * </pre>
 *
 * <p>(BIGINT key, BIGINT payload): 17 bytes with the header, 16 without. A key column is read back from its key
 * field; NULL values are zeros, as in RowLayout.
 */
final class CompactRows {
    /** Header bits: the flags of RowLayout. */
    static final int MATCHED = RowLayout.MATCHED;
    static final int NULL_KEY = RowLayout.NULL_KEY;
    /** Bytes a row with a variable-width key loses: RowLayout's stored hash. */
    private static final int HASH_BYTES = 8;

    private final RowLayout layout;
    private final boolean variable;
    /** Whether rows keep a key length (some key field is variable-width). */
    private final boolean variableKey;
    /** Bytes a row loses against its RowLayout row: the stored hash, if any. */
    private final int saving;
    /** Offset of the bits, -1 without a header. */
    private final int flagsOffset;
    /** Offset of the key region. */
    private final int dataOffset;
    private final int keyFixed;
    private final int dataBytes;
    private final int stride;
    /** Width of a single fixed-width key (8, 4 or 1), 0 otherwise. */
    private final int singleKeyWidth;

    /** The format for rows of {@code layout}, with the header (see {@link #withoutHeader}). */
    CompactRows(RowLayout layout) {
        this(layout, true);
    }

    private CompactRows(RowLayout layout, boolean header) {
        this.layout = layout;
        this.variable = layout.isVariableWidth();
        this.variableKey = layout.hasVariableKey();
        this.saving = variableKey ? HASH_BYTES : 0;
        this.keyFixed = layout.keyFixedBytes();
        this.dataBytes = layout.keyFixedBytes() + layout.payloadFixedBytes();
        if (variable) {
            flagsOffset = layout.bitsOffset() - saving;
            dataOffset = flagsOffset + layout.bitBytes();
        } else {
            flagsOffset = header ? 0 : -1;
            dataOffset = header ? layout.bitBytes() : 0;
        }
        this.stride = variable ? 0 : dataOffset + dataBytes;
        ColumnType keyType = layout.keyCount() == 1 ? layout.fieldType(0) : null;
        this.singleKeyWidth = keyType == null || keyType.isVariableWidth() ? 0 : keyType.fixedWidth();
    }

    /** This format without the header, for a table none of whose rows has a NULL field or is ever marked. */
    CompactRows withoutHeader() {
        if (variable) {
            throw new IllegalStateException("rows with variable-width fields always keep their header");
        }
        return new CompactRows(layout, false);
    }

    RowLayout layout() {
        return layout;
    }

    boolean isVariable() {
        return variable;
    }

    boolean hasHeader() {
        return flagsOffset >= 0;
    }

    /** The fixed stride of a fixed-width row, 0 for variable-width rows. */
    int stride() {
        return stride;
    }

    /** Bytes of a fixed-width row with its header: the table's per-row cost before it knows about NULLs. */
    static long maxFixedRowBytes(RowLayout layout) {
        return new CompactRows(layout).stride;
    }

    /**
     * The most bytes the compact copies of {@code rows} rows of {@code layout} take whose RowLayout rows total
     * {@code rowBytes}: exact for fixed-width rows (with their header), {@code rowBytes} less the stored hashes
     * otherwise.
     */
    static long bytesBound(RowLayout layout, long rows, long rowBytes) {
        CompactRows format = new CompactRows(layout);
        return format.variable ? Math.max(0, rowBytes - format.saving * rows) : rows * format.stride;
    }

    /** The length of the compact copy of the RowLayout row at {@code source}. */
    int lengthOf(long source) {
        return variable ? layout.rowLength(source) - saving : stride;
    }

    /** Whether the RowLayout row at {@code source} needs a header: a NULL field, a NULL key, a MATCHED flag. */
    boolean needsHeader(long source) {
        return layout.anyBitSet(source);
    }

    /** Writes the compact copy of the RowLayout row at {@code source} to {@code target}; returns its length. */
    int copy(long source, long target) {
        if (variable) {
            int length = layout.rowLength(source) - saving;
            NativeMemory.putInt(target, length);
            if (variableKey) {
                NativeMemory.putInt(target + 4, layout.keyLength(source));
            }
            NativeMemory.copy(source + layout.bitsOffset(), target + flagsOffset, length - flagsOffset);
            return length;
        }
        long from = source + layout.keyOffset() - dataOffset;
        int i = 0;
        for (; i + 8 <= stride; i += 8) {
            NativeMemory.putLong(target + i, NativeMemory.getLong(from + i));
        }
        for (; i < stride; i++) {
            NativeMemory.putByte(target + i, NativeMemory.getByte(from + i));
        }
        return stride;
    }

    // ---- reading a compact row

    int rowLength(long row) {
        return variable ? NativeMemory.getInt(row) : stride;
    }

    int keyLength(long row) {
        return variableKey ? NativeMemory.getInt(row + 4) : keyFixed;
    }

    /** The flags (MATCHED, NULL_KEY); 0 without a header. */
    int flags(long row) {
        return flagsOffset < 0 ? 0 : NativeMemory.getByte(row + flagsOffset) & (MATCHED | NULL_KEY);
    }

    boolean isMatched(long row) {
        return (NativeMemory.getByte(row + flagsOffset) & MATCHED) != 0;
    }

    /**
     * Sets the MATCHED flag, safely beside other workers doing the same: the header's other bits never change once
     * the table is built, so every writer of the byte writes the same value; an already set flag is only read, so a
     * hot row's cache line is not bounced between cores.
     */
    void setMatched(long row) {
        long at = row + flagsOffset;
        byte flags = NativeMemory.getByte(at);
        if ((flags & MATCHED) == 0) {
            NativeMemory.putByte(at, (byte) (flags | MATCHED));
        }
    }

    boolean isNull(long row, int field) {
        if (flagsOffset < 0) {
            return false;
        }
        int bit = RowLayout.FIELD_BITS_SHIFT + field;
        return (NativeMemory.getByte(row + flagsOffset + (bit >>> 3)) & (1 << (bit & 7))) != 0;
    }

    /** Address of a fixed-width field's value. */
    long fixedAddress(long row, int field) {
        long key = row + dataOffset;
        return layout.isKey(field) ? key + layout.position(field) : key + keyLength(row) + layout.position(field);
    }

    /**
     * Writes the address of variable-width field {@code field}'s value (its int length) in each row of
     * {@code rows[0..count)} to {@code scratch}'s addresses (0 for a NULL value or a 0 row), walking on from the
     * scratch's cursors where they lie before the field in its region, else from the region's first value, and
     * leaves the cursors at the field's values ({@link GatherScratch}).
     */
    void variableAddresses(int field, long[] rows, int count, GatherScratch scratch) {
        boolean key = layout.isKey(field);
        int position = layout.position(field);
        int steps = scratch.stepsTo(key, position);
        boolean fromCursors = steps >= 0;
        int skip = fromCursors ? steps : position;
        long regionStart = dataOffset + (key ? keyFixed : layout.payloadFixedBytes());
        long[] at = scratch.addresses();
        long[] cursors = scratch.cursors();
        for (int j = 0; j < count; j++) {
            long row = rows[j];
            if (row == 0) {
                at[j] = 0;
                continue;
            }
            long value = RowLayout.skipValues(fromCursors ? cursors[j]
                    : row + regionStart + (key ? 0 : keyLength(row)), skip);
            cursors[j] = value;
            at[j] = isNull(row, field) ? 0 : value;
        }
        scratch.movedTo(key, position);
    }

    /** Width of a single fixed-width key (8, 4 or 1), 0 when the key is composite or variable-width. */
    int singleKeyWidth() {
        return singleKeyWidth;
    }

    /** Offset of the key region (where a single fixed-width key lies). */
    int keyOffset() {
        return dataOffset;
    }

    /** Whether the stored key of {@code row} equals {@code length} encoded key bytes of {@code key} from {@code start}. */
    boolean keyEquals(long row, byte[] key, int start, int length) {
        if (keyLength(row) != length) {
            return false;
        }
        long a = row + dataOffset;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (NativeMemory.getLong(a + i) != HashFunctions.longAt(key, start + i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (NativeMemory.getByte(a + i) != key[start + i]) {
                return false;
            }
        }
        return true;
    }
}
