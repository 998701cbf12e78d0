package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Bitmaps;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesWriter;

/**
 * One data page's definition levels of an OPTIONAL column of a flat schema (1 for a value, 0 for a NULL), kept as a
 * bitmap and encoded at the page's end as a data page V1 holds them: a 4-byte little-endian length, then Parquet's
 * RLE/bit-packing hybrid at bit width 1. A run of 8 or more equal levels is one RLE run (its length, then the level
 * in a byte); anything else is bit-packed, 8 levels a byte, up to 63 groups of 8 under one header, as parquet-java's
 * encoder bounds them. A page of no NULLs is one RLE run, 3 to 5 bytes.
 *
 * <p>Why our own: parquet-java's encoder takes the levels one call at a time through a state machine; here a column
 * vector's run of values without NULLs is {@link #writeDefined} once.
 *
 * <p>Invariants: bits {@code 0 .. count-1} are the page's levels and every bit after them is 0 (so a last bit-packed
 * group is padded with zeros); the bitmap is kept across pages ({@link #reset}).
 */
final class DefinitionLevelBits extends ValuesWriter {
    private static final int MAX_GROUPS = 63;

    private long[] bits = new long[16];
    private int count;
    private byte[] encoded = new byte[64];

    @Override
    public void writeInteger(int level) {
        ensureRoomFor(count + 1);
        if (level != 0) {
            Bitmaps.set(bits, count);
        }
        count++;
    }

    /** {@code n} levels of 1 (values, no NULL). */
    void writeDefined(int n) {
        int end = count + n;
        ensureRoomFor(end);
        int at = count;
        while (at < end) {
            int word = at >>> 6;
            int take = Math.min(end - at, Long.SIZE - (at & 63));
            long ones = take == Long.SIZE ? -1L : ((1L << take) - 1) << (at & 63);
            bits[word] |= ones;
            at += take;
        }
        count = end;
    }

    /** Grows the bitmap to hold {@code levels} levels and one word more (which {@link #byteAt} may read). */
    private void ensureRoomFor(int levels) {
        int words = (levels >>> 6) + 2;
        if (words > bits.length) {
            bits = Arrays.copyOf(bits, Math.max(bits.length * 2, words));
        }
    }

    @Override
    public BytesInput getBytes() {
        int capacity = Integer.BYTES + 2 * (count / 8 + 2) + 10;
        if (encoded.length < capacity) {
            encoded = new byte[capacity];
        }
        int at = Integer.BYTES;
        int i = 0;
        while (i < count) {
            int run = runLength(i);
            if (run >= 8) {
                at = DeltaBinaryPackedValues.writeUnsignedVarLong(encoded, at, (long) run << 1);
                encoded[at++] = (byte) (Bitmaps.isSet(bits, i) ? 1 : 0);
                i += run;
                continue;
            }
            int groups = 0;
            int headerAt = at++;
            do {
                encoded[at++] = byteAt(i);
                groups++;
                i += 8;
            } while (i < count && groups < MAX_GROUPS && runLength(i) < 8);
            encoded[headerAt] = (byte) (groups << 1 | 1);
        }
        int length = at - Integer.BYTES;
        encoded[0] = (byte) length;
        encoded[1] = (byte) (length >>> 8);
        encoded[2] = (byte) (length >>> 16);
        encoded[3] = (byte) (length >>> 24);
        return BytesInput.from(encoded, 0, at);
    }


    /** How many levels from {@code i} on (at most to {@code count}) equal level {@code i}. */
    private int runLength(int i) {
        long flip = Bitmaps.isSet(bits, i) ? -1L : 0L;
        int at = i;
        while (at < count) {
            long differ = (bits[at >>> 6] ^ flip) >>> (at & 63);
            if (differ != 0) {
                at += Long.numberOfTrailingZeros(differ);
                break;
            }
            at += Long.SIZE - (at & 63);
        }
        return Math.min(at, count) - i;
    }

    /** The 8 levels from {@code i} as a byte, level {@code i} its lowest bit. */
    private byte byteAt(int i) {
        int word = i >>> 6;
        int shift = i & 63;
        long x = bits[word] >>> shift;
        if (shift > Long.SIZE - 8) {
            x |= bits[word + 1] << (Long.SIZE - shift);
        }
        return (byte) x;
    }

    @Override
    public long getBufferedSize() {
        return (count + 7) / 8;
    }

    @Override
    public Encoding getEncoding() {
        return Encoding.RLE;
    }

    @Override
    public void reset() {
        Arrays.fill(bits, 0, (count >>> 6) + 1, 0L);
        count = 0;
    }

    @Override
    public long getAllocatedSize() {
        return (long) bits.length * Long.BYTES + encoded.length;
    }

    @Override
    public String memUsageString(String prefix) {
        return prefix + " definition levels " + getAllocatedSize() + " bytes";
    }
}
