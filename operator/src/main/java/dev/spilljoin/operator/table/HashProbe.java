package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.KeyEncoder;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.spill.NativeMemory;

import java.util.Arrays;

/**
 * Probes an {@link UnchainedTable} with one batch at a time and appends the results to an {@link OutputWriter};
 * resumable, so that a result batch can be handed out whenever it is full (one key may produce n×m rows).
 *
 * <p>Algorithm (batched for memory-level parallelism: a dependent random load costs hundreds of nanoseconds, see
 * docs/PERFORMANCE.md):
 * <ol>
 *   <li>hash the batch's keys ({@link KeyHasher}); for a single fixed-width key take each row's key value
 *       ({@link KeyHasher#keyValues}), else encode the keys into key bytes ({@link KeyEncoder});</li>
 *   <li>load the directory entries of all rows in one loop of independent loads ({@link UnchainedTable#loadSlots});
 *       the entry's tag filter drops most misses there;</li>
 *   <li>each remaining row looks through its slot's rows (back to back) for the first whose key equals its own:
 *       for a single fixed-width key in rounds over all rows ({@link #searchRounds}: a loop that only loads each
 *       row's candidate key, then a branch-free loop that compares and moves the unmatched rows on), else a scan
 *       per row comparing key bytes; rows without one drop out, the others are marked matched;</li>
 *   <li>one loop per {@link ProbeAction} (no action switch inside) emits from there: PAIRS and PAIRS_OR_PAD append
 *       every equal row of the slot (for a single fixed-width key the matched rows' next equal rows are found by
 *       further rounds; the rest of the slot lies in the lines just loaded), SEMI appends the probe row once, ANTI
 *       and NOT IN need nothing more, MARK sets the MATCHED flag of every equal row;</li>
 *   <li>a tail pass emits the rows that had no match where the join type wants them (outer padding, ANTI).</li>
 * </ol>
 * MARK stops at a build row already marked: the first probe row with that key scanned the whole slot and marked
 * every equal build row. The only exit inside an emitting loop is the output's {@code room()} before an append.
 */
public final class HashProbe implements TableProbe {
    private final UnchainedTable table;
    private final CompactRows rows;
    private final ProbeAction action;
    private final boolean marksBuild;
    private final KeyHasher hasher;
    private final KeyEncoder encoder;
    private final boolean buildEmpty;
    private final boolean suppressAll;
    /** A fixed-width row's stride, 0 when rows carry their length. */
    private final int stride;
    /** The single fixed-width key's width (8, 4 or 1) and offset in a row; width 0 when keys compare as bytes. */
    private final int keyWidth;
    private final int keyOffset;
    /** The extra condition's stage (null: keys alone decide); the probe then only collects candidate pairs. */
    private final CandidatePairs candidatePairs;

    private Batch batch;
    private int n;
    private long[] ownHashes = new long[0];
    private long[] ownNullKeys = new long[0];
    private long[] hashes;
    private long[] nullKeys;
    private long[] deferred;
    private long[] noTail;
    private long[] skip = new long[0];
    private long[] keys = new long[0];
    private long[] candidates = new long[0];
    private long[] slotEnds = new long[0];
    private int[] active = new int[0];
    /** The rows still searching their slots ({@link #searchRounds}). */
    private int[] searching = new int[0];
    /** The stored keys of the searching rows' candidates, loaded in a loop of their own ({@link #searchRounds}). */
    private long[] loadedKeys = new long[0];
    private boolean[] matched = new boolean[0];
    /** Each probe row's bytes as {@link #sizedFor} counts them ({@link OutputWriter#probeRowBytes}). */
    private int[] rowBytes = new int[0];
    /** Each probe row's bytes as the candidate pairs' collector counts them, for the current batch. */
    private int[] collectorBytes = new int[0];
    /** The writer {@link #rowBytes} was computed for, for the current batch; null after {@link #start}. */
    private OutputWriter sizedFor;
    private int activeCount;
    private int readPos;
    private int tailPos;
    private long probeRows;
    private long probeNullKeyRows;

    /**
     * @param encoder         null for a single fixed-width key (compared by value)
     * @param buildEmpty      whether the build side had no rows at all (NULL keys included)
     * @param buildHasNullKey whether a build row had a NULL key (NOT IN then returns nothing)
     * @param candidatePairs  the extra condition's stage, or null when keys alone decide a match
     */
    public HashProbe(UnchainedTable table, JoinStrategy strategy, KeyHasher hasher, KeyEncoder encoder,
                     boolean buildEmpty, boolean buildHasNullKey, CandidatePairs candidatePairs) {
        this.table = table;
        this.rows = table.format();
        this.action = strategy.probe();
        this.marksBuild = strategy.marksBuildRows();
        this.hasher = hasher;
        this.encoder = encoder;
        this.buildEmpty = buildEmpty;
        this.suppressAll = action == ProbeAction.NULL_AWARE_ANTI && buildHasNullKey && !buildEmpty;
        this.stride = rows.stride();
        this.keyWidth = encoder == null ? rows.singleKeyWidth() : 0;
        this.keyOffset = rows.keyOffset();
        this.candidatePairs = candidatePairs;
        if (encoder == null && keyWidth == 0) {
            throw new IllegalArgumentException("a composite or variable-width key needs a key encoder");
        }
        if (marksBuild && !rows.hasHeader()) {
            throw new IllegalArgumentException("a table whose rows a probe marks must keep their header");
        }
    }

    /** Starts probing {@code probe}; it must stay valid until {@link #fill} returned true. */
    public void start(Batch probe) {
        int rows = probe.rowCount();
        ensureCapacity(rows);
        hasher.hash(probe, ownHashes, ownNullKeys);
        start(probe, ownHashes, ownNullKeys, RowMasks.NONE);
    }

    /**
     * Which rows of a probe batch are treated apart (any mask may be null: no such row). Rows with their bit set in
     * {@code deferred} are neither probed nor emitted (they belong to a spilled partition); rows with their bit set
     * in {@code noTail} are probed but never emitted as unmatched (the nested-loop path: they matched in an earlier
     * chunk, or a later chunk decides); rows with their bit set in {@code sureMisses} are known to have no equal
     * build key ({@link BuildKeyFilter}): they are not looked up, and are emitted as unmatched where the join type
     * wants that.
     */
    public record RowMasks(long[] deferred, long[] noTail, long[] sureMisses) {
        /** Every row probed and emitted as the join type says. */
        public static final RowMasks NONE = new RowMasks(null, null, null);

        /** The probe pass's masks: rows of spilled partitions deferred, the key filter's sure misses. */
        public static RowMasks deferredAndSureMisses(long[] deferred, long[] sureMisses) {
            return new RowMasks(deferred, null, sureMisses);
        }

        /** The nested-loop path's mask: rows never emitted as unmatched by this chunk. */
        public static RowMasks noTail(long[] noTail) {
            return new RowMasks(null, noTail, null);
        }
    }

    @Override
    public boolean readsKeyHashes() {
        return true;
    }

    /**
     * Starts probing {@code probe} whose key hashes and NULL-key bitmap are given (rows reloaded from a spill file
     * carry their stored hash; nothing is re-hashed), with some rows treated apart as {@code masks} say. All arrays
     * must stay unchanged until {@link #fill} returned true.
     */
    public void start(Batch probe, long[] keyHashes, long[] keyNulls, RowMasks masks) {
        long[] deferred = masks.deferred();
        long[] noTail = masks.noTail();
        long[] sureMisses = masks.sureMisses();
        batch = probe;
        n = probe.rowCount();
        ensureCapacity(n);
        hashes = keyHashes;
        nullKeys = keyNulls;
        this.deferred = deferred;
        this.noTail = noTail;
        int words = (n + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            probeNullKeyRows += Long.bitCount(nullKeys[w]);
            skip[w] = nullKeys[w] | (deferred == null ? 0L : deferred[w]) | (sureMisses == null ? 0L : sureMisses[w]);
        }
        probeRows += n;
        sizedFor = null;
        tailPos = 0;
        readPos = 0;
        activeCount = 0;
        if (suppressAll) {
            tailPos = n;
            return;
        }
        if (encoder != null) {
            encoder.encode(probe);
        } else {
            hasher.keyValues(probe, keys);
        }
        Arrays.fill(matched, 0, n, false);
        if (candidatePairs != null) {
            collectorBytes = candidatePairs.collector().probeRowBytes(probe, collectorBytes);
        }
        boolean keysDecide = candidatePairs == null;
        int m = table.loadSlots(hashes, n, skip, candidates, slotEnds, searching);
        int count;
        if (keyWidth != 0) {
            count = searchRounds(searching, m, active);
        } else {
            count = 0;
            for (int j = 0; j < m; j++) {
                int i = searching[j];
                long first = findMatch(i, candidates[i], slotEnds[i]);
                candidates[i] = first;
                active[count] = i;
                count += first != 0 ? 1 : 0;
            }
        }
        for (int j = 0; j < count; j++) {
            matched[active[j]] = keysDecide;
        }
        activeCount = count;
    }

    /**
     * Finds, for each probe row {@code i} in {@code list[0..count)} (whose slot range {@code [candidates[i],
     * slotEnds[i])} is not empty), the first row of that range whose single fixed-width key equals the row's; the
     * rows that have one go to {@code found} (returns how many), their candidate set to it. Rounds instead of a scan
     * per row: each round loads every listed row's candidate key in a loop of its own (the loads overlap), then
     * compares and keeps the rows whose range goes on with masks instead of branches (a match is a coin flip, which
     * a branch would mispredict). Addresses stay below 2^48, so {@code (a - b) >>> 63} is {@code a < b}.
     * {@code list} is overwritten; it and {@code found} must differ.
     */
    private int searchRounds(int[] list, int count, int[] found) {
        final long[] cand = candidates;
        final long[] ends = slotEnds;
        final long[] key = keys;
        final long[] loaded = loadedKeys;
        int hits = 0;
        while (count > 0) {
            for (int j = 0; j < count; j++) {
                loaded[j] = storedKey(cand[list[j]]);
            }
            int next = 0;
            for (int j = 0; j < count; j++) {
                int i = list[j];
                long row = cand[i];
                long differs = loaded[j] ^ key[i];
                long unequal = (differs | -differs) >> 63;
                int step = step(row);
                found[hits] = i;
                hits += 1 + (int) unequal;
                cand[i] = row + (step & unequal);
                list[next] = i;
                next += (int) (-unequal & ((row + step - ends[i]) >>> 63));
            }
            count = next;
        }
        return hits;
    }

    /** Whether row {@code row} of the last batch matched (valid once {@link #fill} returned true). */
    public boolean matched(int row) {
        return matched[row];
    }

    private void ensureCapacity(int rows) {
        if (candidates.length < rows) {
            ownHashes = new long[rows];
            candidates = new long[rows];
            slotEnds = new long[rows];
            keys = new long[rows];
            active = new int[rows];
            searching = new int[rows];
            loadedKeys = new long[rows];
            matched = new boolean[rows];
            ownNullKeys = new long[(rows + 63) >>> 6];
            skip = new long[(rows + 63) >>> 6];
        }
    }

    /** Continues the current batch: true when it is done, false when {@code out} is full (call again after). */
    public boolean fill(OutputWriter out) {
        out.readBuildRowsFrom(table);
        if (sizedFor != out) {
            rowBytes = out.probeRowBytes(batch, rowBytes);
            sizedFor = out;
        }
        if (candidatePairs != null) {
            return fillWithCondition(out);
        }
        boolean done = switch (action) {
            case PAIRS, PAIRS_OR_PAD -> emitPairs(out, rowBytes, marksBuild);
            case SEMI -> emitSemi(out);
            case ANTI, NULL_AWARE_ANTI -> true;
            case MARK -> markBuildRows();
        };
        return done && emitTail(out);
    }

    /**
     * With an extra condition: collects the batch's candidate pairs a collector batch at a time (every pair of
     * equal keys, whatever the action), and has {@link CandidatePairs} act on those the condition accepts; then the
     * tail pass.
     */
    private boolean fillWithCondition(OutputWriter out) {
        OutputWriter collector = candidatePairs.collector();
        while (true) {
            if (candidatePairs.pending()
                    && !candidatePairs.apply(action, marksBuild, out, matched, rowBytes, rows)) {
                return false;
            }
            if (readPos >= activeCount) {
                return emitTail(out);
            }
            collector.readBuildRowsFrom(table);
            emitPairs(collector, collectorBytes, false);
            candidatePairs.evaluate(batch);
        }
    }

    /**
     * Every (probe row, equal build row) pair, from each active row's current candidate on, into {@code out} with
     * the probe rows' byte counts {@code bytes}, setting build rows' MATCHED flags if {@code marks}.
     */
    private boolean emitPairs(OutputWriter out, int[] bytes, boolean marks) {
        if (keyWidth != 0) {
            return emitPairsByRounds(out, bytes, marks);
        }
        final long[] cand = candidates;
        final long[] ends = slotEnds;
        final int[] act = active;
        for (; readPos < activeCount; readPos++) {
            int i = act[readPos];
            long row = cand[i];
            long end = ends[i];
            int probeBytes = bytes[i];
            while (row != 0) {
                if (out.room() == 0) {
                    cand[i] = row;
                    return false;
                }
                out.append(i, probeBytes, row);
                if (marks) {
                    rows.setMatched(row);
                }
                row = findMatch(i, row + step(row), end);
            }
        }
        return true;
    }

    /**
     * {@link #emitPairs} for a single fixed-width key: appends the active rows' current matches, then moves every
     * active row past its match and finds its next equal row by {@link #searchRounds}, until no row has one.
     */
    private boolean emitPairsByRounds(OutputWriter out, int[] bytes, boolean marks) {
        final long[] cand = candidates;
        final long[] ends = slotEnds;
        final int[] act = active;
        while (activeCount > 0) {
            for (; readPos < activeCount; readPos++) {
                if (out.room() == 0) {
                    return false;
                }
                int i = act[readPos];
                long row = cand[i];
                out.append(i, bytes[i], row);
                if (marks) {
                    rows.setMatched(row);
                }
            }
            int count = 0;
            for (int j = 0; j < activeCount; j++) {
                int i = act[j];
                long after = cand[i] + step(cand[i]);
                cand[i] = after;
                searching[count] = i;
                count += (int) ((after - ends[i]) >>> 63);
            }
            activeCount = searchRounds(searching, count, act);
            readPos = 0;
        }
        return true;
    }

    /** Each active row once, without a build row. */
    private boolean emitSemi(OutputWriter out) {
        final int[] act = active;
        final int[] bytes = rowBytes;
        for (; readPos < activeCount; readPos++) {
            if (out.room() == 0) {
                return false;
            }
            int i = act[readPos];
            out.append(i, bytes[i], 0L);
        }
        return true;
    }

    /** Sets the MATCHED flag of every build row equal to an active row (stopping at one already marked). */
    private boolean markBuildRows() {
        final long[] cand = candidates;
        final long[] ends = slotEnds;
        final int[] act = active;
        for (; readPos < activeCount; readPos++) {
            int i = act[readPos];
            long end = ends[i];
            for (long row = cand[i]; row != 0 && !rows.isMatched(row); row = findMatch(i, row + step(row), end)) {
                rows.setMatched(row);
            }
        }
        return true;
    }

    /** The first row in {@code [row, end)} whose key equals probe row {@code i}'s, or 0. */
    private long findMatch(int i, long row, long end) {
        if (keyWidth != 0) {
            long key = keys[i];
            for (; row < end; row += step(row)) {
                if (storedKey(row) == key) {
                    return row;
                }
            }
            return 0;
        }
        byte[] bytes = encoder.bytes();
        int start = encoder.start(i);
        int length = encoder.length(i);
        for (; row < end; row += step(row)) {
            if (rows.keyEquals(row, bytes, start, length)) {
                return row;
            }
        }
        return 0;
    }

    /** A single fixed-width key as stored, sign-extended: the value {@link KeyHasher#keyValues} gives. */
    private long storedKey(long row) {
        long at = row + keyOffset;
        return keyWidth == 8 ? NativeMemory.getLong(at) : keyWidth == 4 ? NativeMemory.getInt(at) : NativeMemory.getByte(at);
    }

    private int step(long row) {
        return stride != 0 ? stride : NativeMemory.getInt(row);
    }

    private boolean emitTail(OutputWriter out) {
        switch (action) {
            case PAIRS_OR_PAD, ANTI -> {
                for (; tailPos < n; tailPos++) {
                    if (!matched[tailPos] && !excludedFromTail(tailPos)) {
                        if (out.room() == 0) {
                            return false;
                        }
                        out.append(tailPos, rowBytes[tailPos], 0L);
                    }
                }
            }
            case NULL_AWARE_ANTI -> {
                for (; tailPos < n; tailPos++) {
                    boolean nullKey = Bitmaps.isSet(nullKeys, tailPos);
                    if (!matched[tailPos] && (buildEmpty || !nullKey) && !excludedFromTail(tailPos)) {
                        if (out.room() == 0) {
                            return false;
                        }
                        out.append(tailPos, rowBytes[tailPos], 0L);
                    }
                }
            }
            case PAIRS, SEMI, MARK -> tailPos = n;
        }
        return true;
    }

    private boolean excludedFromTail(int row) {
        long bit = 1L << row;
        return deferred != null && (deferred[row >>> 6] & bit) != 0 || noTail != null && (noTail[row >>> 6] & bit) != 0;
    }

    /** The batch being probed (the one {@link OutputWriter#materialize} needs). */
    public Batch batch() {
        return batch;
    }

    public long probeRows() {
        return probeRows;
    }

    public long probeNullKeyRows() {
        return probeNullKeyRows;
    }
}
