package dev.spilljoin.operator.table;

import dev.spilljoin.operator.table.JoinStrategy.FinishAction;

/**
 * The finish pass over one resident table cut into disjoint ranges (morsels, Leis et al., SIGMOD 2014), so that
 * several workers scan it, each taking the next range ({@link #scan}) and emitting into its own result batch.
 *
 * <p>Ranges: an {@link UnchainedTable}'s slots in runs of whole slots, a run being the rows from its first slot's
 * start to the next run's (a slot's rows lie back to back in slot order, so the directory entries give both ends:
 * {@link UnchainedTable#slotStart}), then its NULL-key rows as a range of their own; a {@link DirectIndexTable}'s
 * occupancy blocks in runs of whole blocks (a 64-bit word of occupancy bits, 64 key indexes), then its NULL-key rows
 * as a range of their own. A run is about an eighth of a worker's even share of the table
 * ({@value #RANGES_PER_WORKER} ranges per worker, so that workers that started late or were slowed still even out),
 * but never fewer than {@value #MIN_SLOTS} slots or {@value #MIN_BLOCKS} block, and never more than
 * {@value #MAX_SLOTS} slots or {@value #MAX_BLOCKS} blocks (a range is a morsel, not a worker's share).
 *
 * <p>Invariants: the ranges cover every row of the table exactly once (the slot runs and block runs tile the
 * directory and the blocks); with one worker there is one range, the scan of the whole table in storage order that
 * the pass ran before it was cut; none when the finish action emits nothing. The table is only read: the pass runs
 * after every worker of the probe pass stopped, so every MATCHED mark is set and visible before any range is
 * scanned, and every row's flags stay as they are while the ranges are scanned.
 */
public final class FinishRanges {
    /** Ranges per worker (when the table is large enough): the load balance of the morsels. */
    static final int RANGES_PER_WORKER = 8;
    static final int MIN_SLOTS = 64;
    static final int MAX_SLOTS = 1 << 14;
    static final int MIN_BLOCKS = 1;
    static final int MAX_BLOCKS = 256;

    private final UnchainedTable table;
    private final DirectIndexTable direct;
    private final FinishAction action;
    private final boolean probeEmpty;
    private final boolean probeHasNullKey;
    /** Slots or blocks of a run. */
    private final long unitsPerRange;
    /** Slots or blocks of the table. */
    private final long units;
    private final int keyedRanges;
    private final int count;

    private FinishRanges(UnchainedTable table, DirectIndexTable direct, FinishAction action, boolean probeEmpty,
                         boolean probeHasNullKey, int workers, long units, long least, long most,
                         boolean nullKeyRows) {
        this.table = table;
        this.direct = direct;
        this.action = action;
        this.probeEmpty = probeEmpty;
        this.probeHasNullKey = probeHasNullKey;
        this.units = units;
        if (workers <= 1) {
            unitsPerRange = units;
            keyedRanges = 1;
            count = BuildRowScan.emitsAny(action, probeEmpty, probeHasNullKey) ? 1 : 0;
            return;
        }
        long ranges = (long) workers * RANGES_PER_WORKER;
        unitsPerRange = Math.max(least, Math.min(most, (units + ranges - 1) / ranges));
        keyedRanges = (int) ((units + unitsPerRange - 1) / unitsPerRange);
        count = BuildRowScan.emitsAny(action, probeEmpty, probeHasNullKey) ? keyedRanges + (nullKeyRows ? 1 : 0) : 0;
    }

    /** The ranges of {@code table}'s finish pass with {@code action} for {@code workers} workers. */
    public static FinishRanges of(UnchainedTable table, FinishAction action, boolean probeEmpty,
                                  boolean probeHasNullKey, int workers) {
        return new FinishRanges(table, null, action, probeEmpty, probeHasNullKey, workers, table.slotCount(),
                MIN_SLOTS, MAX_SLOTS, table.endOfRows() > table.nullKeyRowsStart());
    }

    /** The ranges of {@code table}'s finish pass with {@code action} for {@code workers} workers. */
    public static FinishRanges of(DirectIndexTable table, FinishAction action, boolean probeEmpty,
                                  boolean probeHasNullKey, int workers) {
        return new FinishRanges(null, table, action, probeEmpty, probeHasNullKey, workers, table.blockCount(),
                MIN_BLOCKS, MAX_BLOCKS, table.nullKeyRows() > 0);
    }

    /** The number of ranges (0 when the finish action emits nothing). */
    public int count() {
        return count;
    }

    /** The scan of range {@code range} (of {@link #count}): a fresh scan, resumable as any {@link FinishScan}. */
    public FinishScan scan(int range) {
        if (range < 0 || range >= count) {
            throw new IndexOutOfBoundsException("finish range " + range + " of " + count);
        }
        if (count == 1) { // one worker, or no NULL-key rows and a single run: the whole table
            return table != null ? new BuildRowScan(table, action, probeEmpty, probeHasNullKey)
                    : new DirectIndexScan(direct, action, probeEmpty, probeHasNullKey);
        }
        if (range == keyedRanges) {
            return table != null
                    ? new BuildRowScan(table, action, probeEmpty, probeHasNullKey, table.nullKeyRowsStart(),
                            table.endOfRows())
                    : new DirectIndexScan(direct, action, probeEmpty, probeHasNullKey, 0, 0, 0, direct.nullKeyRows());
        }
        long from = range * unitsPerRange;
        long to = Math.min(units, from + unitsPerRange);
        return table != null
                ? new BuildRowScan(table, action, probeEmpty, probeHasNullKey, table.slotStart((int) from),
                        table.slotStart((int) to))
                : new DirectIndexScan(direct, action, probeEmpty, probeHasNullKey, from, to, 0, 0);
    }
}
