package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.spill.MemoryReservation;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a join through one of its three driving forms and collects the result rows (copied out of each batch while
 * it is valid). Checks every result batch against the output schema, its row capacity and its byte bound (its
 * variable-width values before its last row are under {@code outputBatchBytes}), and, after close, that the
 * memory the join drew is back to zero and its peak stayed within the budget.
 */
public final class JoinRunner {
    /** How the join is driven. */
    public enum Mode { SINK, ITERATOR, PUSH }

    private JoinRunner() {
    }

    public record Result(List<Object[]> rows, JoinStats stats) {
    }

    /**
     * Runs {@code spec} (whose memory must be a reservation under {@code root}, or its own budget) over the given
     * batches. {@code root} is checked for zero reserved bytes and peak within its limit afterwards.
     */
    public static Result run(JoinSpec spec, List<Batch> left, List<Batch> right, Mode mode, MemoryReservation root) {
        return run(spec, HashJoin::create, left, right, mode, root);
    }

    /** As {@link #run(JoinSpec, List, List, Mode, MemoryReservation)}, with the join made by {@code create}. */
    public static Result run(JoinSpec spec, Function<JoinSpec, HashJoin> create, List<Batch> left, List<Batch> right,
                             Mode mode, MemoryReservation root) {
        List<Object[]> rows = new ArrayList<>();
        JoinStats stats;
        int capacity = spec.config().outputBatchRows();
        long byteLimit = spec.config().outputBatchBytes();
        try (HashJoin join = create.apply(spec)) {
            BatchSource l = BatchSources.of(left);
            BatchSource r = BatchSources.of(right);
            switch (mode) {
                case SINK -> join.run(l, r, b -> collect(b, capacity, byteLimit, rows));
                case ITERATOR -> {
                    Iterator<Batch> it = join.iterator(l, r);
                    while (it.hasNext()) {
                        collect(it.next(), capacity, byteLimit, rows);
                    }
                }
                case PUSH -> {
                    Side first = join.start(l.sizeHintBytes(), r.sizeHintBytes(),
                            b -> collect(b, capacity, byteLimit, rows));
                    push(join, first, first == Side.LEFT ? left : right);
                    push(join, first.other(), first == Side.LEFT ? right : left);
                }
            }
            stats = join.stats();
            assertThat(join.outputSchema()).isEqualTo(spec.outputSchema());
        }
        assertMemoryReleased(root);
        assertThat(stats.peakReservedBytes()).isLessThanOrEqualTo(stats.budgetBytes());
        assertThat(stats.outputRows()).isEqualTo(rows.size());
        return new Result(rows, stats);
    }

    private static void push(HashJoin join, Side side, List<Batch> batches) {
        for (Batch b : batches) {
            join.push(side, b);
        }
        join.endOfInput(side);
    }

    private static void collect(Batch b, int capacity, long byteLimit, List<Object[]> rows) {
        assertThat(b.rowCount()).isBetween(1, capacity);
        assertThat(valueBytesBeforeLastRow(b)).as("a result batch's values before its last row").isLessThan(byteLimit);
        rows.addAll(Rows.fromBatch(b));
    }

    /** The bytes of {@code b}'s variable-width values in all its rows but the last. */
    public static long valueBytesBeforeLastRow(Batch b) {
        long bytes = 0;
        for (int c = 0; c < b.columnCount(); c++) {
            if (b.column(c).type().isVariableWidth()) {
                bytes += b.column(c).offsets()[b.rowCount() - 1];
            }
        }
        return bytes;
    }

    public static void assertMemoryReleased(MemoryReservation root) {
        if (root != null) {
            assertThat(root.reserved()).as("bytes still reserved after close").isZero();
            assertThat(root.allocated()).as("bytes still allocated after close").isZero();
            assertThat(root.peakReserved()).isLessThanOrEqualTo(root.limit());
        }
    }
}
