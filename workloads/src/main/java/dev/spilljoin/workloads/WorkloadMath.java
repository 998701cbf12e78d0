package dev.spilljoin.workloads;

/**
 * The integer functions of docs/WORKLOADS.md, bit-exact: every engine joins the very same rows because every
 * value is a pure function of (seed, row index).
 *
 * <p>All arithmetic is unsigned 64-bit modulo 2^64: Java's wrapping {@code long} multiply and add, {@code >>>}
 * for shifts, and {@link Long#remainderUnsigned} wherever a value may be negative as a signed long.
 */
public final class WorkloadMath {

    /** SplitMix64's state increment (the golden ratio in 64 bits). */
    static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    /** The multiplier of {@link #perm}: a prime larger than any row count, so {@code i -> i * P mod n} is a bijection. */
    static final long PERM_MULTIPLIER = 2654435761L;

    private WorkloadMath() {
    }

    /** SplitMix64's finalizer (Stafford's Mix13). */
    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** SplitMix64's (i+1)-th output from state {@code seed}. */
    public static long h(long seed, long i) {
        return mix64(seed + (i + 1) * GOLDEN_GAMMA);
    }

    /** A 31-bit payload, so that sums of {@code r.p + s.p} over 10^8 rows fit a signed long. */
    public static long payload(long seed, long i) {
        return h(seed, i) >>> 33;
    }

    /** A uniform value in {@code [0, m)}; {@code h >>> 1} is non-negative, so {@code %} is the unsigned remainder. */
    public static long uniform(long seed, long i, long m) {
        return (h(seed, i) >>> 1) % m;
    }

    /** A bijection of {@code [0, n)}: {@code (i * 2654435761) mod n}, the product taken modulo 2^64 unsigned. */
    public static long perm(long i, long n) {
        return Long.remainderUnsigned(i * PERM_MULTIPLIER, n);
    }
}
