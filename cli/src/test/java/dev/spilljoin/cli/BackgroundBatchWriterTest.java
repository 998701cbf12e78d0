package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * {@link BackgroundBatchWriter}'s lanes: for N threads the output is asked for half as many lanes (up to
 * {@value BackgroundBatchWriter#MAX_LANES}), each written by a thread of its own at the same time as the others;
 * every batch handed over is written once, by some lane; each lane is finished on its thread and the output after
 * every lane, once; a format of one lane gets every batch on one thread.
 */
class BackgroundBatchWriterTest {
    private static final Schema SCHEMA = Schema.of(Column.of("id", ColumnType.BIGINT));

    @Test
    void lanesAreHalfTheThreadsAtLeastOneAtMostEight() {
        assertThat(BackgroundBatchWriter.lanes(1)).isEqualTo(1);
        assertThat(BackgroundBatchWriter.lanes(2)).isEqualTo(1);
        assertThat(BackgroundBatchWriter.lanes(3)).isEqualTo(1);
        assertThat(BackgroundBatchWriter.lanes(6)).isEqualTo(3);
        assertThat(BackgroundBatchWriter.lanes(16)).isEqualTo(8);
        assertThat(BackgroundBatchWriter.lanes(256)).isEqualTo(8);
    }

    @Test
    void threeLanesWriteAtOnceEveryBatchOnceThenTheOutputIsFinished() throws Exception {
        // Each lane waits in its first write until all three are in theirs: they run at the same time, or the wait
        // times out.
        CyclicBarrier allThreeWriting = new CyclicBarrier(3);
        RecordingOutput output = new RecordingOutput(allThreeWriting);
        writeIds(output, 6, 1_000);
        assertThat(output.askedFor).isEqualTo(3);
        List<Long> ids = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        for (RecordingLane lane : output.lanes) {
            ids.addAll(lane.ids);
            threads.add(lane.thread);
            assertThat(lane.finishedOn).as("a lane is finished on its own thread").isEqualTo(lane.thread);
        }
        Collections.sort(ids);
        assertThat(ids).hasSize(1_000).doesNotHaveDuplicates().startsWith(0L).endsWith(999L);
        assertThat(threads).doesNotHaveDuplicates().allMatch(name -> name.startsWith("spilljoin-write"));
        assertThat(output.finishes).isEqualTo(1);
        assertThat(output.lanesFinishedBeforeOutput).isEqualTo(3);
    }

    @Test
    void aFormatOfOneLaneGetsEveryBatchOnOneThreadAndItsOwnFinish() throws IOException {
        List<Long> ids = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        int[] finishes = new int[1];
        ResultWriter parquetLike = new ResultWriter() {
            @Override
            public void write(Batch batch) {
                ids.add(batch.column(0).longs()[0]);
                threads.add(Thread.currentThread().getName());
            }

            @Override
            public void finish() {
                finishes[0]++;
            }

            @Override
            public long rowsWritten() {
                return ids.size();
            }
        };
        writeIds(parquetLike, 8, 100);
        assertThat(ids).hasSize(100).isSorted();
        assertThat(threads).containsOnly("spilljoin-write");
        assertThat(finishes[0]).isEqualTo(1);
    }

    /** Writes ids 0 .. count - 1, a batch each, to {@code output} behind the caller for {@code threads}. */
    private static void writeIds(ResultWriter output, int threads, int count) throws IOException {
        try (BackgroundBatchWriter writer = new BackgroundBatchWriter(output, SCHEMA, 1 << 20, threads)) {
            Batch batch = new Batch(SCHEMA, 1);
            for (long id = 0; id < count; id++) {
                batch.column(0).setLong(0, id);
                batch.setRowCount(1);
                writer.write(batch);
            }
            writer.finish();
        }
    }

    /** An output of {@link RecordingLane}s, which counts how many had finished when it was finished itself. */
    private static final class RecordingOutput implements ResultWriter {
        private final CyclicBarrier barrier;
        private final List<RecordingLane> lanes = new ArrayList<>();
        private int askedFor;
        private int finishes;
        private int lanesFinishedBeforeOutput;

        RecordingOutput(CyclicBarrier barrier) {
            this.barrier = barrier;
        }

        @Override
        public List<ResultWriter> lanes(int count) {
            askedFor = count;
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
            lanesFinishedBeforeOutput = (int) lanes.stream().filter(lane -> lane.finishedOn != null).count();
        }

        @Override
        public long rowsWritten() {
            return lanes.stream().mapToLong(lane -> lane.ids.size()).sum();
        }
    }

    private static final class RecordingLane implements ResultWriter {
        private final CyclicBarrier barrier;
        private final List<Long> ids = new ArrayList<>();
        private String thread;
        private String finishedOn;

        RecordingLane(CyclicBarrier barrier) {
            this.barrier = barrier;
        }

        @Override
        public void write(Batch batch) throws IOException {
            if (thread == null) {
                thread = Thread.currentThread().getName();
                try {
                    barrier.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                    throw new IOException("the three lanes did not write at the same time", e);
                }
            }
            ids.add(batch.column(0).longs()[0]);
        }

        @Override
        public void finish() {
            finishedOn = Thread.currentThread().getName();
        }

        @Override
        public long rowsWritten() {
            return ids.size();
        }
    }
}
