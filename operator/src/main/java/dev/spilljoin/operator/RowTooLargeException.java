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
        this(message(ctx, side, batchRow, rowBytes), ctx, side, batchRow, rowBytes);
    }

    private RowTooLargeException(String message, JoinContext ctx, Side side, int batchRow, long rowBytes) {
        super(message);
        this.side = side;
        this.batchRow = batchRow;
        this.rowBytes = rowBytes;
        this.neededBudget = HashJoin.budgetForRow(ctx.config, rowBytes);
    }

    /**
     * A spilled row of {@code rowBytes} (in memory) that the nested-loop path cannot hold with its readers and
     * writer in its worker's share of the budget: rows of one key too large for the budget. No batch row to point at
     * ({@link #batchRow()} is -1); the side is the build side, whose rows the chunks hold.
     */
    static RowTooLargeException onNestedLoop(JoinContext ctx, long rowBytes) {
        Side side = ctx.strategy.buildSide();
        return new RowTooLargeException("hash join: rows of " + rowBytes + " bytes on the nested-loop path (rows of"
                + " one key that do not split) do not fit the budget of " + ByteSize.format(ctx.memory.limit())
                + " beside its readers and writer (" + ctx.sizing.describe() + "); give it at least "
                + ByteSize.format(HashJoin.budgetForRow(ctx.config, rowBytes)), ctx, side, -1, rowBytes);
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

    /** The row's index in the batch its source handed out last; -1 for a row met on the nested-loop path. */
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
