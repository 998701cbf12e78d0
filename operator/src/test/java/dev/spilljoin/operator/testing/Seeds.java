package dev.spilljoin.operator.testing;

/** The seed of a randomized test: {@code -Dseed} when given, else the clock's, logged under a label for replay. */
public final class Seeds {
    private Seeds() {
    }

    /** The seed, printed as "{@code label} seed=S (replay with -Dseed=S)". */
    public static long logged(String label) {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println(label + " seed=" + seed + " (replay with -Dseed=" + seed + ")");
        return seed;
    }
}
