package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import java.util.Locale;

/**
 * One input row needs more memory than the join's budget can give it, even with every partition spilled: its own
 * page while it is partitioned or staged for spilling. Carries what a caller needs to point at the row and to say
 * which budget would do: the input ({@link #side()}), the row's batch by its {@linkplain Batch#origin() origin}
 * ({@link #batchOrigin()}: on several workers the batch a source handed out last may be another worker's) and the
 * row's index in it ({@link #batchRow()}), its serialized size ({@link #rowBytes()}) and the smallest budget whose
 * sizing holds in every phase ({@link #neededBudget()}, {@link HashJoin#budgetForRow}) rows of the largest size the
 * join knows of when it refuses: the refused row's, or a larger row's of the rest of its batch, or, on the
 * nested-loop path, of any spilled row. So a budget it names is not refused again for a row it could see; a row of
 * a later batch larger still can be.
 */
public final class RowTooLargeException extends MemoryExhaustedException {
    private static final long serialVersionUID = 1L;

    private final Side side;
    private final long batchOrigin;
    private final int batchRow;
    private final long rowBytes;
    private final long largestRowBytes;
    private final long neededBudget;

    /**
     * Row {@code batchRow} of {@code side}'s {@code batch}, of {@code rowBytes}, cannot get a page;
     * {@code largestBytes} is the largest row of the rest of its batch (at least {@code rowBytes}), which the named
     * budget must hold too.
     */
    RowTooLargeException(JoinContext ctx, Side side, Batch batch, int batchRow, long rowBytes, long largestBytes) {
        this(message(ctx, side, batchRow, rowBytes, largestBytes), ctx, side, batch.origin(), batchRow, rowBytes,
                largestBytes);
    }

    private RowTooLargeException(String message, JoinContext ctx, Side side, long batchOrigin, int batchRow,
                                 long rowBytes, long largestBytes) {
        super(message);
        this.side = side;
        this.batchOrigin = batchOrigin;
        this.batchRow = batchRow;
        this.rowBytes = rowBytes;
        this.largestRowBytes = Math.max(rowBytes, largestBytes);
        this.neededBudget = HashJoin.budgetForRow(ctx.config, largestRowBytes);
    }

    /**
     * A spilled row of {@code rowBytes} (in memory) that the nested-loop path cannot hold with its readers and
     * writer in its worker's share of the budget: rows of one key too large for the budget. No batch row to point at
     * ({@link #batchRow()} is -1); the side is the build side, whose rows the chunks hold. {@code largestBytes} is
     * the largest spilled row of the join (every spilled row is written when the pairs are joined).
     */
    static RowTooLargeException onNestedLoop(JoinContext ctx, long rowBytes, long largestBytes) {
        Side side = ctx.strategy.buildSide();
        return new RowTooLargeException("hash join: rows of " + rowBytes + " bytes on the nested-loop path (rows of"
                + " one key that do not split) do not fit the budget of " + ByteSize.format(ctx.memory.limit())
                + " beside its readers and writer (" + ctx.sizing.describe() + "); give it at least "
                + needed(ctx, rowBytes, largestBytes, "spilled row"), ctx, side, -1, -1, rowBytes, largestBytes);
    }

    private static String message(JoinContext ctx, Side side, int batchRow, long rowBytes, long largestBytes) {
        return "hash join: a " + side.name().toLowerCase(Locale.ROOT) + " row of " + rowBytes
                + " bytes (row " + batchRow + " of its batch) needs a page of its own but the budget of "
                + ByteSize.format(ctx.memory.limit()) + " is full and every partition it could spill has spilled ("
                + ctx.sizing.describe() + "); give it at least "
                + needed(ctx, rowBytes, largestBytes, "row of its batch");
    }

    /** The budget for the larger of the two rows, saying which row it is for when that is not the refused one. */
    private static String needed(JoinContext ctx, long rowBytes, long largestBytes, String largestIs) {
        String budget = ByteSize.format(HashJoin.budgetForRow(ctx.config, Math.max(rowBytes, largestBytes)));
        return largestBytes > rowBytes
                ? budget + " (for rows of up to " + largestBytes + " bytes, the largest " + largestIs + ")" : budget;
    }

    /** The input the row comes from. */
    public Side side() {
        return side;
    }

    /**
     * The {@linkplain Batch#origin() origin} of the row's batch as its source marked it (a copy the join made for a
     * worker keeps it), or -1 if the source marked none or for a row met on the nested-loop path. With one worker
     * the batch is also the one its source handed out last.
     */
    public long batchOrigin() {
        return batchOrigin;
    }

    /** The row's index in its batch ({@link #batchOrigin()}); -1 for a row met on the nested-loop path. */
    public int batchRow() {
        return batchRow;
    }

    /** The row's size in the join's row format. */
    public long rowBytes() {
        return rowBytes;
    }

    /**
     * The largest row the join knew of when it refused this one (this row's size or more): of the rest of its batch,
     * or, on the nested-loop path, of every spilled row.
     */
    public long largestRowBytes() {
        return largestRowBytes;
    }

    /** The smallest budget that holds rows of {@link #largestRowBytes()} in every phase of the join. */
    public long neededBudget() {
        return neededBudget;
    }
}
