package dev.spilljoin.workloads;

/**
 * A Zipf distribution over ranks {@code 1..n}, sampled by inverse CDF: a table of the cumulative weights
 * {@code C(r) = w(1) + ... + w(r)} and {@link #rank}, the smallest {@code r} with {@code C(r) > u} for a draw
 * {@code u} in {@code [0, C(n))} (a binary search: no allocation, {@code O(log n)}). Two weightings:
 * <ul>
 *   <li>{@link #integerWeights}: Zipf(s = 1) of docs/WORKLOADS.md, bit-exact in any language:
 *   {@code w(r) = floor(2^40 / r)}, {@code T = C(n)}, draws are integers in {@code [0, T)}.</li>
 *   <li>{@link #ofExponent}: Zipf(s) for tests, {@code w(r) = 1 / r^s} summed in double and divided by the sum,
 *   so that {@code C(n) = 1} and draws are uniform doubles in {@code [0, 1)}.</li>
 * </ul>
 *
 * <p>Invariants: {@code C} is non-decreasing and {@code C(n)} is the total weight. The table is a {@code double[n]}
 * for both: an integer weight sum is below {@code 2^40 * (ln n + 1) < 2^45} for any int {@code n}, so a double holds
 * every {@code C(r)} exactly, an integer draw below {@code 2^53} converts to double exactly, and {@code rank} of an
 * integer draw is the exact integer comparison WORKLOADS.md defines.
 */
public final class ZipfDistribution {

    /** The numerator of the integer weights {@code floor(2^40 / r)}: every weight is at least 1 for any int rank. */
    private static final long WEIGHT_NUMERATOR = 1L << 40;

    /** Index {@code r - 1} holds {@code C(r)}. */
    private final double[] cumulative;

    private ZipfDistribution(double[] cumulative) {
        this.cumulative = cumulative;
    }

    /** Zipf(s = 1) of docs/WORKLOADS.md over {@code n} ranks, with the integer weights {@code floor(2^40 / r)}. */
    public static ZipfDistribution integerWeights(int n) {
        double[] cumulative = table(n);
        long sum = 0;
        for (int r = 1; r <= n; r++) {
            sum += WEIGHT_NUMERATOR / r;
            cumulative[r - 1] = sum;
        }
        return new ZipfDistribution(cumulative);
    }

    /** Zipf(s) over {@code n} ranks: rank {@code r} with probability proportional to {@code 1 / r^s}. */
    public static ZipfDistribution ofExponent(int n, double s) {
        double[] cumulative = table(n);
        double sum = 0;
        for (int r = 1; r <= n; r++) {
            sum += 1.0 / Math.pow(r, s);
            cumulative[r - 1] = sum;
        }
        for (int i = 0; i < n; i++) {
            cumulative[i] /= sum;
        }
        return new ZipfDistribution(cumulative);
    }

    private static double[] table(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("Zipf needs at least one rank, got n = " + n);
        }
        return new double[n];
    }

    /** The number of ranks {@code n}. */
    public int ranks() {
        return cumulative.length;
    }

    /** {@code C(n)}, the total weight: draws are uniform in {@code [0, C(n))} ({@code T} of integer weights, else 1). */
    public double totalWeight() {
        return cumulative[cumulative.length - 1];
    }

    /** {@code C(r)} for {@code r} in {@code [1, n]}. */
    public double cumulativeWeight(int r) {
        return cumulative[r - 1];
    }

    /**
     * The smallest rank {@code r} with {@code C(r) > u}, for a draw {@code u} in {@code [0, C(n))}; a draw at or above
     * {@code C(n)} gets rank {@code n}. A {@code long} draw of integer weights converts to double exactly (class comment).
     */
    public int rank(double u) {
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] > u) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo + 1;
    }
}
