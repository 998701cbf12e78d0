package dev.spilljoin.estimator;

import java.util.Arrays;
import java.util.TreeSet;
import java.util.stream.IntStream;

import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.LongsSketch;

/**
 * The key hashes of one input estimated to be frequent enough to matter, each with its estimated rows, an upper
 * bound on its rows and its estimated bytes; immutable, sorted by hash so that {@link #contains} is a binary search
 * over a flat array (the join asks it per row while partitioning, with no object per row).
 *
 * <p>Algorithm ({@link #find}): ask the frequent-items sketch for every key whose <em>upper bound</em> exceeds the
 * threshold ({@link ErrorType#NO_FALSE_NEGATIVES}), then scale counts to the whole input.
 *
 * <p>Recall: when every row was sketched ({@link #recallGuaranteed()}), recall is 1.0 for every key
 * whose true frequency exceeds {@link #guaranteedAboveRows()} = max(threshold, the sketch's maximum error, about
 * 3.5 / mapSize of the rows, and for a positive threshold one sighting scaled): such a key is always held by the
 * sketch and its upper bound is at least its true count. A positive threshold asks for at least two sightings: a
 * threshold below the sampling's scale (a few rows, early in a sampled input) would otherwise take every key seen.
 * Keys at or below the sketch's maximum error may be missed; re-partitioning stays the fallback for those. Precision
 * is not guaranteed: a reported key may be lighter than the threshold (its upper bound exceeded it), which costs only
 * an unneeded nested-loop pass. When rows or batches are sampled the counts are scaled estimates and recall is
 * statistical: a key with frequency f in a sample of every k-th row is seen about f / k times, so keys well above the
 * threshold survive the sample, keys near it may not.
 */
public final class HeavyHitters {
    private static final HeavyHitters NONE =
            new HeavyHitters(0, true, new long[0], new long[0], new long[0], new long[0]);

    private final long guaranteedAboveRows;
    private final boolean recallGuaranteed;
    private final long[] hashes;
    private final long[] estimatedRows;
    private final long[] upperBoundRows;
    private final long[] estimatedBytes;

    private HeavyHitters(long guaranteedAboveRows, boolean recallGuaranteed, long[] hashes, long[] estimatedRows,
            long[] upperBoundRows, long[] estimatedBytes) {
        this.guaranteedAboveRows = guaranteedAboveRows;
        this.recallGuaranteed = recallGuaranteed;
        this.hashes = hashes;
        this.estimatedRows = estimatedRows;
        this.upperBoundRows = upperBoundRows;
        this.estimatedBytes = estimatedBytes;
    }

    /** No heavy keys. */
    public static HeavyHitters none() {
        return NONE;
    }

    /**
     * Heavy keys given by the caller (known statistics); the arrays are parallel, in any order, and copied.
     *
     * @param guaranteedAboveRows every key with more rows than this is among {@code hashes}
     */
    public static HeavyHitters of(long guaranteedAboveRows, long[] hashes, long[] estimatedRows, long[] upperBoundRows,
            long[] estimatedBytes) {
        return of(guaranteedAboveRows, true, hashes, estimatedRows, upperBoundRows, estimatedBytes);
    }

    private static HeavyHitters of(long guaranteedAboveRows, boolean recallGuaranteed, long[] hashes,
            long[] estimatedRows, long[] upperBoundRows, long[] estimatedBytes) {
        int n = hashes.length;
        if (estimatedRows.length != n || upperBoundRows.length != n || estimatedBytes.length != n) {
            throw new IllegalArgumentException("heavy hitter arrays must have equal lengths, got hashes " + n
                    + ", estimatedRows " + estimatedRows.length + ", upperBoundRows " + upperBoundRows.length
                    + ", estimatedBytes " + estimatedBytes.length);
        }
        Integer[] order = IntStream.range(0, n).boxed().toArray(Integer[]::new);
        Arrays.sort(order, (a, b) -> Long.compare(hashes[a], hashes[b]));
        long[] h = new long[n];
        long[] est = new long[n];
        long[] ub = new long[n];
        long[] by = new long[n];
        for (int i = 0; i < n; i++) {
            int j = order[i];
            h[i] = hashes[j];
            est[i] = estimatedRows[j];
            ub[i] = upperBoundRows[j];
            by[i] = estimatedBytes[j];
            if (est[i] < 0 || ub[i] < est[i] || by[i] < 0) {
                throw new IllegalArgumentException("heavy hitter " + Long.toHexString(h[i])
                        + " needs 0 <= estimatedRows <= upperBoundRows and estimatedBytes >= 0, got " + est[i]
                        + ", " + ub[i] + ", " + by[i]);
            }
            if (i > 0 && h[i] == h[i - 1]) {
                throw new IllegalArgumentException("heavy hitter hash " + Long.toHexString(h[i]) + " given twice");
            }
        }
        return new HeavyHitters(Math.max(0, guaranteedAboveRows), recallGuaranteed, h, est, ub, by);
    }

    /**
     * The keys of {@code sketches} whose upper-bound row count exceeds {@code thresholdRows} (no false negatives above
     * {@link #guaranteedAboveRows()}; see the class comment).
     */
    public static HeavyHitters find(KeySketches sketches, long thresholdRows) {
        if (thresholdRows < 0) {
            throw new IllegalArgumentException("heavy hitter threshold must be >= 0 rows, got " + thresholdRows);
        }
        double scale = sketches.frequencyScale();
        if (scale == 0) {
            return NONE;
        }
        LongsSketch sketch = sketches.frequentItems();
        long sketchThreshold = sightings(thresholdRows, scale);
        LongsSketch.Row[] rows = sketch.getFrequentItems(sketchThreshold, ErrorType.NO_FALSE_NEGATIVES);
        double rowBytes = sketches.averageRowBytes();
        int n = rows.length;
        long[] h = new long[n];
        long[] est = new long[n];
        long[] ub = new long[n];
        long[] by = new long[n];
        for (int i = 0; i < n; i++) {
            h[i] = rows[i].getItem();
            est[i] = Math.round(rows[i].getEstimate() * scale);
            ub[i] = Math.max(est[i], (long) Math.ceil(rows[i].getUpperBound() * scale));
            by[i] = Math.round(est[i] * rowBytes);
        }
        long guaranteed = Math.max(thresholdRows,
                (long) Math.ceil(Math.max(sketch.getMaximumError(), sketchThreshold) * scale));
        return of(guaranteed, !sketches.frequenciesSampled(), h, est, ub, by);
    }

    /**
     * The sketch's threshold in sightings for {@code thresholdRows} rows at {@code rowsPerSighting}: the sketch returns
     * the keys whose upper bound is at least it. A positive threshold asks for at least two sightings: below the
     * sampling's scale (a threshold of a few rows early in a sampled input) every key seen once would pass.
     */
    private static long sightings(long thresholdRows, double rowsPerSighting) {
        return Math.max(thresholdRows > 0 ? 2 : 0, (long) Math.floor(thresholdRows / rowsPerSighting));
    }

    /**
     * The keys whose upper-bound row count over all of {@code parts} (sketches of disjoint rows of one input, such as
     * the build workers', none updated meanwhile) exceeds {@code thresholdRows}, without merging them. A key above the
     * threshold has more than {@code thresholdRows / parts} rows in some part, so each part is asked for its keys above
     * that share (no false negatives where a part's recall is guaranteed); a candidate's estimate and upper bound are
     * the sums over all parts (a part that does not hold it adds its maximum error to the bound), scaled per part.
     * Recall is guaranteed above {@code parts} times the largest part's maximum error (some part then holds more of the
     * key than its error, so it tracks it). One part: {@link #find(KeySketches, long)}.
     */
    public static HeavyHitters find(KeySketches[] parts, long thresholdRows) {
        if (parts.length == 1) {
            return find(parts[0], thresholdRows);
        }
        if (thresholdRows < 0) {
            throw new IllegalArgumentException("heavy hitter threshold must be >= 0 rows, got " + thresholdRows);
        }
        TreeSet<Long> candidates = new TreeSet<>();
        long rows = 0;
        long bytes = 0;
        long largestError = 0;
        boolean sampled = false;
        for (KeySketches part : parts) {
            double scale = part.frequencyScale();
            rows += part.rows();
            bytes += part.bytes();
            sampled |= part.frequenciesSampled();
            if (scale == 0) {
                continue;
            }
            long share = sightings(thresholdRows, parts.length * scale);
            for (LongsSketch.Row row : part.frequentItems().getFrequentItems(share, ErrorType.NO_FALSE_NEGATIVES)) {
                candidates.add(row.getItem());
            }
            largestError = Math.max(largestError,
                    (long) Math.ceil(Math.max(part.frequentItems().getMaximumError(), share) * scale));
        }
        double rowBytes = rows == 0 ? 0 : (double) bytes / rows;
        int n = 0;
        long[] h = new long[candidates.size()];
        long[] est = new long[h.length];
        long[] ub = new long[h.length];
        long[] by = new long[h.length];
        for (long item : candidates) {
            double estimate = 0;
            double upper = 0;
            for (KeySketches part : parts) {
                double scale = part.frequencyScale();
                estimate += part.frequentItems().getEstimate(item) * scale;
                upper += part.frequentItems().getUpperBound(item) * scale;
            }
            if (upper > thresholdRows) {
                h[n] = item;
                est[n] = Math.round(estimate);
                ub[n] = Math.max(est[n], (long) Math.ceil(upper));
                by[n] = Math.round(est[n] * rowBytes);
                n++;
            }
        }
        // a key above parts × the largest error is above its part's error in some part, so that part tracks it
        return of(Math.max(thresholdRows, parts.length * largestError), !sampled, Arrays.copyOf(h, n),
                Arrays.copyOf(est, n),
                Arrays.copyOf(ub, n), Arrays.copyOf(by, n));
    }

    /** Every key with more rows than this is reported: for certain if {@link #recallGuaranteed()}, else likely. */
    public long guaranteedAboveRows() {
        return guaranteedAboveRows;
    }

    /** Whether {@link #guaranteedAboveRows()} is a guarantee (every row was sketched) rather than an estimate. */
    public boolean recallGuaranteed() {
        return recallGuaranteed;
    }

    public int size() {
        return hashes.length;
    }

    public boolean isEmpty() {
        return hashes.length == 0;
    }

    /** The i-th key hash, in ascending signed order. */
    public long hash(int i) {
        return hashes[i];
    }

    public long estimatedRows(int i) {
        return estimatedRows[i];
    }

    public long upperBoundRows(int i) {
        return upperBoundRows[i];
    }

    public long estimatedBytes(int i) {
        return estimatedBytes[i];
    }

    /** Whether {@code hash} is one of these keys: a binary search, no allocation. */
    public boolean contains(long hash) {
        return Arrays.binarySearch(hashes, hash) >= 0;
    }

    /** The sum of the keys' estimated rows. */
    public long totalEstimatedRows() {
        return Arrays.stream(estimatedRows).sum();
    }

    /** The sum of the keys' estimated bytes. */
    public long totalEstimatedBytes() {
        return Arrays.stream(estimatedBytes).sum();
    }

    /**
     * The keys at {@code indices} (ascending): a selection, which claims no recall ({@link #guaranteedAboveRows()} is
     * {@link Long#MAX_VALUE}).
     */
    HeavyHitters subset(int[] indices) {
        int n = indices.length;
        long[] h = new long[n];
        long[] est = new long[n];
        long[] ub = new long[n];
        long[] by = new long[n];
        for (int i = 0; i < n; i++) {
            int j = indices[i];
            h[i] = hashes[j];
            est[i] = estimatedRows[j];
            ub[i] = upperBoundRows[j];
            by[i] = estimatedBytes[j];
        }
        return new HeavyHitters(Long.MAX_VALUE, recallGuaranteed, h, est, ub, by);
    }

    /**
     * These keys with their rows and bytes multiplied by {@code factor} (>= 1): what they are expected to hold in a
     * whole input of which the sketched rows were the first 1/factor, their frequencies assumed to hold on.
     */
    public HeavyHitters scaled(double factor) {
        if (!(factor >= 1)) {
            throw new IllegalArgumentException("heavy hitters scale by a factor >= 1, got " + factor);
        }
        int n = hashes.length;
        long[] est = new long[n];
        long[] ub = new long[n];
        long[] by = new long[n];
        for (int i = 0; i < n; i++) {
            est[i] = (long) Math.ceil(estimatedRows[i] * factor);
            ub[i] = Math.max(est[i], (long) Math.ceil(upperBoundRows[i] * factor));
            by[i] = (long) Math.ceil(estimatedBytes[i] * factor);
        }
        long guaranteed = guaranteedAboveRows == Long.MAX_VALUE ? Long.MAX_VALUE
                : (long) Math.ceil(guaranteedAboveRows * factor);
        return new HeavyHitters(guaranteed, recallGuaranteed, hashes, est, ub, by);
    }

    /** The bytes this object takes on the heap, about (for the statistics cache's weigher). */
    long heapBytes() {
        return 64 + 4L * (16 + (long) Long.BYTES * hashes.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HeavyHitters other && guaranteedAboveRows == other.guaranteedAboveRows
                && recallGuaranteed == other.recallGuaranteed
                && Arrays.equals(hashes, other.hashes) && Arrays.equals(estimatedRows, other.estimatedRows)
                && Arrays.equals(upperBoundRows, other.upperBoundRows)
                && Arrays.equals(estimatedBytes, other.estimatedBytes);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(hashes) + Arrays.hashCode(estimatedRows);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("HeavyHitters[");
        for (int i = 0; i < hashes.length; i++) {
            s.append(i == 0 ? "" : ", ").append(Long.toHexString(hashes[i])).append('=').append(estimatedRows[i]);
        }
        return s.append(']').toString();
    }
}
