package dev.spilljoin.operator.data;

/**
 * Bitmaps over rows as {@code long[]} words, bit {@code i & 63} of word {@code i >>> 6} for row {@code i} (NULL
 * masks, NULL-key masks, deferred and matched masks). Static and tiny, so the JIT inlines them into the row loops.
 */
public final class Bitmaps {
    private Bitmaps() {
    }

    /** Whether row {@code i}'s bit is set in {@code words}. */
    public static boolean isSet(long[] words, int i) {
        return (words[i >>> 6] & (1L << i)) != 0;
    }

    /** Sets row {@code i}'s bit in {@code words}. */
    public static void set(long[] words, int i) {
        words[i >>> 6] |= 1L << i;
    }
}
