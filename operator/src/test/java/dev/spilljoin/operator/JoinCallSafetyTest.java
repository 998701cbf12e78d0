package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a join does with calls at the edges of its contract: a cancel or an interrupt while one input batch's rows
 * match many times over (every result batch is a boundary), a call that begins while another thread closes the join,
 * and batches that do not fit the side they are given for (wrong column types, null).
 */
class JoinCallSafetyTest {
    private static final long MB = 1L << 20;
    /** One probe batch of this many rows, all of one key, against as many build rows of that key. */
    private static final int HOT_ROWS = 4096;

    @TempDir
    Path spillRoot;

    private JoinSpec spec(int threads, MemoryReservation root, boolean spill) {
        return JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k").joinType(JoinType.INNER)
                .reservation(root).config(JoinConfig.builder().threads(threads).rowsPerWorker(0)
                        .spillDirectory(spillRoot)
                        .buildSide(Side.RIGHT).forceSpill(spill).fanoutLog2(2).build()).build();
    }

    /** {@code rows} rows of key 7: against each other, rows × rows results from a single batch of each side. */
    private static GeneratedSource hotKey(int rows) {
        return GeneratedSource.of(rows, i -> 7, i -> i);
    }

    private static Batch batchOf(Schema schema, long... keys) {
        return Rows.toBatches(schema, LongStream.of(keys).mapToObj(k -> new Object[] {k, k}).toList(), 16).get(0);
    }

    private void assertNothingLeft(MemoryReservation root) throws IOException {
        assertThat(root.reserved()).as("bytes reserved after close").isZero();
        try (var files = Files.list(spillRoot)) {
            assertThat(files).as("spill root after close").isEmpty();
        }
        assertThat(ParallelJoinTest.liveWorkerThreads()).as("worker threads alive after close").isEmpty();
    }

    @ParameterizedTest(name = "threads={0}, spilled={1}")
    @CsvSource({"1, false", "2, false", "1, true", "2, true"})
    void cancelWithinOneBatchsMatchesStopsAtTheNextResultBatch(int threads, boolean spilled) throws IOException {
        try (MemoryReservation root = MemoryReservation.root("cancel", 64 * MB)) {
            HashJoin join = HashJoin.create(spec(threads, root, spilled));
            Iterator<Batch> results = join.iterator(hotKey(HOT_ROWS), hotKey(HOT_ROWS));
            assertThat(results.hasNext()).isTrue();
            results.next();
            join.cancel();
            assertThatThrownBy(results::hasNext).as("the result batch after cancel()")
                    .isInstanceOf(CancellationException.class);
            join.close();
            assertNothingLeft(root);
        }
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2})
    void anInterruptWithinOneBatchsMatchesStopsAtTheNextResultBatch(int threads) throws IOException {
        try (MemoryReservation root = MemoryReservation.root("interrupt", 64 * MB)) {
            HashJoin join = HashJoin.create(spec(threads, root, false));
            Iterator<Batch> results = join.iterator(hotKey(HOT_ROWS), hotKey(HOT_ROWS));
            results.next();
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(results::hasNext).isInstanceOf(CancellationException.class)
                        .hasMessageContaining("interrupted");
            } finally {
                Thread.interrupted();
            }
            join.close();
            assertNothingLeft(root);
        }
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2})
    void aCancelWithinOnePushedBatchsMatchesEndsThePush(int threads) throws IOException {
        try (MemoryReservation root = MemoryReservation.root("push-cancel", 64 * MB)) {
            HashJoin join = HashJoin.create(spec(threads, root, false));
            AtomicInteger sinkCalls = new AtomicInteger();
            join.start(-1, -1, b -> {
                sinkCalls.incrementAndGet();
                join.cancel();
            });
            join.push(Side.RIGHT, hotKey(HOT_ROWS).next());
            join.endOfInput(Side.RIGHT);
            Batch probe = hotKey(HOT_ROWS).next();
            assertThatThrownBy(() -> join.push(Side.LEFT, probe)).isInstanceOf(CancellationException.class);
            assertThat(sinkCalls).as("result batches the sink got: the one during which it cancelled").hasValue(1);
            join.close();
            assertNothingLeft(root);
        }
    }

    @Test
    void helpersCallingAThreadSafeSinkStopAtTheirNextResultBatch() throws IOException {
        int threads = 2;
        try (MemoryReservation root = MemoryReservation.root("sink-cancel", 64 * MB)) {
            HashJoin join = HashJoin.create(spec(threads, root, false));
            AtomicInteger sinkCalls = new AtomicInteger();
            BatchSink cancellingSink = new BatchSink() {
                @Override
                public void accept(Batch batch) {
                    sinkCalls.incrementAndGet();
                    join.cancel();
                }

                @Override
                public boolean isThreadSafe() {
                    return true;
                }
            };
            assertThatThrownBy(() -> join.run(hotKey(4 * HOT_ROWS), hotKey(HOT_ROWS), cancellingSink))
                    .isInstanceOf(CancellationException.class);
            assertThat(sinkCalls.get()).as("sink calls: the cancelling one and at most one per other worker begun"
                    + " before it").isBetween(1, threads);
            join.close();
            assertNothingLeft(root);
        }
    }

    @Test
    void aCallBegunWhileAnotherThreadClosesIsRefused() throws IOException {
        try (MemoryReservation root = MemoryReservation.root("close-race", 64 * MB)) {
            AtomicReference<Iterator<Batch>> results = new AtomicReference<>();
            AtomicReference<Throwable> lateCall = new AtomicReference<>();
            JoinFaults callDuringClose = new JoinFaults() {
                @Override
                public void closeFoundNoCall() {
                    Thread caller = new Thread(() -> {
                        try {
                            results.get().hasNext();
                        } catch (Throwable e) {
                            lateCall.set(e);
                        }
                    });
                    caller.start();
                    try {
                        caller.join();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            };
            HashJoin join = HashJoin.create(spec(1, root, false), callDuringClose);
            results.set(join.iterator(hotKey(HOT_ROWS), hotKey(HOT_ROWS)));
            results.get().next();
            join.close();
            assertThat(lateCall.get()).as("hasNext() begun on another thread while close() ran")
                    .isInstanceOf(IllegalStateException.class).hasMessage("the join is closed");
            assertNothingLeft(root);
        }
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2})
    void aPushedBatchOfOtherColumnTypesIsRefusedAndTheJoinGoesOn(int threads) throws IOException {
        Schema other = Schema.of(Column.of("k", ColumnType.VARCHAR), Column.of("p", ColumnType.BIGINT));
        Batch wrongTypes = Rows.toBatches(other, List.<Object[]>of(new Object[] {"abc", 1L}), 4).get(0);
        Schema wider = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("p", ColumnType.BIGINT),
                Column.of("q", ColumnType.BIGINT));
        Batch wrongCount = Rows.toBatches(wider, List.<Object[]>of(new Object[] {1L, 1L, 1L}), 4).get(0);
        try (MemoryReservation root = MemoryReservation.root("push-schema", 64 * MB)) {
            List<Object[]> out = new ArrayList<>();
            try (HashJoin join = HashJoin.create(spec(threads, root, false))) {
                join.start(-1, -1, b -> out.addAll(Rows.fromBatch(b)));
                assertThatThrownBy(() -> join.push(Side.RIGHT, wrongTypes)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("a RIGHT batch of columns (k VARCHAR, p BIGINT) does not match the join's RIGHT"
                                + " schema (k BIGINT, p BIGINT): column 1 ('k') is VARCHAR where the RIGHT side has"
                                + " BIGINT; give this side batches of its schema (JoinSpec)");
                assertThatThrownBy(() -> join.push(Side.RIGHT, wrongCount)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(": 3 columns where the RIGHT side has 2;");
                assertThatThrownBy(() -> join.push(Side.RIGHT, null)).isInstanceOf(NullPointerException.class)
                        .hasMessage("a RIGHT batch is null; pass a batch of (k BIGINT, p BIGINT)");
                assertThatThrownBy(() -> join.push(null, wrongCount)).isInstanceOf(NullPointerException.class)
                        .hasMessage("push: the side is null");
                join.push(Side.RIGHT, batchOf(GeneratedSource.SCHEMA, 1, 2, 3));
                join.endOfInput(Side.RIGHT);
                join.push(Side.LEFT, batchOf(GeneratedSource.SCHEMA, 2, 3, 4));
                join.endOfInput(Side.LEFT);
                assertThatThrownBy(() -> join.push(Side.LEFT, batchOf(GeneratedSource.SCHEMA, 5)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage("cannot push a probe-side (LEFT) batch in phase DONE (expected PROBE)");
            }
            assertThat(out).as("the join after the refused batches").hasSize(2);
            assertNothingLeft(root);
        }
    }

    @Test
    void aSourceBatchOfOtherColumnTypesFailsTheJoinAndLeavesNothing() throws IOException {
        Schema other = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("p", ColumnType.VARCHAR));
        Batch wrongTypes = Rows.toBatches(other, List.<Object[]>of(new Object[] {1L, "x"}), 4).get(0);
        try (MemoryReservation root = MemoryReservation.root("source-schema", 64 * MB)) {
            HashJoin join = HashJoin.create(spec(2, root, true));
            assertThatThrownBy(() -> join.run(BatchSources.of(List.of(wrongTypes)), hotKey(10), b -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a LEFT batch of columns (k BIGINT, p VARCHAR) does not match the join's"
                            + " LEFT schema (k BIGINT, p BIGINT): column 2 ('p') is VARCHAR");
            join.close();
            assertNothingLeft(root);
        }
    }
}
