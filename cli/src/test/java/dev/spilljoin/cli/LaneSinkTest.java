package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link LaneSink}: threads writing at once each get a lane of their own (three threads meet inside their first
 * writes, each in a different lane); every batch is written once; the lanes are finished, then the output, once; an
 * output without lanes gives no sink; an output failure leaves the call as a {@link LaneSink.WriteFailure} holding
 * it; {@link LaneSink#interruptWriters()} frees a thread blocked in a write.
 */
class LaneSinkTest {
    private static final Schema SCHEMA = Schema.of(Column.of("id", ColumnType.BIGINT));

    @Test
    void threadsWritingAtOnceTakeLanesOfTheirOwnAndEveryBatchIsWrittenOnce() throws Exception {
        CyclicBarrier threeWriting = new CyclicBarrier(3);
        RecordingOutput output = new RecordingOutput(threeWriting);
        LaneSink sink = LaneSink.open(output, 3, 1 << 16, ProgressLine.DISABLED);
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < 3; t++) {
            long first = t * 1_000L;
            Thread thread = new Thread(() -> {
                Batch batch = new Batch(SCHEMA, 1);
                for (long id = first; id < first + 1_000; id++) {
                    batch.column(0).setLong(0, id);
                    batch.setRowCount(1);
                    sink.accept(batch);
                }
            });
            thread.setUncaughtExceptionHandler((th, e) -> failure.set(e));
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(failure.get()).isNull();
        sink.finish();
        assertThat(output.askedFor).isEqualTo(3);
        assertThat(output.bufferBytes).isEqualTo(1 << 16);
        List<Long> ids = new ArrayList<>();
        for (RecordingLane lane : output.lanes) {
            ids.addAll(lane.ids);
        }
        Collections.sort(ids);
        assertThat(ids).hasSize(3_000).doesNotHaveDuplicates().startsWith(0L).endsWith(2_999L);
        assertThat(output.lanes).allMatch(lane -> lane.finishes == 1);
        assertThat(output.finishes).isEqualTo(1);
        assertThat(output.lanesFinishedBeforeOutput).isEqualTo(3);
    }

    @Test
    void anOutputWithoutLanesGivesNoSink() throws IOException {
        ResultWriter parquetLike = new ResultWriter() {
            @Override
            public void write(Batch batch) {
            }

            @Override
            public void finish() {
            }

            @Override
            public long rowsWritten() {
                return 0;
            }
        };
        assertThat(LaneSink.open(parquetLike, 4, 1 << 20, ProgressLine.DISABLED)).isNull();
    }

    @Test
    void anOutputFailureLeavesTheCallAsAWriteFailureHoldingIt() throws IOException {
        IOException full = new IOException("No space left on device");
        LaneSink sink = LaneSink.open(new LanesOf(batch -> {
            throw full;
        }), 2, 1 << 16, ProgressLine.DISABLED);
        Batch batch = new Batch(SCHEMA, 1);
        batch.setRowCount(1);
        assertThatThrownBy(() -> sink.accept(batch)).isInstanceOf(LaneSink.WriteFailure.class)
                .satisfies(e -> assertThat(e.getCause()).isSameAs(full));
        // the lane went back: the next call fails the same way rather than waiting for a lane
        assertThatThrownBy(() -> sink.accept(batch)).isInstanceOf(LaneSink.WriteFailure.class);
    }

    @Test
    void interruptingTheWritersFreesAThreadBlockedInAWrite() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        LaneSink sink = LaneSink.open(new LanesOf(batch -> {
            blocked.countDown();
            try {
                new CountDownLatch(1).await(); // a pipe nobody reads
            } catch (InterruptedException e) {
                throw new InterruptedIOException("interrupted while blocked on the pipe");
            }
        }), 1, 1 << 16, ProgressLine.DISABLED);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            Batch batch = new Batch(SCHEMA, 1);
            batch.setRowCount(1);
            try {
                sink.accept(batch);
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        });
        writer.start();
        assertThat(blocked.await(30, TimeUnit.SECONDS)).isTrue();
        sink.interruptWriters();
        writer.join(30_000);
        assertThat(writer.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(LaneSink.WriteFailure.class)
                .satisfies(e -> assertThat(e.getCause()).isInstanceOf(InterruptedIOException.class));
    }

    /** What a lane does with a batch. */
    @FunctionalInterface
    private interface LaneWrite {
        void write(Batch batch) throws IOException;
    }

    /** An output whose lanes each do {@code write}. */
    private record LanesOf(LaneWrite write) implements ResultWriter {
        @Override
        public List<ResultWriter> lanes(int count, int bufferBytes) {
            List<ResultWriter> lanes = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                lanes.add(this);
            }
            return lanes;
        }

        @Override
        public void write(Batch batch) throws IOException {
            write.write(batch);
        }

        @Override
        public void finish() {
        }

        @Override
        public long rowsWritten() {
            return 0;
        }
    }

    /** An output of {@link RecordingLane}s, which counts how many had finished when it was finished itself. */
    private static final class RecordingOutput implements ResultWriter {
        private final CyclicBarrier barrier;
        private final List<RecordingLane> lanes = new ArrayList<>();
        private int askedFor;
        private int bufferBytes;
        private int finishes;
        private int lanesFinishedBeforeOutput;

        RecordingOutput(CyclicBarrier barrier) {
            this.barrier = barrier;
        }

        @Override
        public List<ResultWriter> lanes(int count, int bufferBytes) {
            askedFor = count;
            this.bufferBytes = bufferBytes;
            for (int i = 0; i < count; i++) {
                lanes.add(new RecordingLane(barrier));
            }
            return List.copyOf(lanes);
        }

        @Override
        public void write(Batch batch) {
            throw new AssertionError("the output itself writes no batch while it has lanes");
        }

        @Override
        public void finish() {
            finishes++;
            lanesFinishedBeforeOutput = (int) lanes.stream().filter(lane -> lane.finishes > 0).count();
        }

        @Override
        public long rowsWritten() {
            return lanes.stream().mapToLong(lane -> lane.ids.size()).sum();
        }
    }

    /** A lane that waits in its first write until two others are in theirs, then records the batches' ids. */
    private static final class RecordingLane implements ResultWriter {
        private final CyclicBarrier barrier;
        private final List<Long> ids = new ArrayList<>();
        private boolean met;
        private int finishes;

        RecordingLane(CyclicBarrier barrier) {
            this.barrier = barrier;
        }

        @Override
        public void write(Batch batch) throws IOException {
            if (!met) {
                met = true;
                try {
                    barrier.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                    throw new IOException("three threads did not write in three lanes at once", e);
                }
            }
            ids.add(batch.column(0).longs()[0]);
        }

        @Override
        public void finish() {
            finishes++;
        }

        @Override
        public long rowsWritten() {
            return ids.size();
        }
    }
}
