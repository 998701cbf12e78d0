package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.nio.file.Path;
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
        // the default path (up to two threads) keeps its batches as they were
        assertThat(BatchSizing.batchBytes(1, heap)).isEqualTo(BatchSizing.TARGET_BYTES);
        assertThat(BatchSizing.batchBytes(2, heap)).isEqualTo(BatchSizing.TARGET_BYTES);
        assertThat(BatchSizing.batchBytes(8, heap)).isLessThan(BatchSizing.TARGET_BYTES);
    }

    @Test
    void theJoinsBatchesInFlightAreItsRecycledBatchesAndFourPerWorker() {
        assertThat(JoinConfig.heapBatches(1)).isEqualTo(4);
        assertThat(JoinConfig.heapBatches(2)).isEqualTo(16 + 6 + 2 * 4);
        assertThat(JoinConfig.heapBatches(8)).isEqualTo(7 * 2 + 7 + 8 * 4);
        assertThat(BatchSizing.batchesInFlight(1)).isEqualTo(4 + 4);
        assertThat(BatchSizing.batchesInFlight(8)).isEqualTo(2 * 5 + 4 + 5 + JoinConfig.heapBatches(8));
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
        Schema schema = Schema.of(Column.of("v", ColumnType.VARCHAR));
        BatchRing ring = new BatchRing(schema, 1, 16);
        Batch ordinary = ring.takeFree();
        ordinary.column(0).reserveBytes(0, 1000);
        ring.release(ordinary);
        assertThat(ring.takeFree()).isSameAs(ordinary);

        ordinary.column(0).reserveBytes(0, BatchSizing.MAX_KEPT_VALUE_BYTES + 1);
        ring.release(ordinary);
        Batch fresh = ring.takeFree();
        assertThat(fresh).isNotSameAs(ordinary);
        assertThat(fresh.column(0).bytes().length).isLessThanOrEqualTo(BatchSizing.MAX_KEPT_VALUE_BYTES);
        assertThat(fresh.column(0).capacity()).isEqualTo(16);
    }
}
