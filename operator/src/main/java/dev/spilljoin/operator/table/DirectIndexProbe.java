package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.table.HashProbe.RowMasks;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.spill.NativeMemory;

/**
 * Probes a {@link DirectIndexTable} with one batch at a time and appends the results to an {@link OutputWriter};
 * resumable like {@link HashProbe}, with the same masks and the same results for every {@link ProbeAction}.
 *
 * <p>Algorithm: {@link #start} reads the batch's key column (INTEGER widened to long) and finds every row's build
 * row in one branch-free loop of independent loads: {@code index = (key - min) / stride} (for a stride above 1 by a
 * shift and a multiply, {@link KeyStride}; a key off the stride gets -1), compared unsigned with the range (so a key
 * below {@code min}, one whose difference overflows, or one off the stride is out of range), then the index's
 * occupancy bit (one load from the small, cached occupancy bitmap). A hit's reference carries its index and its rank
 * ({@link DirectIndexTable#refOf}, the rank found in a second loop over the hits only), a miss's or a skipped row's
 * is 0.
 * Keys are unique in the table, so a probe row has at most one match: {@link #fill} then walks the rows once, in
 * a loop specialised per action, emitting each row's result in row order (the pair, the padded miss, the SEMI or
 * ANTI row) and marking MATCHED bits; it stops before a row that needs room when the writer is full.
 */
public final class DirectIndexProbe implements TableProbe {
    private final DirectIndexTable table;
    private final ProbeAction action;
    private final boolean marksBuild;
    private final int keyColumn;
    private final boolean buildEmpty;
    private final boolean suppressAll;

    private Batch batch;
    private int n;
    /** The batch's keys as indexes in the table ({@link #toIndexes}). */
    private long[] indexes = new long[0];
    private long[] refs = new long[0];
    /** Whether every row of the batch has a build row's ref (none is 0), as {@link #lookUp} found. */
    private boolean everyRowHits;
    private long[] ownNullKeys = new long[0];
    private long[] skip = new long[0];
    /** Rows never emitted as unmatched: deferred or noTail. */
    private long[] noEmit = new long[0];
    private long[] nullKeys;
    private int[] rowBytes = new int[0];
    private OutputWriter sizedFor;
    private int pos;
    private long probeRows;
    private long probeNullKeyRows;

    /**
     * @param keyColumn       the probe batches' key column (BIGINT or INTEGER, as the build key)
     * @param buildEmpty      whether the build side had no rows at all (NULL keys included)
     * @param buildHasNullKey whether a build row had a NULL key (NOT IN then returns nothing)
     */
    public DirectIndexProbe(DirectIndexTable table, JoinStrategy strategy, int keyColumn, boolean buildEmpty,
                            boolean buildHasNullKey) {
        this.table = table;
        this.action = strategy.probe();
        this.marksBuild = strategy.marksBuildRows();
        this.keyColumn = keyColumn;
        this.buildEmpty = buildEmpty;
        this.suppressAll = action == ProbeAction.NULL_AWARE_ANTI && buildHasNullKey && !buildEmpty;
    }

    @Override
    public void start(Batch probe) {
        int n = probe.rowCount();
        ensureCapacity(n);
        ColumnVector key = probe.column(keyColumn);
        int words = (n + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            ownNullKeys[w] = key.mayHaveNulls() ? key.nullBitmap()[w] : 0L;
        }
        if ((n & 63) != 0) {
            ownNullKeys[words - 1] &= -1L >>> (64 - (n & 63));
        }
        start(probe, null, ownNullKeys, RowMasks.NONE);
    }

    @Override
    public boolean readsKeyHashes() {
        return false;
    }

    /** The key hashes are not read: the table is indexed by the key itself. */
    @Override
    public void start(Batch probe, long[] keyHashes, long[] keyNulls, RowMasks masks) {
        batch = probe;
        n = probe.rowCount();
        ensureCapacity(n);
        nullKeys = keyNulls;
        long[] deferred = masks.deferred();
        long[] noTail = masks.noTail();
        long[] sureMisses = masks.sureMisses();
        int words = (n + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            probeNullKeyRows += Long.bitCount(keyNulls[w]);
            long notProbed = deferred == null ? 0L : deferred[w];
            skip[w] = keyNulls[w] | notProbed | (sureMisses == null ? 0L : sureMisses[w]);
            noEmit[w] = notProbed | (noTail == null ? 0L : noTail[w]);
        }
        probeRows += n;
        sizedFor = null;
        pos = suppressAll ? n : 0;
        ColumnVector key = probe.column(keyColumn);
        if (table.full() && table.stride().stride() == 1 && key.type() == ColumnType.BIGINT) {
            lookUpFull(key.longs(), table.min()); // the keys as they are: no index copied first
        } else {
            readKeys(key);
            lookUp();
        }
    }

    /** Reads the batch's keys (INTEGER widened) as their indexes in the table ({@link #toIndexes}). */
    private void readKeys(ColumnVector key) {
        long[] k = indexes;
        if (key.type() == ColumnType.INTEGER) {
            int[] v = key.ints();
            for (int i = 0; i < n; i++) {
                k[i] = v[i];
            }
        } else {
            System.arraycopy(key.longs(), 0, k, 0, n);
        }
        toIndexes();
    }

    /**
     * Turns each key into its index {@code (key - min) / stride}, compared unsigned with the range by the lookup: a
     * key below {@code min} or whose difference overflows lands above it, and so does a key off the stride (-1). A
     * loop of its own, apart from the lookup, so that keys on no stride (most) pay one subtraction for it.
     */
    private void toIndexes() {
        long[] k = indexes;
        long min = table.min();
        KeyStride stride = table.stride();
        if (stride.stride() == 1) {
            for (int i = 0; i < n; i++) {
                k[i] -= min;
            }
            return;
        }
        int shift = stride.shift();
        long inverse = stride.inverse();
        long lowBits = stride.lowBits();
        for (int i = 0; i < n; i++) {
            long difference = k[i] - min;
            long off = difference & lowBits; // not 0: off the stride
            k[i] = (difference >>> shift) * inverse | (off | -off) >> 63;
        }
    }

    /**
     * Each row's reference ({@link DirectIndexTable#refOf}) or 0 from its index, branch-free: one occupancy load per
     * row, all independent, then a rank per hit; none when every value of the range is a key (a full table: a key in
     * the range is a hit, and its rank is its index).
     */
    private void lookUp() {
        long[] k = indexes;
        long[] r = refs;
        long[] s = skip;
        long range = table.range();
        if (table.full()) {
            lookUpFull(k, 0);
            return;
        }
        int hits = 0;
        long occupancy = table.occupancy();
        for (int i = 0; i < n; i++) {
            long index = k[i];
            boolean inRange = Long.compareUnsigned(index, range) < 0;
            long at = inRange ? index : 0;
            long bits = NativeMemory.getLong(occupancy + ((at >>> 6) << 3));
            boolean hit = inRange & (bits >>> at & 1L & ~(s[i >>> 6] >>> i)) != 0;
            r[i] = hit ? index + 1 : 0L;
        }
        for (int i = 0; i < n; i++) { // the hits' ranks, apart: a miss loads no rank
            if (r[i] != 0) {
                r[i] = table.refOf(r[i] - 1);
                hits++;
            }
        }
        everyRowHits = hits == n;
    }

    /**
     * {@link #lookUp} in a full table, whose every index in the range is a hit with its index as its rank: row
     * {@code i}'s index is {@code values[i] - offset} (its key less the table's minimum for keys on no stride, or the
     * index {@link #toIndexes} made, less 0).
     */
    private void lookUpFull(long[] values, long offset) {
        long[] r = refs;
        long[] s = skip;
        long range = table.range();
        int hits = 0;
        for (int i = 0; i < n; i++) {
            long index = values[i] - offset;
            boolean hit = Long.compareUnsigned(index, range) < 0 & (~(s[i >>> 6] >>> i) & 1L) != 0;
            r[i] = hit ? DirectIndexTable.ref(index, index) : 0L;
            hits += hit ? 1 : 0;
        }
        everyRowHits = hits == n;
    }

    private void ensureCapacity(int rows) {
        if (refs.length < rows) {
            indexes = new long[rows];
            refs = new long[rows];
            int words = (rows + 63) >>> 6;
            ownNullKeys = new long[words];
            skip = new long[words];
            noEmit = new long[words];
        }
    }

    @Override
    public boolean fill(OutputWriter out) {
        out.readBuildRowsFrom(table);
        if (sizedFor != out) {
            rowBytes = out.probeRowBytes(batch, rowBytes);
            sizedFor = out;
        }
        return switch (action) {
            case PAIRS -> fillPairs(out);
            case PAIRS_OR_PAD -> fillPairsOrPad(out);
            case SEMI -> fillSemi(out);
            case ANTI -> fillAnti(out, false);
            case NULL_AWARE_ANTI -> fillAnti(out, !buildEmpty);
            case MARK -> mark();
        };
    }

    private boolean fillPairs(OutputWriter out) {
        if (!marksBuild) {
            pos = everyRowHits ? out.appendEveryRow(refs, rowBytes, pos, n) : out.appendHits(refs, rowBytes, pos, n);
            return pos == n;
        }
        long[] r = refs;
        int[] bytes = rowBytes;
        for (; pos < n; pos++) {
            long ref = r[pos];
            if (ref != 0) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(pos, bytes[pos], ref);
                if (marksBuild) {
                    table.setMatched(ref);
                }
            }
        }
        return true;
    }

    private boolean fillPairsOrPad(OutputWriter out) {
        if (!marksBuild) {
            pos = out.appendHitsOrPadded(refs, noEmit, rowBytes, pos, n);
            return pos == n;
        }
        long[] r = refs;
        int[] bytes = rowBytes;
        long[] quiet = noEmit;
        for (; pos < n; pos++) {
            long ref = r[pos];
            if (ref != 0 || (quiet[pos >>> 6] >>> pos & 1L) == 0) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(pos, bytes[pos], ref);
                if (marksBuild && ref != 0) {
                    table.setMatched(ref);
                }
            }
        }
        return true;
    }

    private boolean fillSemi(OutputWriter out) {
        long[] r = refs;
        int[] bytes = rowBytes;
        for (; pos < n; pos++) {
            if (r[pos] != 0) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(pos, bytes[pos], 0L);
            }
        }
        return true;
    }

    /** ANTI, and NOT IN ({@code dropNullKeys}: a NULL probe key is not emitted unless the build side is empty). */
    private boolean fillAnti(OutputWriter out, boolean dropNullKeys) {
        long[] r = refs;
        int[] bytes = rowBytes;
        long[] quiet = noEmit;
        long[] nulls = nullKeys;
        for (; pos < n; pos++) {
            long bit = 1L << pos;
            int w = pos >>> 6;
            if (r[pos] == 0 && (quiet[w] & bit) == 0 && !(dropNullKeys && (nulls[w] & bit) != 0)) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(pos, bytes[pos], 0L);
            }
        }
        return true;
    }

    private boolean mark() {
        long[] r = refs;
        for (; pos < n; pos++) {
            if (r[pos] != 0) {
                table.setMatched(r[pos]);
            }
        }
        return true;
    }

    @Override
    public boolean matched(int row) {
        return !suppressAll && refs[row] != 0;
    }

    @Override
    public Batch batch() {
        return batch;
    }

    @Override
    public long probeRows() {
        return probeRows;
    }

    @Override
    public long probeNullKeyRows() {
        return probeNullKeyRows;
    }
}
