package dev.spilljoin.cli;

import java.util.SplittableRandom;

/** Seeded randomness for tests: the seed is {@code -Dseed=} if given, else fresh; it is always printed to replay. */
final class SeededRandom {
    private SeededRandom() {
    }

    /** A random source from {@link #seed}. */
    static SplittableRandom create(String test) {
        return new SplittableRandom(seed(test));
    }

    /** The seed for {@code test}, printed with how to replay it (for tests that name it in their messages too). */
    static long seed(String test) {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println(test + ": seed " + seed + " (replay with -Dseed=" + seed + ")");
        return seed;
    }
}
