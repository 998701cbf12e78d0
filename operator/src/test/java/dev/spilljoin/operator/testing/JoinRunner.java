package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.spill.MemoryReservation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicInteger;
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
    /**
     * How the join is driven: PUSH_CONCURRENT pushes each side's batches from {@code threads} threads at once (the
     * join's configured workers), into a sink that is not thread-safe; PUSH_CONCURRENT_SAFE_SINK does the same into a
     * sink that declares itself thread-safe (called concurrently). SINK_CONCURRENT_SOURCES runs the join over sources
     * that hand out concurrent readers (every worker reads for itself) into a sink that is not thread-safe (called
     * on the calling thread only); SINK_CONCURRENT_SOURCES_SAFE_SINK does the same into a thread-safe sink.
     */
    public enum Mode {
        SINK, ITERATOR, PUSH, PUSH_CONCURRENT, PUSH_CONCURRENT_SAFE_SINK, SINK_CONCURRENT_SOURCES,
        SINK_CONCURRENT_SOURCES_SAFE_SINK
    }

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
                case PUSH_CONCURRENT, PUSH_CONCURRENT_SAFE_SINK -> {
                    BatchSink sink = concurrentSink(mode == Mode.PUSH_CONCURRENT_SAFE_SINK, null, capacity, byteLimit,
                            rows);
                    Side first = join.start(l.sizeHintBytes(), r.sizeHintBytes(), sink);
                    int threads = spec.config().threads();
                    pushConcurrently(join, first, first == Side.LEFT ? left : right, threads);
                    pushConcurrently(join, first.other(), first == Side.LEFT ? right : left, threads);
                }
                case SINK_CONCURRENT_SOURCES, SINK_CONCURRENT_SOURCES_SAFE_SINK -> {
                    boolean safe = mode == Mode.SINK_CONCURRENT_SOURCES_SAFE_SINK;
                    join.run(BatchSources.concurrent(left), BatchSources.concurrent(right),
                            concurrentSink(safe, safe ? null : Thread.currentThread(), capacity, byteLimit, rows));
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

    /**
     * A sink collecting into {@code rows} from any thread. Unless {@code safe}, it declares itself not thread-safe and
     * asserts that no two threads are inside it at once and, with {@code onlyThread}, that every call comes from that
     * thread.
     */
    private static BatchSink concurrentSink(boolean safe, Thread onlyThread, int capacity, long byteLimit,
                                            List<Object[]> rows) {
        return new BatchSink() {
            private final AtomicInteger inside = new AtomicInteger();

            @Override
            public void accept(Batch b) {
                if (!safe) {
                    assertThat(inside.incrementAndGet()).as("threads inside an unsafe sink").isEqualTo(1);
                    if (onlyThread != null) {
                        assertThat(Thread.currentThread()).as("the thread calling an unsafe sink").isSameAs(onlyThread);
                    }
                }
                List<Object[]> batchRows = new ArrayList<>();
                collect(b, capacity, byteLimit, batchRows);
                synchronized (rows) {
                    rows.addAll(batchRows);
                }
                if (!safe) {
                    inside.decrementAndGet();
                }
            }

            @Override
            public boolean isThreadSafe() {
                return safe;
            }
        };
    }

    private static void push(HashJoin join, Side side, List<Batch> batches) {
        for (Batch b : batches) {
            join.push(side, b);
        }
        join.endOfInput(side);
    }

    /** Pushes {@code batches} from {@code threads} threads (batch i from thread i mod threads), then ends the side. */
    private static void pushConcurrently(HashJoin join, Side side, List<Batch> batches, int threads) {
        List<Thread> pushers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            int first = t;
            pushers.add(new Thread(() -> {
                try {
                    for (int i = first; i < batches.size(); i += threads) {
                        join.push(side, batches.get(i));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "test-pusher-" + t));
        }
        pushers.forEach(Thread::start);
        for (Thread t : pushers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new AssertionError("interrupted while pushing", e);
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("a pushing thread failed: " + failures.get(0), failures.get(0));
            throw error;
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
