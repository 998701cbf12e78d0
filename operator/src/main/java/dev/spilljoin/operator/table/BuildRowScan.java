package dev.spilljoin.operator.table;

import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.table.JoinStrategy.FinishAction;

/**
 * The finish pass: walks every build row in its arena once and emits those the {@link FinishAction} selects by
 * their MATCHED and NULL_KEY flags (probe side NULL). Resumable at any row, so a full result batch can be handed out.
 */
public final class BuildRowScan implements FinishScan {
    private final RowArena arena;
    private final FinishAction action;
    private final boolean probeEmpty;
    private final boolean probeHasNullKey;
    private int page;
    private long row;
    private long end;

    public BuildRowScan(RowArena arena, FinishAction action, boolean probeEmpty, boolean probeHasNullKey) {
        this.arena = arena;
        this.action = action;
        this.probeEmpty = probeEmpty;
        this.probeHasNullKey = probeHasNullKey;
        this.page = -1;
    }

    /** Emits selected rows; true when every row was visited, false when {@code out} is full (call again). */
    public boolean fill(OutputWriter out) {
        if (action == FinishAction.NONE
                || action == FinishAction.NULL_AWARE_UNMATCHED && probeHasNullKey && !probeEmpty) {
            return true;
        }
        out.readSerializedBuildRows();
        while (true) {
            if (row >= end) {
                page++;
                if (page >= arena.pageCount()) {
                    page = arena.pageCount();
                    return true;
                }
                row = arena.pageAddress(page);
                end = row + arena.pageUsed(page);
                continue;
            }
            if (selects(RowLayout.flags(row))) {
                if (out.room() == 0) {
                    return false;
                }
                out.append(row);
            }
            row += RowLayout.rowLength(row);
        }
    }

    private boolean selects(byte flags) {
        boolean matched = (flags & RowLayout.MATCHED) != 0;
        return switch (action) {
            case UNMATCHED_PADDED, UNMATCHED -> !matched;
            case MATCHED -> matched;
            case NULL_AWARE_UNMATCHED -> probeEmpty || !matched && (flags & RowLayout.NULL_KEY) == 0;
            case NONE -> false;
        };
    }
}
