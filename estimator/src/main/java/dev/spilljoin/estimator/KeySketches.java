package dev.spilljoin.estimator;

import org.apache.datasketches.frequencies.LongsSketch;

/**
 * The statistics of one join input taken while its rows stream in: a distinct-count sketch (HyperLogLog) and a
 * frequent-items sketch over the rows' 64-bit key hashes, plus exact row and byte counters.
 *
 * <p>Algorithm: the join hashes each row's key once and hands a batch of hashes to {@link #update}. Every row of a
 * sketched batch goes into the HyperLogLog ({@link HyperLogLog}, 2^lgK one-byte registers); every k-th row of
 * it on average (k = {@link SketchConfig#frequentItemsEveryKthRow()}) goes into the frequent-items sketch
 * ({@link LongsSketch}, Misra-Gries with a reverse-purge hash map), whose counts are then scaled by k. The gap to the
 * next sampled row is drawn uniformly from 1..2k-1 by an inline xorshift generator (fixed seed: runs repeat) and
 * carried across batches: a fixed stride would alias with periodic key patterns (with k = 4, a key at row positions
 * 17 mod 1000 would never be seen), a random one cannot. In the probe-sample mode only every k-th batch is sketched ({@link SketchConfig#everyKthBatch()}); frequencies are then
 * scaled by rows / sketched rows, while the distinct count stays that of the sample (a lower bound: distinct counts
 * do not scale). A configuration may keep no frequent-items sketch ({@link SketchConfig#withoutFrequentItems()}: a
 * sample that only counts rows and distinct keys, for which heavy keys cannot be asked).
 *
 * <p>Choice of library: Apache DataSketches 7.0.1 (the last release that runs on Java 17) for the frequent items:
 * well-tested, mergeable, with a-priori upper and lower bounds per key, which is what makes "no false negatives"
 * possible, and nothing allocated per row. The distinct count is this module's {@link HyperLogLog}, not
 * DataSketches' {@code HllSketch}, whose update allocates per row until C2 has compiled it (its class comment has
 * the figures). Measured with
 * {@code KeySketchesBenchmark} (test sources; figures in docs/PERFORMANCE.md): the frequent-items sketch costs about
 * three times the HyperLogLog per row, hence its row sampling; a hand-written sketch was not needed for that. The
 * HyperLogLog mixes the (already mixed) key hash once more, which keeps its registers independent of the join's h1
 * and h2 bits.
 *
 * <p>Invariants: {@link #rows()} and {@link #bytes()} count every row handed in, sketched or not; the sketches never
 * grow beyond {@link #memoryBytes()}, a constant the join reserves from its budget before the first update (the
 * sketches live on the Java heap, but the bytes are accounted). Not thread-safe: one instance per input per worker;
 * the workers' sketches of one input are added into one ({@link #merge}: a HyperLogLog union, a frequent-items merge,
 * the counters summed) once they stopped, or asked together for heavy keys ({@link HeavyHitters#find(KeySketches[],
 * long)}) while none updates.
 */
public final class KeySketches {
    /** Object headers, the sketches' own fields and array headers, rounded up generously. */
    private static final long FIXED_OVERHEAD_BYTES = 512;
    /** The frequent-items map holds a long key, a long count and a short state per slot. */
    private static final long FREQUENT_ITEMS_BYTES_PER_SLOT = Long.BYTES + Long.BYTES + Short.BYTES;
    /** A purge of the frequent-items map copies a sample of at most 1024 counts. */
    private static final long PURGE_SAMPLE_BYTES = 1024L * Long.BYTES;

    private final SketchConfig config;
    private final HyperLogLog distinct;
    /** The frequent-items sketch, or null when the configuration keeps none. */
    private final LongsSketch frequent;
    private long rows;
    private long bytes;
    private long batches;
    private long sketchedRows;
    private int nextFrequentRow;
    private long strideState = 0x9E3779B97F4A7C15L;

    public KeySketches(SketchConfig config) {
        this.config = config;
        this.distinct = new HyperLogLog(config.hllLgK());
        this.frequent = config.keepsFrequentItems() ? new LongsSketch(config.frequentItemsMapSize()) : null;
    }

    /**
     * The bytes to reserve for sketches of this configuration, before creating them: their peak, which is reached
     * while they grow. The HyperLogLog's registers exist from the start; the frequent-items map doubles its arrays
     * while it grows (the old half beside the new) and copies a sample of counts when it purges. A {@link #merge}
     * holds nothing beyond both sketches' own.
     */
    public static long memoryBytes(SketchConfig config) {
        long frequentMap = FREQUENT_ITEMS_BYTES_PER_SLOT * config.frequentItemsMapSize();
        return FIXED_OVERHEAD_BYTES + HyperLogLog.memoryBytes(config.hllLgK()) + frequentMap + frequentMap / 2
                + (config.keepsFrequentItems() ? PURGE_SAMPLE_BYTES : 0);
    }

    /** The most bytes these sketches ever hold: what the join reserves for them. */
    public long memoryBytes() {
        return memoryBytes(config);
    }

    /**
     * Counts one batch: {@code count} rows whose key hashes are {@code hashes[0..count)} and which take
     * {@code batchBytes} bytes in the join's row format.
     */
    public void update(long[] hashes, int count, long batchBytes) {
        update(hashes, null, count, batchBytes);
    }

    /**
     * As {@link #update(long[], int, long)}, for a batch whose rows with a bit set in {@code noKey} (bit {@code i & 63}
     * of word {@code i >>> 6}; null: none) have no key, a NULL: they count as rows and bytes, but their hashes (which
     * mean nothing) go into neither the distinct count nor the frequent keys, where every NULL row's one hash would
     * pass for a key repeated that often.
     */
    public void update(long[] hashes, long[] noKey, int count, long batchBytes) {
        if (count < 0 || count > hashes.length) {
            throw new IllegalArgumentException(
                    "batch row count " + count + " is outside the hash array of length " + hashes.length);
        }
        if (batchBytes < 0) {
            throw new IllegalArgumentException("batch bytes must be >= 0, got " + batchBytes);
        }
        rows += count;
        bytes += batchBytes;
        if (batches++ % config.everyKthBatch() != 0) {
            return;
        }
        sketchedRows += count;
        HyperLogLog hll = distinct;
        for (int i = 0; i < count; i++) {
            if (hasKey(noKey, i)) {
                hll.add(hashes[i]);
            }
        }
        LongsSketch items = frequent;
        if (items == null) {
            return;
        }
        int k = config.frequentItemsEveryKthRow();
        int i = nextFrequentRow;
        if (k == 1) {
            for (; i < count; i++) {
                if (hasKey(noKey, i)) {
                    items.update(hashes[i]);
                }
            }
        } else {
            long gapRange = 2L * k - 1;
            long x = strideState;
            for (; i < count; i += 1 + (int) (((x >>> 32) * gapRange) >>> 32)) {
                if (hasKey(noKey, i)) {
                    items.update(hashes[i]);
                }
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            strideState = x;
        }
        nextFrequentRow = i - count;
    }

    private static boolean hasKey(long[] noKey, int row) {
        return noKey == null || (noKey[row >>> 6] & (1L << row)) == 0;
    }

    /**
     * Adds {@code other}'s rows (sketches of the same configuration over other rows of the same input, such as another
     * worker's) to these: afterwards these sketches hold what one sketch fed both inputs' batches would, up to the
     * sketches' own error (the HyperLogLog merge is exact over registers; the frequent-items merge keeps its error
     * bounds). {@code other} is left as it was.
     */
    public void merge(KeySketches other) {
        if (!config.equals(other.config)) {
            throw new IllegalArgumentException("sketches of " + other.config + " cannot be merged into " + config);
        }
        distinct.merge(other.distinct);
        if (frequent != null) {
            frequent.merge(other.frequent);
        }
        rows += other.rows;
        bytes += other.bytes;
        batches += other.batches;
        sketchedRows += other.sketchedRows;
    }

    /** Every row handed in. */
    public long rows() {
        return rows;
    }

    /** The bytes of every row handed in. */
    public long bytes() {
        return bytes;
    }

    /** The rows of the sketched batches (all rows unless a batch sample is taken). */
    public long sketchedRows() {
        return sketchedRows;
    }

    /**
     * The estimated number of distinct keys among the sketched rows (among all rows unless a batch sample is
     * taken, when it is a lower bound).
     */
    public long distinctEstimate() {
        return Math.round(distinct.estimate());
    }

    /** An upper bound on the distinct keys of the sketched rows at {@code standardDeviations} (1, 2 or 3). */
    public long distinctUpperBound(int standardDeviations) {
        return (long) Math.ceil(distinct.upperBound(standardDeviations));
    }

    /** The mean row size in bytes, 0 before the first row. */
    public double averageRowBytes() {
        return rows == 0 ? 0 : (double) bytes / rows;
    }

    /** The factor turning a count of the frequent-items sketch into a count of rows of the whole input. */
    double frequencyScale() {
        return sketchedRows == 0 ? 0 : config.frequentItemsEveryKthRow() * ((double) rows / sketchedRows);
    }

    /** Whether the frequent-items sketch saw a sample of the rows (its bounds then hold for the sample only). */
    boolean frequenciesSampled() {
        return config.frequentItemsEveryKthRow() > 1 || config.everyKthBatch() > 1;
    }

    /** The frequent-items sketch; only of a configuration that keeps one ({@link SketchConfig#keepsFrequentItems}). */
    LongsSketch frequentItems() {
        if (frequent == null) {
            throw new IllegalStateException("these sketches keep no frequent items (" + config + "): no heavy keys");
        }
        return frequent;
    }

    /** The statistics of the input so far, with the keys estimated to hold more than {@code heavyThresholdRows}. */
    public InputStatistics statistics(long heavyThresholdRows) {
        return new InputStatistics(rows, bytes, distinctEstimate(), HeavyHitters.find(this, heavyThresholdRows));
    }
}
