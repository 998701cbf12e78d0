package dev.spilljoin.operator.table;

import dev.spilljoin.operator.table.JoinStrategy.FinishAction;
import dev.spilljoin.spill.NativeMemory;

/**
 * The finish pass over a {@link DirectIndexTable}: visits the occupied indexes in order (the set bits of the
 * occupancy blocks), then the NULL-key rows after the range, and emits those the {@link FinishAction} selects by
 * their MATCHED bit (a NULL-key row is never matched), probe side NULL. Resumable at any row: it keeps the block and
 * the bits of it not yet visited. A scan may cover only a range of whole blocks (64 indexes each) and a range of the
 * NULL-key rows ({@link FinishRanges}), so that several workers scan one table.
 */
public final class DirectIndexScan implements FinishScan {
    private final DirectIndexTable table;
    private final FinishAction action;
    private final boolean probeEmpty;
    private final boolean probeHasNullKey;
    private final long endBlock;
    private final long endNullKeyRow;
    private long block;
    private long bits;
    private boolean blockLoaded;
    private long nullKeyRow;

    /** The scan of every row of {@code table}. */
    public DirectIndexScan(DirectIndexTable table, FinishAction action, boolean probeEmpty, boolean probeHasNullKey) {
        this(table, action, probeEmpty, probeHasNullKey, 0, table.blockCount(), 0, table.nullKeyRows());
    }

    /**
     * The scan of {@code table}'s blocks {@code [fromBlock, toBlock)}, then of its NULL-key rows
     * {@code [fromNullKeyRow, toNullKeyRow)}.
     */
    DirectIndexScan(DirectIndexTable table, FinishAction action, boolean probeEmpty, boolean probeHasNullKey,
                    long fromBlock, long toBlock, long fromNullKeyRow, long toNullKeyRow) {
        this.table = table;
        this.action = action;
        this.probeEmpty = probeEmpty;
        this.probeHasNullKey = probeHasNullKey;
        this.block = fromBlock;
        this.endBlock = toBlock;
        this.nullKeyRow = fromNullKeyRow;
        this.endNullKeyRow = toNullKeyRow;
    }

    @Override
    public boolean fill(OutputWriter out) {
        if (!BuildRowScan.emitsAny(action, probeEmpty, probeHasNullKey)) {
            return true;
        }
        out.readBuildRowsFrom(table);
        long occupancy = table.occupancy();
        while (block < endBlock) {
            if (!blockLoaded) {
                bits = NativeMemory.getLong(occupancy + (block << 3));
                blockLoaded = true;
            }
            while (bits != 0) {
                long ref = table.refOf((block << 6) + Long.numberOfTrailingZeros(bits));
                if (selects(table.isMatched(ref), false)) {
                    if (out.room() == 0) {
                        return false;
                    }
                    out.append(ref);
                }
                bits &= bits - 1;
            }
            block++;
            blockLoaded = false;
        }
        long range = table.range();
        for (; nullKeyRow < endNullKeyRow; nullKeyRow++) {
            if (selects(false, true)) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(table.refOf(range + nullKeyRow));
            }
        }
        return true;
    }

    private boolean selects(boolean matched, boolean nullKey) {
        return switch (action) {
            case UNMATCHED_PADDED, UNMATCHED -> !matched;
            case MATCHED -> matched;
            case NULL_AWARE_UNMATCHED -> probeEmpty || !matched && !nullKey;
            case NONE -> false;
        };
    }
}
