package dev.spilljoin.operator.row;

import dev.spilljoin.spill.NativeMemory;

/**
 * The on-disk encoding of spilled rows: a {@link RowLayout} row without what only matters in memory (a row's key
 * length and alignment padding, which only rows with a variable-width key field carry). Every
 * spill file holds rows of one side in this format; spilled rows are encoded from in-memory rows as they are appended
 * to their file, and expanded back into in-memory rows (build side, or the probe side of a reversed pair) or gathered
 * straight into a batch's columns (streamed side) when read.
 *
 * <pre>
 * fixed-width layouts: the in-memory row itself, byte for byte ([bits cb][key region][payload region])
 * variable-width layouts whose key fields are all fixed-width (e.g. a BIGINT key, a VARCHAR payload): the in-memory
 *   row itself, byte for byte:
 *   0      4    rowLength
 *   4      cb   bits
 *   4+cb        body
 * variable-width layouts with a variable-width key field:
 *   0      4    rowLength   total bytes of the encoded row
 *   4      8    hash        the key's 64-bit hash H, as stored in the in-memory row
 *  12      cb   bits        as in the in-memory row: bit 0 MATCHED, bit 1 NULL_KEY, bit 2 + f = field f is NULL
 *  12+cb        body        the in-memory row's key region then payload region, byte for byte, unpadded
 * </pre>
 *
 * <p>A (BIGINT key, BIGINT payload) row is 1 + 16 = 17 bytes; a (BIGINT key, 10-byte VARCHAR payload) row 4 + 1 + 8 +
 * 4 + 10 = 27. The key length, which an in-memory row with a variable-width key stores, is recomputed from the body:
 * the fixed key bytes plus the variable key fields' lengths. A hash is stored only with a variable-width key, being
 * costly to hash again; others are recomputed from the key fields ({@link RowLayout#hash}'s way: a multiply and a mix
 * per field, cheaper than 8 bytes written and read back).
 *
 * <p>Invariants: an encoded row is never longer than its in-memory row (with a variable-width key it is the in-memory
 * row less its 4-byte key length and padding, moved towards its start; otherwise the same bytes), so a row can be
 * encoded in place, over itself;
 * encoding and expansion are exact inverses. Walking rows needs only {@link #rowLength}, {@link #hash} and
 * {@link #flags}, which is all re-partitioning and the nested-loop path read.
 */
public final class SpillRowFormat {
    /** The shortest encoded row: one byte of bits and a one-byte (BOOLEAN) key. */
    public static final int MIN_ROW_BYTES = 1 + 1;
    /** Offset of the hash in a variable-width encoded row that stores it: after the row's length. */
    private static final int VARIABLE_HASH = Integer.BYTES;
    /** Bodies up to this many bytes are copied word by word rather than with one block copy. */
    private static final int SMALL_COPY = 64;

    private final RowLayout layout;
    private final boolean variableWidth;
    /** Whether a key field is variable-width (the row then is too): an encoded row then stores its hash. */
    private final boolean variableKey;
    /**
     * The bytes a variable-width row loses when encoded (its key length, stored only with a variable-width key): how
     * much nearer its start an encoded row's bits lie than an in-memory row's.
     */
    private final int saving;
    /** Offset of the bits in an encoded row. */
    private final int bitsOffset;
    /** Offset of the body in an encoded row. */
    private final int headerBytes;
    /** The encoded length of every row when the layout is fixed-width, else -1. */
    private final int fixedLength;

    public SpillRowFormat(RowLayout layout) {
        this.layout = layout;
        this.variableWidth = layout.isVariableWidth();
        this.variableKey = layout.hasVariableKey();
        this.bitsOffset = !variableWidth ? 0 : variableKey ? VARIABLE_HASH + Long.BYTES : Integer.BYTES;
        this.saving = layout.bitsOffset() - bitsOffset;
        this.headerBytes = bitsOffset + layout.bitBytes();
        this.fixedLength = variableWidth ? -1 : layout.fixedRowLength();
    }

    public RowLayout layout() {
        return layout;
    }

    /** Offset of the body (key region, then payload region) in an encoded row. */
    public int headerBytes() {
        return headerBytes;
    }

    public boolean isFixedWidth() {
        return !variableWidth;
    }

    // ---- reading an encoded row at an address

    public int rowLength(long row) {
        return variableWidth ? NativeMemory.getInt(row) : fixedLength;
    }

    /** The key hash H: stored with a variable-width key, recomputed from fixed-width key fields. */
    public long hash(long row) {
        return variableKey ? NativeMemory.getLong(row + VARIABLE_HASH) : layout.keyHash(row + headerBytes);
    }

    /** The row's MATCHED and NULL_KEY flags ({@link RowLayout#MATCHED}, {@link RowLayout#NULL_KEY}). */
    public byte flags(long row) {
        return (byte) (NativeMemory.getByte(row + bitsOffset) & (RowLayout.MATCHED | RowLayout.NULL_KEY));
    }

    public boolean hasNullKey(long row) {
        return (NativeMemory.getByte(row + bitsOffset) & RowLayout.NULL_KEY) != 0;
    }

    public boolean isMatched(long row) {
        return (NativeMemory.getByte(row + bitsOffset) & RowLayout.MATCHED) != 0;
    }

    public void setMatched(long row) {
        NativeMemory.putByte(row + bitsOffset, (byte) (NativeMemory.getByte(row + bitsOffset) | RowLayout.MATCHED));
    }

    private boolean isNull(long row, int field) {
        int bit = RowLayout.FIELD_BITS_SHIFT + field;
        return (NativeMemory.getByte(row + bitsOffset + (bit >>> 3)) & (1 << (bit & 7))) != 0;
    }

    /** The key region's length of the encoded row whose body starts at {@code body}. */
    private int keyLength(long body) {
        if (!variableKey) {
            return layout.keyFixedBytes();
        }
        long p = body + layout.keyFixedBytes();
        for (int f = 0; f < layout.keyCount(); f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                p += 4 + NativeMemory.getInt(p);
            }
        }
        return (int) (p - body);
    }

    /**
     * For rows {@code rows[0..count)}, the address of field {@code field}'s value (for a variable-width field, of
     * its int length), or 0 where the field is NULL, into {@code scratch}'s addresses: the input of
     * {@link RowReader#gatherValues}. A variable-width field's values are found from the scratch's cursors where they
     * lie before it in its region, else from the region's first value, and the cursors left at them
     * ({@link GatherScratch}): fields gathered in order walk over a row's variable-width values once.
     */
    public void valueAddresses(int field, long[] rows, int count, GatherScratch scratch) {
        long[] out = scratch.addresses();
        boolean key = layout.isKey(field);
        int pos = layout.position(field);
        if (!layout.fieldType(field).isVariableWidth()) {
            if (key || !variableKey) {
                int offset = headerBytes + (key ? 0 : layout.keyFixedBytes()) + pos;
                for (int j = 0; j < count; j++) {
                    out[j] = isNull(rows[j], field) ? 0 : rows[j] + offset;
                }
            } else {
                for (int j = 0; j < count; j++) {
                    long body = rows[j] + headerBytes;
                    out[j] = isNull(rows[j], field) ? 0 : body + keyLength(body) + pos;
                }
            }
            return;
        }
        int regionStart = headerBytes + (key ? layout.keyFixedBytes() : layout.payloadFixedBytes());
        int steps = scratch.stepsTo(key, pos);
        boolean fromCursors = steps >= 0;
        int skip = fromCursors ? steps : pos;
        long[] cursors = scratch.cursors();
        for (int j = 0; j < count; j++) {
            long row = rows[j];
            long value = RowLayout.skipValues(fromCursors ? cursors[j]
                    : row + regionStart + (key ? 0 : keyLength(row + headerBytes)), skip);
            cursors[j] = value;
            out[j] = isNull(row, field) ? 0 : value;
        }
        scratch.movedTo(key, pos);
    }

    // ---- encoding an in-memory row

    /** The encoded length of the in-memory ({@link RowLayout}) row at {@code row}. */
    public int encodedLength(long row) {
        if (!variableKey) {
            return layout.rowLength(row);
        }
        long p = row + layout.keyOffset() + layout.keyLength(row) + layout.payloadFixedBytes();
        for (int f = layout.keyCount(); f < layout.fieldCount(); f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                p += 4 + NativeMemory.getInt(p);
            }
        }
        return (int) (p - row) - saving;
    }

    /**
     * Writes the in-memory row at {@code row} encoded ({@code length} = {@link #encodedLength} bytes) at
     * {@code target}, which may be {@code row} itself (every byte is read before a byte at or after it is written).
     */
    public void encode(long row, long target, int length) {
        if (!variableKey) {
            if (target != row) {
                copyBody(row, target, length);
            }
            return;
        }
        NativeMemory.putInt(target, length);
        copyBody(row + 4 + saving, target + 4, length - 4);
    }

    /**
     * Copies {@code bytes} from {@code from} to {@code to}, where the ranges are disjoint or {@code to < from}: small
     * bodies, the common case, word by word in ascending order (right for an overlapping copy towards lower
     * addresses), others in one block copy (which handles overlap).
     */
    private static void copyBody(long from, long to, int bytes) {
        if (bytes > SMALL_COPY) {
            NativeMemory.copy(from, to, bytes);
            return;
        }
        int i = 0;
        for (; i + 8 <= bytes; i += 8) {
            NativeMemory.putLong(to + i, NativeMemory.getLong(from + i));
        }
        for (; i < bytes; i++) {
            NativeMemory.putByte(to + i, NativeMemory.getByte(from + i));
        }
    }

    // ---- expanding an encoded row into an in-memory row

    /** The in-memory length of an encoded row of {@code length} bytes. */
    private int expandedLength(int length) {
        return variableKey ? layout.paddedLength(length + saving) : length;
    }

    /** The most in-memory bytes {@code rows} encoded rows of {@code bytes} bytes in all can take. */
    public long expandedBytesBound(long bytes, long rows) {
        return variableKey ? bytes + rows * (saving + 7) : bytes;
    }

    /** The most in-memory bytes one encoded row of at most {@code largestRow} bytes can take. */
    public long expandedRowBound(long largestRow) {
        return variableKey ? largestRow + saving + 7 : variableWidth ? largestRow : fixedLength;
    }

    /** The in-memory bytes the encoded rows of {@code [block, block + length)} take. */
    public long expandedBytes(long block, int length) {
        if (!variableKey) {
            return length;
        }
        long bytes = 0;
        for (long row = block, end = block + length; row < end; ) {
            int rowLength = rowLength(row);
            bytes += expandedLength(rowLength);
            row += rowLength;
        }
        return bytes;
    }

    /**
     * Expands the encoded rows of {@code [block, block + length)} into in-memory rows in {@code arena}; false if the
     * arena was refused a page (the rows before it stay in the arena).
     */
    public boolean expandBlock(RowArena arena, long block, int length) {
        for (long row = block, end = block + length; row < end; ) {
            int rowLength = rowLength(row);
            int expanded = expandedLength(rowLength);
            long target = arena.tryAllocate(expanded);
            if (target == 0) {
                return false;
            }
            expand(row, rowLength, target, expanded);
            row += rowLength;
        }
        return true;
    }

    private void expand(long row, int length, long target, int expanded) {
        if (!variableKey) {
            copyBody(row, target, length);
            return;
        }
        NativeMemory.putInt(target, expanded);
        NativeMemory.putInt(target + 4, keyLength(row + headerBytes));
        copyBody(row + 4, target + 4 + saving, length - 4);
    }
}
