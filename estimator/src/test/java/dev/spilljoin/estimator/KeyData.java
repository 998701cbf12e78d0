package dev.spilljoin.estimator;

import java.util.SplittableRandom;

/** Key hashes for the sketch tests and the benchmark: keys mixed as the join mixes them. */
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
}
