package dev.spilljoin.operator.table;

/**
 * The common stride of a set of keys, and exact division by it without a division instruction, for a
 * {@link DirectIndexTable} indexed by {@code (key - min) / stride}: keys that are all multiples of a step apart (a
 * timestamp at day or second precision, ids handed out in steps, a key times 10) then take a table over
 * {@code range / stride} values, where a range of every step would hold mostly holes or not fit at all.
 *
 * <p>Algorithm (Granlund and Montgomery, "Division by Invariant Integers using Multiplication", PLDI 1994, section 9):
 * the stride is {@code 2^shift * odd}. A difference {@code d} (taken as unsigned) is a multiple of the stride exactly
 * when its low {@code shift} bits are zero and {@code (d >>> shift) * inverse <= maxQuotient} (unsigned), where
 * {@code inverse} is the odd part's inverse modulo 2^64 and {@code maxQuotient = (2^64 - 1) / odd}: multiplying by the
 * inverse maps the multiples of the odd part onto {@code [0, maxQuotient]} one to one, so every other value lands
 * above it. For a multiple, that product is the quotient itself. A probe thus costs a shift, a multiply and two
 * compares; with stride 1 (shift 0, inverse 1) the quotient is the difference itself.
 *
 * <p>Invariants: {@code stride >= 0}; stride 0 stands for a single key value (only a zero difference divides);
 * {@code inverse * odd == 1} modulo 2^64.
 */
final class KeyStride {
    /** A stride of 1: every difference divides, and is its own quotient. */
    static final KeyStride ONE = of(1);

    private final long stride;
    private final int shift;
    private final long lowBits;
    private final long inverse;
    private final long maxQuotient;

    private KeyStride(long stride) {
        this.stride = stride;
        if (stride == 0) {
            shift = 0;
            lowBits = -1L; // only 0 has no bit set
            inverse = 1;
            maxQuotient = 0;
        } else {
            shift = Long.numberOfTrailingZeros(stride);
            lowBits = (1L << shift) - 1;
            long odd = stride >>> shift;
            long x = odd; // correct to 3 bits (odd * odd == 1 mod 8); each Newton step doubles them: 6, 12, 24, 48, 96
            for (int i = 0; i < 5; i++) {
                x *= 2 - odd * x;
            }
            inverse = x;
            maxQuotient = Long.divideUnsigned(-1L, odd);
        }
    }

    /** The stride {@code stride} (0: a single key value), taken as unsigned. */
    static KeyStride of(long stride) {
        return new KeyStride(stride);
    }

    /** The greatest common divisor of {@code a} and {@code b}, both taken as unsigned (gcd(0, b) = b). */
    static long gcd(long a, long b) {
        while (b != 0) {
            long r = Long.remainderUnsigned(a, b);
            a = b;
            b = r;
        }
        return a;
    }

    long stride() {
        return stride;
    }

    int shift() {
        return shift;
    }

    /** The low bits a multiple of the stride has clear. */
    long lowBits() {
        return lowBits;
    }

    long inverse() {
        return inverse;
    }

    /** Whether {@code difference} (unsigned) is a multiple of the stride. */
    boolean divides(long difference) {
        return (difference & lowBits) == 0 && Long.compareUnsigned(quotientOf(difference), maxQuotient) <= 0;
    }

    /**
     * {@code difference / stride} when the stride {@link #divides} it; otherwise above every range when the low bits
     * are clear, and anything when they are not (a probe checks them beside the range).
     */
    long quotientOf(long difference) {
        return (difference >>> shift) * inverse;
    }
}
