package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.KeyEncoder;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;

import java.util.Arrays;

/**
 * Probes a {@link JoinHashTable} with one batch at a time and appends the results to an {@link OutputWriter};
 * resumable, so that a result batch can be handed out whenever it is full (one key may produce n×m rows).
 *
 * <p>Algorithm (batched for memory-level parallelism: a dependent random load costs hundreds of nanoseconds, see
 * docs/PERFORMANCE.md):
 * <ol>
 *   <li>hash the batch's keys ({@link KeyHasher}); for composite or variable-width keys also encode them into key
 *       bytes ({@link KeyEncoder});</li>
 *   <li>load the directory entries of all rows in one loop of independent loads ({@link JoinHashTable#loadHeads});
 *       the entry's tag filter drops most misses there;</li>
 *   <li>walk all chains in lock-step rounds: each round advances every still-active row by one chain element, so
 *       the row loads of one round are independent of each other. A candidate matches when its stored 64-bit hash
 *       equals the probe hash and, unless the key is a single fixed-width column (then equal hashes mean equal
 *       keys, see {@link dev.spilljoin.operator.row.HashFunctions}), its key bytes are equal;</li>
 *   <li>a tail pass emits the rows that had no match where the join type wants them (outer padding, ANTI).</li>
 * </ol>
 * SEMI and ANTI stop a row's walk at its first match; MARK stops at a build row already marked, because the first
 * probe row with that key walked the whole chain and marked every equal build row.
 */
public final class HashProbe implements TableProbe {
    private final JoinHashTable table;
    private final ProbeAction action;
    private final boolean marksBuild;
    private final KeyHasher hasher;
    private final KeyEncoder encoder;
    private final RowLayout layout;
    private final boolean buildEmpty;
    private final boolean suppressAll;
    /** The extra condition's stage (null: keys alone decide); the walk then only collects candidate pairs. */
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
    private long[] candidates = new long[0];
    private int[] active = new int[0];
    private boolean[] matched = new boolean[0];
    /** Each probe row's bytes as {@link #sizedFor} counts them ({@link OutputWriter#probeRowBytes}). */
    private int[] rowBytes = new int[0];
    /** Each probe row's bytes as the candidate pairs' collector counts them, for the current batch. */
    private int[] collectorBytes = new int[0];
    /** The writer {@link #rowBytes} was computed for, for the current batch; null after {@link #start}. */
    private OutputWriter sizedFor;
    private int activeCount;
    private int readPos;
    private int writePos;
    private int tailPos;
    private long probeRows;
    private long probeNullKeyRows;

    /**
     * @param encoder         null for a single fixed-width key (hash comparison suffices)
     * @param buildEmpty      whether the build side had no rows at all (NULL keys included)
     * @param buildHasNullKey whether a build row had a NULL key (NOT IN then returns nothing)
     * @param candidatePairs  the extra condition's stage, or null when keys alone decide a match
     */
    public HashProbe(JoinHashTable table, JoinStrategy strategy, KeyHasher hasher, KeyEncoder encoder,
                     RowLayout layout, boolean buildEmpty, boolean buildHasNullKey, CandidatePairs candidatePairs) {
        this.table = table;
        this.action = strategy.probe();
        this.marksBuild = strategy.marksBuildRows();
        this.hasher = hasher;
        this.encoder = encoder;
        this.layout = layout;
        this.buildEmpty = buildEmpty;
        this.suppressAll = action == ProbeAction.NULL_AWARE_ANTI && buildHasNullKey && !buildEmpty;
        this.candidatePairs = candidatePairs;
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
        writePos = 0;
        activeCount = 0;
        if (suppressAll) {
            tailPos = n;
            return;
        }
        if (encoder != null) {
            encoder.encode(probe);
        }
        Arrays.fill(matched, 0, n, false);
        if (candidatePairs != null) {
            collectorBytes = candidatePairs.collector().probeRowBytes(probe, collectorBytes);
        }
        table.loadHeads(hashes, n, skip, candidates, active);
        int count = 0;
        for (int i = 0; i < n; i++) {
            active[count] = i;
            count += candidates[i] != 0 ? 1 : 0;
        }
        activeCount = count;
    }

    /** Whether row {@code row} of the last batch matched (valid once {@link #fill} returned true). */
    public boolean matched(int row) {
        return matched[row];
    }

    private void ensureCapacity(int rows) {
        if (candidates.length < rows) {
            ownHashes = new long[rows];
            candidates = new long[rows];
            active = new int[rows];
            matched = new boolean[rows];
            ownNullKeys = new long[(rows + 63) >>> 6];
            skip = new long[(rows + 63) >>> 6];
        }
    }

    /** Continues the current batch: true when it is done, false when {@code out} is full (call again after). */
    public boolean fill(OutputWriter out) {
        out.readSerializedBuildRows();
        if (sizedFor != out) {
            rowBytes = out.probeRowBytes(batch, rowBytes);
            sizedFor = out;
        }
        if (candidatePairs != null) {
            return fillWithCondition(out);
        }
        while (activeCount > 0) {
            if (!walkRound(out, action, rowBytes)) {
                return false;
            }
            activeCount = writePos;
            readPos = 0;
            writePos = 0;
        }
        return emitTail(out);
    }

    /**
     * With an extra condition: collects the batch's candidate pairs a collector batch at a time, and has
     * {@link CandidatePairs} act on those the condition accepts; then the tail pass.
     */
    private boolean fillWithCondition(OutputWriter out) {
        OutputWriter collector = candidatePairs.collector();
        while (true) {
            if (candidatePairs.pending() && !candidatePairs.apply(action, marksBuild, out, matched, rowBytes)) {
                return false;
            }
            if (activeCount == 0) {
                return emitTail(out);
            }
            while (activeCount > 0 && walkRound(collector, ProbeAction.PAIRS, collectorBytes)) {
                activeCount = writePos;
                readPos = 0;
                writePos = 0;
            }
            candidatePairs.evaluate(batch);
        }
    }

    /**
     * One round of the chain walk, acting on matches as {@code action} says (PAIRS into a condition's collector only
     * appends: the condition decides what counts as a match); false when {@code out} filled up mid-round.
     */
    private boolean walkRound(OutputWriter out, ProbeAction action, int[] bytes) {
        final long[] cand = candidates;
        final long[] h = hashes;
        final int[] act = active;
        final boolean collecting = candidatePairs != null;
        final boolean hashIsKey = encoder == null;
        while (readPos < activeCount) {
            int i = act[readPos];
            long row = cand[i];
            if (RowLayout.hash(row) == h[i]
                    && (hashIsKey || layout.keyEquals(row, encoder.bytes(), encoder.start(i), encoder.length(i)))) {
                switch (action) {
                    case PAIRS, PAIRS_OR_PAD -> {
                        if (out.room() == 0) {
                            return false;
                        }
                        out.append(i, bytes[i], row);
                        if (!collecting) {
                            matched[i] = true;
                            if (marksBuild && !RowLayout.isMatched(row)) {
                                RowLayout.setMatched(row);
                            }
                        }
                        row = JoinHashTable.next(row);
                    }
                    case SEMI -> {
                        if (out.room() == 0) {
                            return false;
                        }
                        out.append(i, bytes[i], 0L);
                        matched[i] = true;
                        row = 0;
                    }
                    case ANTI, NULL_AWARE_ANTI -> {
                        matched[i] = true;
                        row = 0;
                    }
                    case MARK -> {
                        if (RowLayout.isMatched(row)) {
                            row = 0;
                        } else {
                            RowLayout.setMatched(row);
                            row = JoinHashTable.next(row);
                        }
                    }
                }
            } else {
                row = JoinHashTable.next(row);
            }
            cand[i] = row;
            if (row != 0) {
                act[writePos++] = i;
            }
            readPos++;
        }
        return true;
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
