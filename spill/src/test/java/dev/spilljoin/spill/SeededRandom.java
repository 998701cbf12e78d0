package dev.spilljoin.spill;

import java.util.SplittableRandom;

/** Seeded randomness for tests: the seed is {@code -Dseed=} if given, else fresh; it is always printed to replay. */
final class SeededRandom {
    private SeededRandom() {
    }

    static SplittableRandom create(String test) {
        String given = System.getProperty("seed");
        long seed = given != null ? Long.parseLong(given) : System.nanoTime();
        System.out.println(test + ": seed " + seed + " (replay with -Dseed=" + seed + ")");
        return new SplittableRandom(seed);
    }
}
