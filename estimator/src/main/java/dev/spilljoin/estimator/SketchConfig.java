package dev.spilljoin.estimator;

/**
 * Sizes and sampling rates of the {@link KeySketches} of one input.
 *
 * @param hllLgK                   log2 of the HyperLogLog register count (4..21); relative standard error is about
 *                                 1.04 / sqrt(2^hllLgK), so 15 gives 0.57 %
 * @param frequentItemsMapSize     the frequent-items sketch's map size (a power of two, 8..2^26): a key is always
 *                                 tracked once its frequency exceeds {@code 3.5 / mapSize} of the sketched rows; 0:
 *                                 no frequent-items sketch (a sample that only counts rows and distinct keys)
 * @param frequentItemsEveryKthRow feed every k-th row (on average, random gaps) to the frequent-items sketch and
 *                                 scale its counts by k
 *                                 (1 = every row, exact error bounds)
 * @param everyKthBatch            sketch every k-th batch only (1 = every batch; a sample of the probe side uses more);
 *                                 the row and byte counters still see every batch
 */
public record SketchConfig(int hllLgK, int frequentItemsMapSize, int frequentItemsEveryKthRow, int everyKthBatch) {

    /**
     * The build side: every batch, every row into the HyperLogLog (0.57 % standard error, 32 KiB), every 16th row on
     * average into a 2048-slot frequent-items sketch (keys above 3.5 / 2048 = 0.17 % of the sampled rows are always
     * tracked). The join asks it for keys above a partition's fair share of the rows (rows / fanout), which a sample
     * of every 16th row still sees hundreds of times from the first few batches on, so its sampled count is within a
     * few percent of its true count. The sampled rows are the sketch's cost: on a build of distinct keys each one is
     * new, and the map purges every few hundred of them (every 4th row: W1's build at the tight budget spent a sixth
     * of its time there, every 16th row 0.83x the build's time). Use {@code frequentItemsEveryKthRow(1)} for the
     * sketch's exact no-false-negatives bound.
     */
    public static final SketchConfig BUILD = new SketchConfig(15, 2048, 16, 1);

    public SketchConfig {
        if (hllLgK < 4 || hllLgK > 21) {
            throw new IllegalArgumentException("hllLgK must be in 4..21, got " + hllLgK);
        }
        if (frequentItemsMapSize != 0 && (frequentItemsMapSize < 8 || frequentItemsMapSize > (1 << 26)
                || Integer.bitCount(frequentItemsMapSize) != 1)) {
            throw new IllegalArgumentException(
                    "frequentItemsMapSize must be 0 or a power of two in 8..2^26, got " + frequentItemsMapSize);
        }
        if (frequentItemsEveryKthRow < 1) {
            throw new IllegalArgumentException("frequentItemsEveryKthRow must be >= 1, got " + frequentItemsEveryKthRow);
        }
        if (everyKthBatch < 1) {
            throw new IllegalArgumentException("everyKthBatch must be >= 1, got " + everyKthBatch);
        }
    }

    /**
     * Written out rather than the record's own, which a fresh JVM bootstraps through method handles at its first call
     * (some 40 classes spun, 20-odd ms on the main thread), where a join's workers' sketches merge at the end of a
     * build that may spill: between the build and the probe, while the other core waits.
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof SketchConfig c && c.hllLgK == hllLgK && c.frequentItemsMapSize == frequentItemsMapSize
                && c.frequentItemsEveryKthRow == frequentItemsEveryKthRow && c.everyKthBatch == everyKthBatch;
    }

    @Override
    public int hashCode() {
        return ((31 * hllLgK + frequentItemsMapSize) * 31 + frequentItemsEveryKthRow) * 31 + everyKthBatch;
    }

    /** The same sketch sizes, sketching only every k-th batch (a sample of the probe side). */
    public SketchConfig sampleEveryKthBatch(int k) {
        return new SketchConfig(hllLgK, frequentItemsMapSize, frequentItemsEveryKthRow, k);
    }

    /** The same, without a frequent-items sketch: rows and distinct keys only. */
    public SketchConfig withoutFrequentItems() {
        return new SketchConfig(hllLgK, 0, frequentItemsEveryKthRow, everyKthBatch);
    }

    /** Whether these sketches keep frequent items (heavy keys can be asked of them). */
    public boolean keepsFrequentItems() {
        return frequentItemsMapSize != 0;
    }

    /** The same sketch sizes, feeding every k-th row on average to the frequent-items sketch. */
    public SketchConfig frequentItemsEveryKthRow(int k) {
        return new SketchConfig(hllLgK, frequentItemsMapSize, k, everyKthBatch);
    }
}
