package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.nio.file.Path;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Batches sized by bytes ({@link BatchSizing}) and the rings giving back what large rows grew ({@link BatchRing}). */
class BatchSizingTest {
    @TempDir
    Path dir;

    @Test
    void rowsPerBatchShrinkWithTheColumnCountAndNeverReachZero() {
        int target = BatchSizing.TARGET_BYTES;
        assertThat(BatchSizing.rows(2, 4096, target)).isEqualTo(4096);
        assertThat(BatchSizing.rows(1000, 4096, target)).isEqualTo((1 << 20) / (1000 * 24));
        assertThat(BatchSizing.rows(10_000, 4096, target)).isEqualTo(4);
        assertThat(BatchSizing.rows(1_000_000, 4096, target)).isEqualTo(1);
        assertThat(BatchSizing.rows(3, 1024, target)).isEqualTo(1024);
        assertThat(BatchSizing.rows(1000, 4096, target / 4)).isEqualTo((1 << 18) / (1000 * 24));
    }

    @Test
    void theBatchesInFlightStayWithinTheirShareOfTheHeapWhateverTheThreads() {
        long heap = 259_522_560L; // Runtime.maxMemory() under bin/spilljoin's -Xmx256m and serial collector
        long share = heap * BatchSizing.IN_FLIGHT_HEAP_PERCENT / 100;
        for (int threads = 1; threads <= 64; threads++) {
            int target = BatchSizing.batchBytes(threads, heap);
            int batches = BatchSizing.batchesInFlight(threads);
            // each batch in flight: fixed arrays and values, each up to the target
            assertThat(2L * batches * target).as("%d threads: %d batches of 2 x %d bytes", threads, batches, target)
                    .isLessThanOrEqualTo(share);
        }
        assertThat(share).isLessThan(heap / 2);
        // one thread keeps the target; two (the default on two cores) less for the read-ahead rings' 16 batches
        // each, but the most the share holds: a byte more a batch would not fit
        assertThat(BatchSizing.batchBytes(1, heap)).isEqualTo(BatchSizing.TARGET_BYTES);
        int two = BatchSizing.batchBytes(2, heap);
        assertThat(two).isLessThan(BatchSizing.TARGET_BYTES);
        assertThat(2L * BatchSizing.batchesInFlight(2) * (two + 1L)).as("two threads' batches a byte larger")
                .isGreaterThan(share);
        assertThat(BatchSizing.batchBytes(8, heap)).isLessThan(BatchSizing.TARGET_BYTES);
    }

    @Test
    void csvLanesTakeAMegabyteEachUpToATwentiethOfTheHeapAndNeverBelow64kB() {
        long heap = 256L << 20;
        assertThat(BatchSizing.laneBufferBytes(2, heap)).isEqualTo(CsvWriter.DEFAULT_BUFFER_BYTES);
        assertThat(BatchSizing.laneBufferBytes(12, heap)).isEqualTo(CsvWriter.DEFAULT_BUFFER_BYTES);
        assertThat(BatchSizing.laneBufferBytes(64, heap)).isEqualTo((int) (heap / 20 / 64));
        assertThat(64L * BatchSizing.laneBufferBytes(64, heap)).isLessThanOrEqualTo(heap / 20);
        assertThat(BatchSizing.laneBufferBytes(256, heap)).isEqualTo(BatchSizing.MIN_LANE_BUFFER_BYTES);
    }

    @Test
    void theJoinsBatchesInFlightAreItsRecycledBatchesAndFourPerWorker() {
        assertThat(JoinConfig.heapBatches(1)).isEqualTo(4);
        assertThat(JoinConfig.heapBatches(2)).isEqualTo(16 + 6 + 2 * 4);
        assertThat(JoinConfig.heapBatches(8)).isEqualTo(7 * 2 + 7 + 8 * 4);
        assertThat(BatchSizing.batchesInFlight(1)).isEqualTo(4 + 4);
        assertThat(BatchSizing.batchesInFlight(8)).isEqualTo(2 * 17 + 4 + 5 + JoinConfig.heapBatches(8));
        assertThat(BatchSizing.batchesInFlight(1000)).isEqualTo(BatchSizing.batchesInFlight(JoinConfig.MAX_THREADS));
    }

    @Test
    void aRunsResultBatchesAimAtItsThreadsBatchBytes() {
        Path left = CsvTestFiles.write(dir, "l.csv", "id,v\n1,a\n");
        Path right = CsvTestFiles.write(dir, "r.csv", "id,w\n1,b\n");
        for (int threads : new int[] {2, 16}) {
            JoinPlan plan = JoinPlanner.plan(new JoinOptions(left, right, "id", JoinKind.INNER, null, null, null,
                    dir, null, false, null, null, OnError.FAIL, true, threads,
                    JoinOptions.FormatOptions.BY_EXTENSION, null));
            int expected = BatchSizing.batchBytes(threads, Runtime.getRuntime().maxMemory());
            assertThat(BatchSizing.batchBytes(plan)).isEqualTo(expected);
            assertThat(JoinRunner.config(plan).outputBatchBytes()).isEqualTo(expected);
        }
    }

    @Test
    void theRowLimitIsASixtyFourthOfTheHeapBetweenOneMegabyteAndOneGigabyte() {
        assertThat(BatchSizing.maxRowBytes(256L << 20)).isEqualTo(4L << 20);
        assertThat(BatchSizing.maxRowBytes(16L << 20)).isEqualTo(1L << 20);
        assertThat(BatchSizing.maxRowBytes(1L << 40)).isEqualTo(1L << 30);
        assertThat(BatchSizing.heapFor((50L << 20) + 1)).isEqualTo("4g");
        assertThat(BatchSizing.heapFor(3L << 20)).isEqualTo("256m");
        // -Xmx256m gives a little under 256MB of heap, so under 4MB of row
        assertThat(BatchSizing.heapFor(4L << 20)).isEqualTo("512m");
        assertThat(BatchSizing.heapFor(7L << 20)).isEqualTo("512m");
    }

    @Test
    void theAverageLineOfAFilesHeadEstimatesItsRowWidth() {
        Path narrow = CsvTestFiles.write(dir, "n.csv", "id,v\n" + "1,abcdefgh\n".repeat(99));
        assertThat(BatchSizing.averageLineBytes(narrow)).isEqualTo((5 + 99 * 11) / 100);
        Path wide = CsvTestFiles.write(dir, "w.csv", "id,v\n1," + "x".repeat(3 << 20) + "\n");
        assertThat(BatchSizing.averageLineBytes(wide)).isEqualTo((1 << 20) / 1);
        assertThat(BatchSizing.averageLineBytes(dir.resolve("missing.csv"))).isZero();
    }

    @Test
    void aRingGivesBackTheArraysALargeRowGrewAndKeepsOrdinaryBatches() throws InterruptedException {
        BatchRing ring = new BatchRing(SCHEMA, 1, 16, Long.MAX_VALUE);
        Batch ordinary = ring.takeFree();
        ordinary.column(0).reserveBytes(0, 1000);
        handOver(ring, ordinary);
        assertThat(ring.takeFree()).isSameAs(ordinary);

        ordinary.column(0).reserveBytes(0, BatchSizing.MAX_KEPT_VALUE_BYTES + 1);
        handOver(ring, ordinary);
        Batch fresh = ring.takeFree();
        assertThat(fresh).isNotSameAs(ordinary);
        assertThat(fresh.column(0).bytes().length).isLessThanOrEqualTo(BatchSizing.MAX_KEPT_VALUE_BYTES);
        assertThat(fresh.column(0).capacity()).isEqualTo(16);
    }

    @Test
    void aRingsProducerWaitsWhileTheBatchesWaitingToBeTakenHoldItsByteBound() throws Exception {
        BatchRing ring = new BatchRing(SCHEMA, 4, 16, 1000);
        ring.publish(filled(ring.takeFree(), 100));
        ring.publish(filled(ring.takeFree(), 5000)); // a large row: 5,100 bytes waiting, above the bound
        FutureTask<Batch> producer = takeFreeOnAThread(ring);
        assertThat(waitsFor(producer)).as("two free batches, but the batches waiting hold 5,100 bytes").isTrue();

        ring.release(ring.takeReady()); // the small batch taken: the large one still waits
        assertThat(waitsFor(producer)).isTrue();
        ring.takeReady();
        assertThat(producer.get(10, TimeUnit.SECONDS)).isNotNull();

        assertThat(BatchSizing.ringWaitingBytes(BatchSizing.TARGET_BYTES)).isEqualTo(2L * BatchSizing.TARGET_BYTES);
    }

    /**
     * A consumer holding a large batch (a join worker that refused its row keeps it) does not hold up the producer,
     * which another consumer may be waiting for.
     */
    @Test
    void aRingsProducerDoesNotWaitForTheBatchesConsumersHold() throws Exception {
        BatchRing ring = new BatchRing(SCHEMA, 2, 16, 1000);
        ring.publish(filled(ring.takeFree(), 5000));
        Batch held = ring.takeReady();
        assertThat(takeFreeOnAThread(ring).get(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(held.rowCount()).isEqualTo(1);
    }

    @Test
    void aRingsProducerStopsWaitingForBytesOnceTheConsumerFailed() throws Exception {
        BatchRing ring = new BatchRing(SCHEMA, 2, 16, 1000);
        ring.publish(filled(ring.takeFree(), 5000));
        FutureTask<Batch> producer = takeFreeOnAThread(ring);
        assertThat(waitsFor(producer)).isTrue();

        ring.consumerFailed(); // the batch published is never taken
        assertThat(producer.get(10, TimeUnit.SECONDS)).isNotNull();
    }

    private static final Schema SCHEMA = Schema.of(Column.of("v", ColumnType.VARCHAR));

    /** Publishes {@code batch}, takes it as the consumer and releases it. */
    private static void handOver(BatchRing ring, Batch batch) throws InterruptedException {
        ring.publish(batch);
        assertThat(ring.takeReady()).isSameAs(batch);
        ring.release(batch);
    }

    /** {@code batch} holding one value of {@code bytes} bytes. */
    private static Batch filled(Batch batch, int bytes) {
        batch.column(0).setBytes(0, new byte[bytes], 0, bytes);
        batch.setRowCount(1);
        return batch;
    }

    private static FutureTask<Batch> takeFreeOnAThread(BatchRing ring) {
        FutureTask<Batch> task = new FutureTask<>(ring::takeFree);
        Thread thread = new Thread(task, "test-producer");
        thread.setDaemon(true);
        thread.start();
        return task;
    }

    /** Whether {@code task} is still waiting after 200 ms (it would have returned at once otherwise). */
    static boolean waitsFor(FutureTask<?> task) throws Exception {
        try {
            task.get(200, TimeUnit.MILLISECONDS);
            return false;
        } catch (TimeoutException e) {
            return true;
        }
    }
}
