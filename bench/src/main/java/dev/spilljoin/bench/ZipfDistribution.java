package dev.spilljoin.bench;

/**
 * Zipf(s = 1) over ranks {@code 1..n} with integer weights, bit-exact in any language (docs/WORKLOADS.md):
 * {@code w(r) = floor(2^40 / r)}, {@code C(r) = w(1) + ... + w(r)}, {@code T = C(n)}, and
 * {@code rank(u)} = the smallest {@code r} with {@code C(r) > u}, for {@code u} in {@code [0, T)}.
 *
 * <p>Holds the cumulative weights as one {@code long[n]} (index {@code r - 1} holds {@code C(r)}, strictly
 * increasing because every {@code w(r) >= 1} while {@code n <= 2^40}); {@link #rank} is a binary search over it.
 * {@code T < 2^40 * (ln n + 1)} fits a long for any int {@code n}.
 */
public final class ZipfDistribution {

    private static final long WEIGHT_NUMERATOR = 1L << 40;

    private final long[] cumulative;

    public ZipfDistribution(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("Zipf needs at least one rank, got n = " + n);
        }
        cumulative = new long[n];
        long sum = 0;
        for (int r = 1; r <= n; r++) {
            sum += WEIGHT_NUMERATOR / r;
            cumulative[r - 1] = sum;
        }
    }

    /** The number of ranks {@code n}. */
    public int ranks() {
        return cumulative.length;
    }

    /** {@code T = C(n)}, the total weight: draws are uniform in {@code [0, T)}. */
    public long totalWeight() {
        return cumulative[cumulative.length - 1];
    }

    /** {@code C(r)} for {@code r} in {@code [1, n]}. */
    public long cumulativeWeight(int r) {
        return cumulative[r - 1];
    }

    /** The smallest rank {@code r} with {@code C(r) > u}; {@code u} must lie in {@code [0, T)}. */
    public int rank(long u) {
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
