package dev.spilljoin.operator;

import java.util.Arrays;

/**
 * A 4,096-bit filter over the heavy keys' hashes (bit {@code H >>> 52}: the hash's top 12 bits), asked per row
 * before the sorted heavy keys are searched: a row whose hash is surely not a heavy key's costs one load from this
 * 512-byte array and a branch that is almost never taken, instead of a binary search whose branches mispredict (a
 * tenth of W2's probe pass, four heavy keys, went to that search). With 64 heavy keys, at most one row in 64 of
 * other keys passes on to the search. Written by the build alone, beside its heavy keys; readers see it through the
 * lock or hand-over ({@link BuildOutput}) that publishes the heavy keys.
 */
final class HeavyKeyFilter {
    private final long[] words = new long[64];

    /** Adds the heavy key with hash {@code hash}. */
    void add(long hash) {
        words[(int) (hash >>> 58)] |= 1L << (hash >>> 52);
    }

    /** False when {@code hash} is surely no heavy key's; true when it may be. */
    boolean mayContain(long hash) {
        return (words[(int) (hash >>> 58)] >>> (hash >>> 52) & 1L) != 0;
    }

    /**
     * Whether {@code hash} is one of {@code sortedKeys[0, count)}, the heavy keys this filter was given: the filter
     * first, the search only for a hash it passes.
     */
    boolean contains(long hash, long[] sortedKeys, int count) {
        return mayContain(hash) && Arrays.binarySearch(sortedKeys, 0, count, hash) >= 0;
    }
}
