package dev.spilljoin.operator.row;

import dev.spilljoin.spill.NativeMemory;

/**
 * The on-disk encoding of spilled rows: a {@link RowLayout} row without what only matters in memory (the NEXT
 * link, the key length, the alignment padding, and the row length when every field is fixed-width). Every spill
 * file holds rows of one side in this format; spilled rows are encoded from in-memory rows as they are appended to
 * their file, and expanded back into in-memory rows (build side, or the probe side of a reversed pair) or gathered
 * straight into a batch's columns (streamed side) when read.
 *
 * <pre>
 * offset  size  field
 *   0      8    hash        the key's 64-bit hash H, as stored in the in-memory row
 *   8      cb   bits        a little-endian bit string: bit 0 MATCHED, bit 1 NULL_KEY, bit 2 + f = field f is NULL;
 *                           cb = ceil((2 + fields) / 8), so one byte for up to 6 fields
 *   8+cb   4    rowLength   total bytes of the encoded row; only in variable-width layouts (some field is
 *                           VARCHAR or VARBINARY), fixed-width layouts have one row length for every row
 *   H           body        the in-memory row's key region then payload region, byte for byte, unpadded
 *                           (H = 8 + cb, plus 4 in variable-width layouts)
 * </pre>
 *
 * <p>A (BIGINT key, BIGINT payload) row is 8 + 1 + 16 = 25 bytes (48 in memory). The key length, which the
 * in-memory row stores, is recomputed from the body: the fixed key bytes plus the variable key fields' lengths.
 *
 * <p>Invariants: an encoded row is never longer than its in-memory row (its header is at least 12 bytes shorter and
 * its body is the same), so a row can be encoded in place, over itself; encoding and expansion are exact inverses
 * (the NEXT link of an expanded row is 0). Walking rows needs only {@link #rowLength} and the fixed offsets of the
 * hash and the bits, which is all re-partitioning and the nested-loop path read.
 */
public final class SpillRowFormat {
    public static final int HASH = 0;
    public static final int BITS = 8;
    private static final int FIELD_BITS_SHIFT = 2;
    /** The shortest encoded row: a hash, one byte of bits and a one-byte (BOOLEAN) key. */
    public static final int MIN_ROW_BYTES = 8 + 1 + 1;
    /** Bodies up to this many bytes are copied word by word rather than with one block copy. */
    private static final int SMALL_COPY = 64;

    private final RowLayout layout;
    private final int bitBytes;
    private final boolean variableWidth;
    private final boolean variableKey;
    /** Offset of the body in an encoded row. */
    private final int headerBytes;
    /** The encoded length of every row when the layout is fixed-width, else -1. */
    private final int fixedLength;
    /** Bytes an in-memory row's header has more than an encoded row's. */
    private final int headerGrowth;

    public SpillRowFormat(RowLayout layout) {
        this.layout = layout;
        int fields = layout.fieldCount();
        this.bitBytes = (FIELD_BITS_SHIFT + fields + 7) >>> 3;
        boolean anyVariable = false;
        boolean anyVariableKey = false;
        for (int f = 0; f < fields; f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                anyVariable = true;
                anyVariableKey |= layout.isKey(f);
            }
        }
        this.variableWidth = anyVariable;
        this.variableKey = anyVariableKey;
        this.headerBytes = BITS + bitBytes + (anyVariable ? 4 : 0);
        this.fixedLength = anyVariable ? -1 : headerBytes + layout.keyFixedBytes() + layout.payloadFixedBytes();
        this.headerGrowth = layout.keyOffset() - headerBytes;
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
        return variableWidth ? NativeMemory.getInt(row + BITS + bitBytes) : fixedLength;
    }

    public static long hash(long row) {
        return NativeMemory.getLong(row + HASH);
    }

    /** The row's MATCHED and NULL_KEY flags ({@link RowLayout#MATCHED}, {@link RowLayout#NULL_KEY}). */
    public static byte flags(long row) {
        return (byte) (NativeMemory.getByte(row + BITS) & (RowLayout.MATCHED | RowLayout.NULL_KEY));
    }

    public static boolean hasNullKey(long row) {
        return (NativeMemory.getByte(row + BITS) & RowLayout.NULL_KEY) != 0;
    }

    public static boolean isMatched(long row) {
        return (NativeMemory.getByte(row + BITS) & RowLayout.MATCHED) != 0;
    }

    public static void setMatched(long row) {
        NativeMemory.putByte(row + BITS, (byte) (NativeMemory.getByte(row + BITS) | RowLayout.MATCHED));
    }

    private static boolean isNull(long row, int field) {
        int bit = FIELD_BITS_SHIFT + field;
        return (NativeMemory.getByte(row + BITS + (bit >>> 3)) & (1 << (bit & 7))) != 0;
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
     * its int length), or 0 where the field is NULL: the input of {@link RowReader#gatherValues}.
     */
    public void valueAddresses(int field, long[] rows, int count, long[] out) {
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
        int regionStart = key ? layout.keyFixedBytes() : layout.payloadFixedBytes();
        for (int j = 0; j < count; j++) {
            if (isNull(rows[j], field)) {
                out[j] = 0;
                continue;
            }
            long body = rows[j] + headerBytes;
            long p = body + (key ? 0 : keyLength(body)) + regionStart;
            for (int skip = pos; skip > 0; skip--) {
                p += 4 + NativeMemory.getInt(p);
            }
            out[j] = p;
        }
    }

    // ---- encoding an in-memory row

    /** The encoded length of the in-memory ({@link RowLayout}) row at {@code row}. */
    public int encodedLength(long row) {
        if (!variableWidth) {
            return fixedLength;
        }
        long p = row + layout.keyOffset() + RowLayout.keyLength(row) + layout.payloadFixedBytes();
        for (int f = layout.keyCount(); f < layout.fieldCount(); f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                p += 4 + NativeMemory.getInt(p);
            }
        }
        return (int) (p - row - headerGrowth);
    }

    /**
     * Writes the in-memory row at {@code row} encoded ({@code length} = {@link #encodedLength} bytes) at
     * {@code target}, which may be {@code row} itself (every byte is read before a byte at or after it is written).
     */
    public void encode(long row, long target, int length) {
        NativeMemory.putLong(target + HASH, RowLayout.hash(row));
        int carry = RowLayout.flags(row) & (RowLayout.MATCHED | RowLayout.NULL_KEY);
        int nullBytes = layout.nullBytes();
        for (int j = 0; j < bitBytes; j++) {
            int nulls = j < nullBytes ? NativeMemory.getByte(row + RowLayout.NULLS + j) & 0xFF : 0;
            NativeMemory.putByte(target + BITS + j, (byte) ((nulls << FIELD_BITS_SHIFT) | carry));
            carry = nulls >>> (8 - FIELD_BITS_SHIFT);
        }
        if (variableWidth) {
            NativeMemory.putInt(target + BITS + bitBytes, length);
        }
        copyBody(row + layout.keyOffset(), target + headerBytes, length - headerBytes);
    }

    /**
     * Copies a body of {@code bytes} from {@code from} to {@code to}, where the ranges are disjoint or
     * {@code to < from}: small bodies, the common case, word by word in ascending order (right for an overlapping
     * copy towards lower addresses), others in one block copy (which handles overlap).
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

    /** The in-memory length of the encoded row at {@code row} of {@code length} bytes. */
    private int expandedLength(int length) {
        return (length + headerGrowth + 7) & ~7;
    }

    /** The most in-memory bytes {@code rows} encoded rows of {@code bytes} bytes in all can take. */
    public long expandedBytesBound(long bytes, long rows) {
        return variableWidth ? bytes + rows * (headerGrowth + 7) : rows * expandedLength(fixedLength);
    }

    /** The most in-memory bytes one encoded row of at most {@code largestRow} bytes can take. */
    public long expandedRowBound(long largestRow) {
        return variableWidth ? largestRow + headerGrowth + 7 : expandedLength(fixedLength);
    }

    /** The in-memory bytes the encoded rows of {@code [block, block + length)} take. */
    public long expandedBytes(long block, int length) {
        if (!variableWidth) {
            return (long) (length / fixedLength) * expandedLength(fixedLength);
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
        long body = row + headerBytes;
        NativeMemory.putInt(target + RowLayout.LENGTH, expanded);
        NativeMemory.putInt(target + RowLayout.KEY_LENGTH, keyLength(body));
        NativeMemory.putLong(target + RowLayout.HASH, hash(row));
        NativeMemory.putLong(target + RowLayout.NEXT, 0L);
        int bits = NativeMemory.getByte(row + BITS) & 0xFF;
        NativeMemory.putByte(target + RowLayout.FLAGS, (byte) (bits & (RowLayout.MATCHED | RowLayout.NULL_KEY)));
        for (int j = 0, nullBytes = layout.nullBytes(); j < nullBytes; j++) {
            int next = j + 1 < bitBytes ? NativeMemory.getByte(row + BITS + j + 1) & 0xFF : 0;
            NativeMemory.putByte(target + RowLayout.NULLS + j,
                    (byte) ((bits >>> FIELD_BITS_SHIFT) | (next << (8 - FIELD_BITS_SHIFT))));
            bits = next;
        }
        copyBody(body, target + layout.keyOffset(), length - headerBytes);
    }
}
