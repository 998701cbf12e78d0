package dev.spilljoin.operator;

import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import java.util.Locale;

/**
 * One input row needs more memory than the join's budget can give it, even with every partition spilled: its own
 * page while it is partitioned or staged for spilling. Carries what a caller needs to point at the row and to say
 * which budget would do: the input ({@link #side()}), the row's index in the batch that input's source handed out
 * last ({@link #batchRow()}), its serialized size ({@link #rowBytes()}) and the smallest budget whose sizing holds
 * rows of that size in every phase ({@link #neededBudget()}, {@link HashJoin#budgetForRow}).
 */
public final class RowTooLargeException extends MemoryExhaustedException {
    private static final long serialVersionUID = 1L;

    private final Side side;
    private final int batchRow;
    private final long rowBytes;
    private final long neededBudget;

    RowTooLargeException(JoinContext ctx, Side side, int batchRow, long rowBytes) {
        super(message(ctx, side, batchRow, rowBytes));
        this.side = side;
        this.batchRow = batchRow;
        this.rowBytes = rowBytes;
        this.neededBudget = HashJoin.budgetForRow(ctx.config, rowBytes);
    }

    private static String message(JoinContext ctx, Side side, int batchRow, long rowBytes) {
        return "hash join: a " + side.name().toLowerCase(Locale.ROOT) + " row of " + rowBytes
                + " bytes (row " + batchRow + " of its batch) needs a page of its own but the budget of "
                + ByteSize.format(ctx.memory.limit()) + " is full and every partition it could spill has spilled ("
                + ctx.sizing.describe() + "); give it at least "
                + ByteSize.format(HashJoin.budgetForRow(ctx.config, rowBytes));
    }

    /** The input the row comes from. */
    public Side side() {
        return side;
    }

    /** The row's index in the batch its source handed out last. */
    public int batchRow() {
        return batchRow;
    }

    /** The row's size in the join's row format. */
    public long rowBytes() {
        return rowBytes;
    }

    /** The smallest budget that holds rows of {@link #rowBytes()} in every phase of the join. */
    public long neededBudget() {
        return neededBudget;
    }
}
