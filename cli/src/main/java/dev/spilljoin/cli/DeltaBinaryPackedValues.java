package dev.spilljoin.cli;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesWriter;

/**
 * One page's INT32 or INT64 values as Parquet's DELTA_BINARY_PACKED: a header (the block size, 128 values; its
 * miniblocks, 4 of 32 values; the value count; the first value, zigzag), then for each block of 128 deltas between
 * consecutive values the smallest delta (zigzag), one bit width per miniblock, and each miniblock's deltas minus the
 * smallest packed at that width, least significant bit first. Written the way parquet-java's
 * {@code DeltaBinaryPackingValuesWriterForLong} and {@code ...ForInteger} write it, byte for byte where the format
 * leaves nothing open (the last block's unused miniblocks get width 0 here, and its padding values are zero bits).
 *
 * <p>Why our own: parquet-java's encoder packs each group of 8 values through a packer class per bit width (64 of
 * them) behind a virtual call, and a fresh JVM interprets and then compiles the packers each page's widths reach:
 * W1's Parquet output spent more of the JIT's time on them than on the join's probe (docs/PERFORMANCE.md). Here one
 * loop packs any width through a 64-bit accumulator, and {@link #writeLongs} takes a run of a column vector's values
 * in one call.
 *
 * <p>Invariants: {@code block[0 .. inBlock-1]} holds the deltas of the values after the first not yet in a block of
 * {@code body}; a block is packed as soon as it holds 128; an INT32 column's deltas are 32-bit (wrapping, as the
 * format's readers compute them), so their differences from the block's smallest fit 32 bits, an INT64 column's
 * 64-bit (wrapping). The page buffer is kept across pages ({@link #reset}).
 */
final class DeltaBinaryPackedValues extends ValuesWriter {
    static final int BLOCK_VALUES = 128;
    static final int MINIBLOCKS = 4;
    static final int MINIBLOCK_VALUES = BLOCK_VALUES / MINIBLOCKS;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** The most bytes one block takes: its smallest delta, its widths and four miniblocks of 64-bit deltas. */
    private static final int MAX_BLOCK_BYTES = 10 + MINIBLOCKS + BLOCK_VALUES * Long.BYTES;

    private final boolean int32;
    private final long[] block = new long[BLOCK_VALUES];
    private final int[] widths = new int[MINIBLOCKS];
    /** The page's header, made at {@link #getBytes} (read by the page writer before the next {@link #reset}). */
    private final byte[] header = new byte[4 * 10];
    private byte[] body;
    private int bodyBytes;
    private int inBlock;
    private int count;
    private long first;
    private long previous;

    /** An encoder of an INT32 column's values when {@code int32}, else of an INT64 column's. */
    DeltaBinaryPackedValues(boolean int32, int initialBytes) {
        this.int32 = int32;
        this.body = new byte[Math.max(initialBytes, MAX_BLOCK_BYTES)];
    }

    @Override
    public void writeInteger(int v) {
        writeLong(v);
    }

    @Override
    public void writeLong(long v) {
        if (count++ == 0) {
            first = v;
        } else {
            block[inBlock++] = v - previous;
            if (inBlock == BLOCK_VALUES) {
                packBlock();
            }
        }
        previous = v;
    }

    /** Values {@code from .. to-1} of {@code values} (an INT64 column's). */
    void writeLongs(long[] values, int from, int to) {
        int i = from;
        if (i < to && count == 0) {
            writeLong(values[i++]);
        }
        long last = previous;
        while (i < to) {
            int n = Math.min(to - i, BLOCK_VALUES - inBlock);
            for (int k = 0; k < n; k++) {
                long v = values[i + k];
                block[inBlock + k] = v - last;
                last = v;
            }
            i += n;
            count += n;
            inBlock += n;
            if (inBlock == BLOCK_VALUES) {
                packBlock();
            }
        }
        previous = last;
    }

    /** Packs the deltas in {@code block} (1 to 128 of them) into {@code body} as one block. */
    private void packBlock() {
        int n = inBlock;
        long min = Long.MAX_VALUE;
        for (int k = 0; k < n; k++) {
            long delta = int32 ? (int) block[k] : block[k];
            block[k] = delta;
            min = Math.min(min, delta);
        }
        Arrays.fill(block, n, BLOCK_VALUES, min);
        for (int m = 0; m < MINIBLOCKS; m++) { // a miniblock past the last delta holds padding only: width 0
            long bits = 0;
            for (int k = m * MINIBLOCK_VALUES; k < (m + 1) * MINIBLOCK_VALUES; k++) {
                bits |= block[k] - min;
            }
            widths[m] = Long.SIZE - Long.numberOfLeadingZeros(bits);
        }
        ensureRoom(MAX_BLOCK_BYTES);
        bodyBytes = writeUnsignedVarLong(body, bodyBytes, zigZag(min));
        for (int m = 0; m < MINIBLOCKS; m++) {
            body[bodyBytes++] = (byte) widths[m];
        }
        for (int m = 0; m < MINIBLOCKS; m++) {
            pack(m * MINIBLOCK_VALUES, widths[m], min);
        }
        inBlock = 0;
    }

    /**
     * One miniblock's 32 deltas from {@code from}, minus {@code min}, at {@code width} bits each (none at width 0:
     * without a branch for it, which a page's last block would be the first to take, costing a recompilation).
     */
    private void pack(int from, int width, long min) {
        long acc = 0;
        int accBits = 0;
        int at = bodyBytes;
        for (int k = from; k < from + MINIBLOCK_VALUES; k++) {
            long x = block[k] - min;
            acc |= x << accBits;
            accBits += width;
            if (accBits >= Long.SIZE) {
                LONGS.set(body, at, acc);
                at += Long.BYTES;
                accBits -= Long.SIZE;
                acc = accBits == 0 ? 0 : x >>> (width - accBits);
            }
        }
        if (accBits > 0) { // 32 values of an odd width end half way into a long
            INTS.set(body, at, (int) acc);
            at += Integer.BYTES;
        }
        bodyBytes = at;
    }

    private void ensureRoom(int bytes) {
        if (bodyBytes + bytes > body.length) {
            body = Arrays.copyOf(body, Math.max(body.length * 2, bodyBytes + bytes));
        }
    }

    @Override
    public BytesInput getBytes() {
        if (inBlock > 0) {
            packBlock();
        }
        int at = writeUnsignedVarLong(header, 0, BLOCK_VALUES);
        at = writeUnsignedVarLong(header, at, MINIBLOCKS);
        at = writeUnsignedVarLong(header, at, count);
        at = writeUnsignedVarLong(header, at, zigZag(first));
        return BytesInput.concat(BytesInput.from(header, 0, at), BytesInput.from(body, 0, bodyBytes));
    }

    /** {@code value} zigzag-encoded: small magnitudes, negative or not, become small unsigned numbers. */
    private static long zigZag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    /** Writes {@code value} as an unsigned LEB128 varint at {@code at}; returns the offset after it. */
    static int writeUnsignedVarLong(byte[] out, int at, long value) {
        while ((value & ~0x7FL) != 0) {
            out[at++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[at++] = (byte) value;
        return at;
    }

    @Override
    public long getBufferedSize() {
        return bodyBytes + (long) inBlock * (int32 ? Integer.BYTES : Long.BYTES);
    }

    @Override
    public Encoding getEncoding() {
        return Encoding.DELTA_BINARY_PACKED;
    }

    @Override
    public void reset() {
        count = 0;
        inBlock = 0;
        bodyBytes = 0;
        first = 0;
        previous = 0;
    }

    @Override
    public long getAllocatedSize() {
        return body.length;
    }

    @Override
    public String memUsageString(String prefix) {
        return prefix + " DELTA_BINARY_PACKED " + body.length + " bytes";
    }
}
