package dev.spilljoin.estimator;

import java.util.SplittableRandom;

/** Key hashes for the sketch tests and the benchmark: keys mixed as the join mixes them, uniform or Zipf. */
final class KeyData {
    private KeyData() {
    }

    /** MurmurHash3's 64-bit finalizer: the strong mix the join applies to a key. */
    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    /** The seed of a randomized test: {@code -Dseed=} to replay, else fresh; printed either way. */
    static long seed(String test) {
        String given = System.getProperty("seed");
        long seed = given != null ? Long.parseLong(given) : new SplittableRandom().nextLong();
        System.out.println(test + ": seed " + seed + " (replay with -Dseed=" + seed + ")");
        return seed;
    }

    /** The hashes of keys 0..n-1 in a shuffled order: n distinct keys. */
    static long[] distinctHashes(int n, long seed) {
        long[] hashes = new long[n];
        long offset = new SplittableRandom(seed).nextLong();
        for (int i = 0; i < n; i++) {
            hashes[i] = fmix64(offset + i);
        }
        return hashes;
    }

    /** Zipf(s) over ranks 1..distinct: rank r is drawn with probability proportional to r^-s (inverse CDF). */
    static final class Zipf {
        private final double[] cumulative;

        Zipf(int distinct, double s) {
            cumulative = new double[distinct];
            double sum = 0;
            for (int r = 1; r <= distinct; r++) {
                sum += Math.pow(r, -s);
                cumulative[r - 1] = sum;
            }
            for (int i = 0; i < distinct; i++) {
                cumulative[i] /= sum;
            }
        }

        /** The probability of rank r (1-based). */
        double probability(int rank) {
            return cumulative[rank - 1] - (rank == 1 ? 0 : cumulative[rank - 2]);
        }

        /** A rank in 1..distinct for the uniform draw u in [0, 1). */
        int rank(double u) {
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

        /** {@code rows} ranks drawn with {@code random}. */
        int[] ranks(int rows, SplittableRandom random) {
            int[] ranks = new int[rows];
            for (int i = 0; i < rows; i++) {
                ranks[i] = rank(random.nextDouble());
            }
            return ranks;
        }
    }
}
