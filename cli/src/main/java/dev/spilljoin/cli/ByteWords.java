package dev.spilljoin.cli;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of a byte array at a time, for the CSV scans that look for a few byte values (delimiter, quote, line
 * ends): a little-endian long read from the array ({@link #word}, bounds-checked) and the exact zero-byte test of
 * "Bit Twiddling Hacks" on its XOR with a byte repeated eight times ({@link #matches}).
 *
 * <p>{@code matches} sets bit 7 of every byte of {@code word} that equals the pattern's byte and may also set it in a
 * byte above such a byte (a borrow), never in a byte below the first: so the mask is non-zero exactly when some byte
 * matches, and its lowest set bit ({@link #firstMatch}) is the first matching byte's.
 */
final class ByteWords {
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    /** The line ends every CSV scan looks for, in each byte of a long. */
    static final long LINE_FEEDS = repeated((byte) '\n');
    static final long CARRIAGE_RETURNS = repeated((byte) '\r');

    private ByteWords() {
    }

    /** {@code value} in each of the eight bytes of a long. */
    static long repeated(byte value) {
        return ONES * (value & 0xFF);
    }

    /** The eight bytes of {@code bytes} from {@code at}, the first one lowest. */
    static long word(byte[] bytes, int at) {
        return (long) WORDS.get(bytes, at);
    }

    /** Writes {@code word} into {@code bytes} from {@code at}, its lowest byte first. */
    static void putWord(byte[] bytes, int at, long word) {
        WORDS.set(bytes, at, word);
    }

    /**
     * Copies {@code src[from .. from + length)} to {@code dst[to ..]}, both ranges within their arrays: up to 16 bytes
     * by one or two words (overlapping in the middle from 8 bytes on), which costs less than an array copy for a
     * short value; below 8 bytes one word when both arrays have 8 bytes from there (the bytes after the value are
     * written too: callers own them, and later writes overwrite them), else byte by byte; longer values by
     * {@link System#arraycopy}.
     */
    static void copy(byte[] src, int from, byte[] dst, int to, int length) {
        if (length > 2 * Long.BYTES) {
            System.arraycopy(src, from, dst, to, length);
        } else if (length >= Long.BYTES) {
            putWord(dst, to, word(src, from));
            putWord(dst, to + length - Long.BYTES, word(src, from + length - Long.BYTES));
        } else if (src.length - from >= Long.BYTES && dst.length - to >= Long.BYTES) {
            putWord(dst, to, word(src, from));
        } else {
            for (int i = 0; i < length; i++) {
                dst[to + i] = src[from + i];
            }
        }
    }

    /** A mask whose lowest set bit marks the first byte of {@code word} equal to {@code pattern}'s; 0 when none is. */
    static long matches(long word, long pattern) {
        long x = word ^ pattern;
        return (x - ONES) & ~x & HIGHS;
    }

    /** The index (0-7) of the byte a non-zero {@link #matches} mask marks first. */
    static int firstMatch(long mask) {
        return Long.numberOfTrailingZeros(mask) >>> 3;
    }
}
