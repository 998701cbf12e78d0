package dev.spilljoin.operator.table;

import dev.spilljoin.operator.table.JoinStrategy.FinishAction;

/**
 * The finish pass: walks every build row of an {@link UnchainedTable} once, in storage order (the slots in order,
 * then the NULL-key rows), and emits those the {@link FinishAction} selects by their MATCHED and NULL_KEY flags
 * (probe side NULL). Resumable at any row, so a full result batch can be handed out. A scan may cover only the rows
 * between two row addresses, a range of whole slots or the NULL-key rows ({@link FinishRanges}), so that several
 * workers scan one table.
 */
public final class BuildRowScan implements FinishScan {
    private final UnchainedTable table;
    private final CompactRows rows;
    private final FinishAction action;
    private final boolean probeEmpty;
    private final boolean probeHasNullKey;
    private final long end;
    private long row;

    /** The scan of every row of {@code table}. */
    public BuildRowScan(UnchainedTable table, FinishAction action, boolean probeEmpty, boolean probeHasNullKey) {
        this(table, action, probeEmpty, probeHasNullKey, table.firstRow(), table.endOfRows());
    }

    /** The scan of {@code table}'s rows from address {@code from} to {@code to} (both at a row's start or the end). */
    BuildRowScan(UnchainedTable table, FinishAction action, boolean probeEmpty, boolean probeHasNullKey, long from,
                 long to) {
        this.table = table;
        this.rows = table.format();
        this.action = action;
        this.probeEmpty = probeEmpty;
        this.probeHasNullKey = probeHasNullKey;
        this.row = from;
        this.end = to;
    }

    /** Emits selected rows; true when every row was visited, false when {@code out} is full (call again). */
    public boolean fill(OutputWriter out) {
        if (!emitsAny(action, probeEmpty, probeHasNullKey)) {
            return true;
        }
        out.readBuildRowsFrom(table);
        for (; row < end; row += rows.rowLength(row)) {
            if (selects(rows.flags(row))) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(row);
            }
        }
        return true;
    }

    /**
     * Whether a finish pass with {@code action} may emit any row: not with {@link FinishAction#NONE}, nor a NULL-aware
     * anti join whose non-empty probe side held a NULL key (then no build row qualifies).
     */
    static boolean emitsAny(FinishAction action, boolean probeEmpty, boolean probeHasNullKey) {
        return action != FinishAction.NONE
                && !(action == FinishAction.NULL_AWARE_UNMATCHED && probeHasNullKey && !probeEmpty);
    }

    private boolean selects(int flags) {
        boolean matched = (flags & CompactRows.MATCHED) != 0;
        return switch (action) {
            case UNMATCHED_PADDED, UNMATCHED -> !matched;
            case MATCHED -> matched;
            case NULL_AWARE_UNMATCHED -> probeEmpty || !matched && (flags & CompactRows.NULL_KEY) == 0;
            case NONE -> false;
        };
    }
}
