package dev.spilljoin.cli;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * One form per value for a Parquet DECIMAL, whatever its physical type, so that equal decimals are equal keys.
 *
 * <p>A DECIMAL(p, s) may be stored as INT32, INT64, FIXED_LEN_BYTE_ARRAY(n) or BINARY (big-endian two's
 * complement of the unscaled value). Bytes have many encodings of one value: a FIXED_LEN_BYTE_ARRAY's width is the
 * writer's choice, and a BINARY value may carry any number of sign bytes in front (0x01 and 0x0001, -1 as 0xFF and
 * 0xFFFF), which compared as bytes would not join. So a DECIMAL is held as:
 * <ul>
 *   <li>its unscaled value in a long (BIGINT) when stored as an integer, or when its precision is at most 18 (any
 *       value of 18 digits fits), from whichever physical type ({@link #heldAsLong});</li>
 *   <li>otherwise its unscaled value's minimal big-endian two's complement (VARBINARY: no sign byte that the next
 *       byte's top bit repeats, zero as one 0x00), so that equal values are equal bytes whatever their width.</li>
 * </ul>
 * A stored value longer than any value of the precision needs ({@link #maxBytes}) is refused as not that DECIMAL,
 * as is a value stored in INT32 or INT64 that needs more bytes than that
 * ({@link ColumnChunkReader}), which keeps every held value within a FIXED_LEN_BYTE_ARRAY or INT32 column of the same
 * DECIMAL when written back ({@link ColumnChunkWriter}). No object per value.
 */
final class ParquetDecimal {
    /** The most digits a long holds whatever they are. */
    static final int LONG_DIGITS = 18;

    private ParquetDecimal() {
    }

    /** {@code type}'s DECIMAL annotation, or null when it is not a DECIMAL. */
    static DecimalLogicalTypeAnnotation of(PrimitiveType type) {
        return type.getLogicalTypeAnnotation() instanceof DecimalLogicalTypeAnnotation decimal ? decimal : null;
    }

    /** Whether {@code type} is a DECIMAL stored as bytes (FIXED_LEN_BYTE_ARRAY or BINARY). */
    static boolean inBytes(PrimitiveType type) {
        PrimitiveTypeName physical = type.getPrimitiveTypeName();
        return of(type) != null
                && (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || physical == PrimitiveTypeName.BINARY);
    }

    /** Whether {@code type} is a DECIMAL held as its unscaled long: stored as an integer, or of at most 18 digits. */
    static boolean heldAsLong(PrimitiveType type) {
        DecimalLogicalTypeAnnotation decimal = of(type);
        return decimal != null && (!inBytes(type) || decimal.getPrecision() <= LONG_DIGITS);
    }

    /** The fewest bytes of two's complement that hold every unscaled value of {@code precision} digits. */
    static int maxBytes(int precision) {
        BigInteger largest = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return largest.bitLength() / 8 + 1; // one bit more for the sign
    }

    /**
     * The index of the first byte of the minimal form of the two's complement value {@code bytes[from .. to)}
     * (at least one byte): the sign bytes in front that the next byte's top bit repeats are skipped.
     */
    static int minimalStart(ByteBuffer bytes, int from, int to) {
        int i = from;
        while (i < to - 1) {
            byte sign = bytes.get(i);
            if ((sign != 0 || bytes.get(i + 1) < 0) && (sign != -1 || bytes.get(i + 1) >= 0)) {
                break;
            }
            i++;
        }
        return i;
    }

    /**
     * The unscaled value the stored decimal {@code value} (its position to its limit) holds in its minimal form from
     * {@code start} ({@link #minimalStart}); empty is 0.
     */
    static long toLong(ByteBuffer value, int start) {
        int end = value.limit();
        if (start == end) {
            return 0;
        }
        long result = value.get(start); // sign-extended
        for (int i = start + 1; i < end; i++) {
            result = result << 8 | (value.get(i) & 0xFF);
        }
        return result;
    }

    /**
     * Refuses a stored value whose minimal form is {@code length} bytes, more than any value of {@code type}'s
     * precision needs ({@code max}, {@link #maxBytes}): it is not a value of that DECIMAL.
     */
    static void checkLength(int length, int max, PrimitiveType type) {
        if (length > max) {
            throw new BeyondPrecision("column '" + type.getName() + "' holds a value of " + length + " bytes, more"
                    + " than any " + type.getLogicalTypeAnnotation() + " needs (" + max + "): not a value of its"
                    + " type; write the file again with the values within the column's precision");
        }
    }

    /** A stored value that is not one of its DECIMAL's: the reader names the file ({@link ParquetBatchSource}). */
    static final class BeyondPrecision extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BeyondPrecision(String message) {
            super(message);
        }
    }

    /**
     * Writes {@code unscaled} into {@code out} as big-endian two's complement of {@code width} bytes, or, with
     * {@code width} 0, of the fewest bytes that hold it; returns the length written.
     */
    static int write(long unscaled, byte[] out, int width) {
        int length = width == 0 ? minimalLength(unscaled) : width;
        long rest = unscaled;
        for (int i = length - 1; i >= 0; i--) {
            out[i] = (byte) rest;
            rest >>= 8; // past 8 bytes: the sign
        }
        return length;
    }

    /** The fewest bytes of two's complement that hold {@code unscaled}. */
    static int minimalLength(long unscaled) {
        return (64 - Long.numberOfLeadingZeros(unscaled < 0 ? ~unscaled : unscaled)) / 8 + 1;
    }

    /**
     * Copies the two's complement value {@code bytes[from .. from + length)} into {@code out} as {@code width}
     * bytes, the sign repeated in front; {@code length} must be at most {@code width}.
     */
    static void signExtend(byte[] bytes, int from, int length, byte[] out, int width) {
        byte sign = length > 0 && bytes[from] < 0 ? (byte) -1 : 0;
        for (int i = 0; i < width - length; i++) {
            out[i] = sign;
        }
        System.arraycopy(bytes, from, out, width - length, length);
    }

    /** Whether the big-endian two's complement {@code bytes[from .. from + length)} is within a long. */
    static boolean fitsLong(byte[] bytes, int from, int length) {
        if (length <= 8) {
            return true;
        }
        byte sign = bytes[from + length - 8] < 0 ? (byte) -1 : 0;
        for (int i = from; i < from + length - 8; i++) {
            if (bytes[i] != sign) {
                return false;
            }
        }
        return true;
    }

    /** The big-endian two's complement {@code bytes[from .. from + length)} (within a long; none is 0). */
    static long bigEndian(byte[] bytes, int from, int length) {
        if (length == 0) {
            return 0;
        }
        int first = from + Math.max(0, length - 8);
        long value = bytes[first]; // sign-extended
        for (int i = first + 1; i < from + length; i++) {
            value = value << 8 | (bytes[i] & 0xFF);
        }
        return value;
    }
}
