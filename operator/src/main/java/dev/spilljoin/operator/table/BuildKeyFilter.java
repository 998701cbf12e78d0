package dev.spilljoin.operator.table;

import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;

import java.util.Arrays;

/**
 * Tells the probe pass which probe rows cannot match any build row, so that they are joined at once as misses
 * (dropped, or emitted unmatched where the join type wants them) without a load from the hash table's directory
 * and, if their partition spilled, without being written to a spill file and read back. Two filters over the build
 * keys, both fed while the build rows stream in ({@link #add}), or all at once from rows already held
 * ({@link #addRows}: the build pass, {@code PartitionedBuild}, feeds the filter only once it first spills):
 * <ul>
 *   <li>a min/max range of the key values, for a single BIGINT or INTEGER key (free; catches probe keys outside the
 *       build's range);</li>
 *   <li>a blocked Bloom filter over the key hashes H ({@link dev.spilljoin.operator.row.HashFunctions}): one 64-bit word per key, chosen by H's
 *       bits 8..8+w, with {@value #BITS_PER_KEY} bits set in it chosen by three 6-bit fields of H from bit 40 (disjoint
 *       from the word index, so independent of it). {@value #BITS_PER_KEY_TARGET} bits per expected build key, rounded to a power of two of bytes (7 to 13 bits):
 *       a false-positive rate of a few percent, and a probe costs one load from a filter that is small enough to
 *       stay in cache.</li>
 * </ul>
 *
 * <p>Invariants: every non-NULL build key is in both filters (no false negatives: a row the filter excludes has no
 * equal build key, whatever partition, heavy or not, its key went to); NULL-key rows are neither added nor checked
 * (the probe pass never spills them). Memory: the Bloom words are reserved in a child of the join's reservation
 * before the first row, only when the budget holds them beside the join's minimum ({@link #bytesFor}; the join's
 * plan reserves them); {@link #close()} gives them back, which the probe pass (its owner then) does as soon as the filter
 * stops paying, and the build (its first owner) does when the resident table would not fit beside it while nothing has spilled yet (keeping every
 * partition resident is worth more than faster misses; once partitions spill, the filter keeps their misses off disk).
 *
 * <p>Build workers: given parts ({@link #splitAdds}), each build worker adds its batches to Bloom words and a range
 * of its own, without a lock, and {@link #endAdds} ORs them into the filter's once every worker stopped (a lock
 * per batch made the adds of two workers run one at a time: a fifth of W1's build on two workers). Without parts,
 * the workers add to the filter's own words one at a time (the caller's lock).
 *
 * <p>Adaptive: each probe worker counts the rows it checks and the rows excluded ({@link Checks}); once
 * {@value #JUDGE_AFTER_ROWS} rows were checked and fewer than 1 in {@value #MIN_EXCLUDED_ONE_IN} was excluded (e.g. a
 * foreign-key join, where every probe key exists), it stops asking the filter for the rest of the pass, so the
 * filter costs next to nothing there; the filter's memory goes back once every worker stopped (or the pass ended).
 */
public final class BuildKeyFilter implements AutoCloseable {
    public static final int BITS_PER_KEY_TARGET = 10;
    public static final int BITS_PER_KEY = 3;
    public static final long JUDGE_AFTER_ROWS = 1 << 16;
    public static final int MIN_EXCLUDED_ONE_IN = 20;
    /** The smallest filter worth having. */
    public static final long MIN_BYTES = 8 * 1024;
    /** The build workers' own parts may take at most this fraction of the memory spare beyond the join's minimum. */
    public static final int PARTS_SHARE_OF_SPARE = 16;
    private static final int WORD_SHIFT = 8;

    private final MemoryReservation reservation;
    private final long bytes;
    private final NativeMemory.NativePage words;
    private final long base;
    private final long wordMask;
    private final int buildKeyColumn;
    private final int probeKeyColumn;
    /** The build keys' range, set by {@link #endAdds}. */
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    /** The workers' own Bloom words (index w − 1 for worker w ≥ 1; worker 0 adds to {@link #words}), or none. */
    private NativeMemory.NativePage[] parts = new NativeMemory.NativePage[0];
    /** Whether part w − 1 received a key (each written by its own worker only): {@link #endAdds} merges no other. */
    private boolean[] partUsed = new boolean[0];
    /** The key range added so far, per worker when they have parts, else in slot 0; folded by {@link #endAdds}. */
    private long[] addedMin = {Long.MAX_VALUE};
    private long[] addedMax = {Long.MIN_VALUE};

    private BuildKeyFilter(MemoryReservation reservation, long bytes, int buildKeyColumn, int probeKeyColumn) {
        this.reservation = reservation;
        this.bytes = bytes;
        this.words = NativeMemory.allocate(reservation, bytes); // zeroed
        this.base = words.address();
        this.wordMask = bytes / 8 - 1;
        this.buildKeyColumn = buildKeyColumn;
        this.probeKeyColumn = probeKeyColumn;
    }

    /**
     * The Bloom words to reserve for an expected {@code buildRows} build rows (negative: unknown, then sized from
     * {@code buildBytes}, else from the budget {@code limit}) when {@code reserved} bytes are held and
     * {@code minimumBudget} must stay free for the join: at least 7/8 of the free budget is kept for the build. Below
     * {@link #MIN_BYTES} the join runs without a filter.
     */
    public static long bytesFor(long limit, long reserved, long minimumBudget, long buildRows, long buildBytes) {
        long rows = buildRows >= 0 ? buildRows : buildBytes >= 0 ? buildBytes / 16 : limit / 64;
        long free = limit - Math.max(minimumBudget, reserved);
        return Math.min(Long.highestOneBit(Math.max(MIN_BYTES, rows * BITS_PER_KEY_TARGET * 3 / 16)),
                Long.highestOneBit(Math.max(1, free / 8)));
    }

    /**
     * A filter of {@code bytes} (from {@link #bytesFor}) in {@code reservation}, which already reserves them and
     * which the filter owns from now on, for {@code spec}'s join building on {@code buildSide}.
     */
    public static BuildKeyFilter over(MemoryReservation reservation, long bytes, JoinSpec spec, Side buildSide) {
        int[] buildKeys = spec.keys(buildSide);
        int[] probeKeys = spec.keys(buildSide.other());
        boolean range = buildKeys.length == 1 && isInteger(spec.schema(buildSide).type(buildKeys[0]));
        return new BuildKeyFilter(reservation, bytes, range ? buildKeys[0] : -1, range ? probeKeys[0] : -1);
    }

    private static boolean isInteger(ColumnType type) {
        return type == ColumnType.BIGINT || type == ColumnType.INTEGER;
    }

    /**
     * Gives each of {@code workers} build workers Bloom words of its own when their bytes stay within
     * 1/{@value #PARTS_SHARE_OF_SPARE} of {@code spare} (the memory free beyond the join's minimum) and the budget
     * grants them; else every worker adds to the filter's own words. Call once, before the first build row.
     */
    public void splitAdds(int workers, long spare) {
        long partBytes = (workers - 1) * bytes;
        if (workers < 2 || partBytes > spare / PARTS_SHARE_OF_SPARE || !reservation.tryGrow(partBytes)) {
            return;
        }
        parts = new NativeMemory.NativePage[workers - 1];
        partUsed = new boolean[workers - 1];
        for (int w = 1; w < workers; w++) {
            parts[w - 1] = NativeMemory.allocate(reservation, bytes); // zeroed
        }
        addedMin = new long[workers];
        addedMax = new long[workers];
        Arrays.fill(addedMin, Long.MAX_VALUE);
        Arrays.fill(addedMax, Long.MIN_VALUE);
    }

    /** Whether the build workers add to parts of their own ({@link #splitAdds}), so that they may add at once. */
    public boolean addsConcurrently() {
        return parts.length > 0;
    }

    /**
     * Adds the keys of the build batch's {@code n} rows with hashes {@code hashes}, skipping NULL keys, to build
     * worker {@code worker}'s part (then concurrently with other workers), or to the filter itself (then one worker
     * at a time).
     */
    public void add(int worker, Batch batch, long[] hashes, long[] nullKeys, boolean anyNull) {
        int n = batch.rowCount();
        boolean ownPart = worker > 0 && parts.length > 0;
        if (ownPart) {
            partUsed[worker - 1] = true;
        }
        long b = ownPart ? parts[worker - 1].address() : base;
        long mask = wordMask;
        for (int i = 0; i < n; i++) {
            if (!anyNull || !Bitmaps.isSet(nullKeys, i)) {
                addHash(b, mask, hashes[i]);
            }
        }
        if (buildKeyColumn >= 0) {
            addRange(batch.column(buildKeyColumn), n, nullKeys, anyNull, parts.length == 0 ? 0 : worker);
        }
    }

    /**
     * Ends the build's adds (every build worker stopped): ORs the workers' parts into the filter's words, gives their
     * bytes back, and sets the key range the probe pass checks; idempotent.
     */
    public void endAdds() {
        for (int w = 0; w < parts.length; w++) {
            if (!partUsed[w]) {
                continue; // its words are all zero
            }
            long from = parts[w].address();
            for (long at = 0; at < bytes; at += 8) {
                NativeMemory.putLong(base + at, NativeMemory.getLong(base + at) | NativeMemory.getLong(from + at));
            }
        }
        for (int w = 0; w < addedMin.length; w++) {
            min = Math.min(min, addedMin[w]);
            max = Math.max(max, addedMax[w]);
        }
        freeParts();
    }

    /**
     * Adds the keys of {@code arena}'s rows of {@code layout} (the build side's), NULL keys skipped, to the filter's
     * own words and range, as {@link #add} would have added them from their batches: the hash each row's layout
     * gives back ({@link RowLayout#hash}, equal to the batch's). Before or after {@link #endAdds} (which widens the
     * range it set here by the workers' ranges); one caller at a time, while no worker adds.
     */
    public void addRows(RowLayout layout, RowArena arena) {
        boolean intKey = layout.fieldType(0) == ColumnType.INTEGER;
        long mask = wordMask;
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (int p = 0; p < arena.pageCount(); p++) {
            long row = arena.pageAddress(p);
            long end = row + arena.pageUsed(p);
            while (row < end) {
                if (!layout.hasNullKey(row)) {
                    addHash(base, mask, layout.hash(row));
                    if (buildKeyColumn >= 0) {
                        long key = layout.fixedAddress(row, 0);
                        long v = intKey ? NativeMemory.getInt(key) : NativeMemory.getLong(key);
                        lo = Math.min(lo, v);
                        hi = Math.max(hi, v);
                    }
                }
                row += layout.rowLength(row);
            }
        }
        min = Math.min(min, lo);
        max = Math.max(max, hi);
    }

    private void freeParts() {
        for (NativeMemory.NativePage part : parts) {
            if (!part.isClosed()) {
                part.close();
            }
        }
        reservation.shrink(parts.length * bytes);
        parts = new NativeMemory.NativePage[0];
        partUsed = new boolean[0];
    }

    /** Widens the range in slot {@code slot} of {@link #addedMin} and {@link #addedMax} by the batch's keys. */
    private void addRange(ColumnVector keys, int n, long[] nullKeys, boolean anyNull, int slot) {
        long lo = addedMin[slot];
        long hi = addedMax[slot];
        if (keys.type() == ColumnType.BIGINT) {
            long[] v = keys.longs();
            for (int i = 0; i < n; i++) {
                if (!anyNull || !Bitmaps.isSet(nullKeys, i)) {
                    lo = Math.min(lo, v[i]);
                    hi = Math.max(hi, v[i]);
                }
            }
        } else {
            int[] v = keys.ints();
            for (int i = 0; i < n; i++) {
                if (!anyNull || !Bitmaps.isSet(nullKeys, i)) {
                    lo = Math.min(lo, v[i]);
                    hi = Math.max(hi, v[i]);
                }
            }
        }
        addedMin[slot] = lo;
        addedMax[slot] = hi;
    }

    /** Sets hash {@code h}'s bits in its word among the Bloom words at {@code words} ({@code mask}: their count − 1). */
    private static void addHash(long words, long mask, long h) {
        long at = wordOf(words, mask, h);
        NativeMemory.putLong(at, NativeMemory.getLong(at) | bitsOf(h));
    }

    /** The address of hash {@code h}'s word among the Bloom words at {@code words}. */
    private static long wordOf(long words, long mask, long h) {
        return words + (((h >>> WORD_SHIFT) & mask) << 3);
    }

    private static long bitsOf(long h) {
        return (1L << (h >>> 40)) | (1L << (h >>> 46)) | (1L << (h >>> 52));
    }

    /**
     * Finds, among the rows of {@code batch} with their bit set in {@code candidates} (none NULL-key), those that
     * surely have no equal build key: their bits are cleared in {@code candidates} and set in {@code sureMisses}
     * (every other bit of its first {@code ceil(rows / 64)} words is cleared), counting in the calling worker's
     * {@code checks}, which judge whether the filter still pays. Call only while {@code checks.isOn()}.
     */
    public void markSureMisses(Batch batch, long[] hashes, long[] candidates, long[] sureMisses, Checks checks) {
        int words = (batch.rowCount() + 63) >>> 6;
        long[] longKeys = null;
        int[] intKeys = null;
        if (probeKeyColumn >= 0) {
            ColumnVector keys = batch.column(probeKeyColumn);
            if (keys.type() == ColumnType.BIGINT) {
                longKeys = keys.longs();
            } else {
                intKeys = keys.ints();
            }
        }
        long lo = min;
        long hi = max;
        long b = base;
        long mask = wordMask;
        long rangeOut = 0;
        long bloomOut = 0;
        long seen = 0;
        for (int w = 0; w < words; w++) {
            long pending = candidates[w];
            long out = 0;
            seen += Long.bitCount(pending);
            while (pending != 0) {
                int bit = Long.numberOfTrailingZeros(pending);
                pending &= pending - 1;
                int i = (w << 6) + bit;
                if (longKeys != null || intKeys != null) {
                    long v = longKeys != null ? longKeys[i] : intKeys[i];
                    if (v < lo || v > hi) {
                        out |= 1L << bit;
                        rangeOut++;
                        continue;
                    }
                }
                long h = hashes[i];
                long bits = bitsOf(h);
                if ((NativeMemory.getLong(wordOf(b, mask, h)) & bits) != bits) {
                    out |= 1L << bit;
                    bloomOut++;
                }
            }
            candidates[w] &= ~out;
            sureMisses[w] = out;
        }
        checks.count(seen, rangeOut, bloomOut);
    }

    /**
     * One probe worker's checks against the filter, which is shared read-only by every worker: its counts, and
     * whether it still asks the filter. Each worker judges the filter on its own rows: once it checked
     * {@value #JUDGE_AFTER_ROWS} rows and fewer than 1 in {@value #MIN_EXCLUDED_ONE_IN} was excluded, it stops
     * asking ({@link #isOn()} false). The filter's memory goes back only when no worker can read it any more.
     */
    public static final class Checks {
        private long checked;
        private long excludedByRange;
        private long excludedByBloom;
        private boolean on = true;

        private void count(long seen, long rangeOut, long bloomOut) {
            checked += seen;
            excludedByRange += rangeOut;
            excludedByBloom += bloomOut;
            if (checked >= JUDGE_AFTER_ROWS && (excludedByRange + excludedByBloom) * MIN_EXCLUDED_ONE_IN < checked) {
                on = false;
            }
        }

        /** Whether this worker still asks the filter. */
        public boolean isOn() {
            return on;
        }

        /** Probe rows checked so far. */
        public long checked() {
            return checked;
        }

        /** Of them, ruled out by the key range. */
        public long excludedByRange() {
            return excludedByRange;
        }

        /** Of them, ruled out by the Bloom filter. */
        public long excludedByBloom() {
            return excludedByBloom;
        }
    }


    @Override
    public void close() {
        freeParts();
        if (!words.isClosed()) {
            words.close();
        }
        reservation.close();
    }
}
