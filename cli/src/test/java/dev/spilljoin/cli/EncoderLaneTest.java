package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An encoder lane's copies bounded by bytes as well as by count: batches of ordinary rows are copied while the lane
 * is behind, up to its lag; a copy holding rows of megabytes makes the writer wait for the lane before the next.
 */
class EncoderLaneTest {
    private static final Schema SCHEMA = Schema.of(Column.of("v", ColumnType.VARCHAR));
    private static final int[] COLUMNS = {0};

    @Test
    void theWriterWaitsForTheLaneOnlyWhileItsCopiesHoldTheirByteBound() throws Exception {
        CountDownLatch encode = new CountDownLatch(1);
        EncoderLane lane = new EncoderLane("spilljoin-parquet-test", new EncoderLane.Group() {
            @Override
            public long write(Batch batch) throws java.io.IOException {
                try {
                    encode.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                return 0;
            }

            @Override
            public void finishRowGroup() {
            }
        }, COLUMNS, 1000);
        try {
            Batch small = batch(100);
            lane.submit(lane.copyOf(small));
            lane.submit(lane.copyOf(small)); // 200 bytes out, below the bound: no wait for the lane
            lane.submit(lane.copyOf(batch(5000))); // then a large row: 5,200 bytes out
            FutureTask<Batch> next = new FutureTask<>(() -> lane.copyOf(small));
            Thread writer = new Thread(next, "test-writer");
            writer.setDaemon(true);
            writer.start();
            assertThat(BatchSizingTest.waitsFor(next)).as("the copies out hold 5,200 bytes, above the bound of 1,000").isTrue();

            encode.countDown();
            assertThat(next.get(10, TimeUnit.SECONDS).rowCount()).isEqualTo(1);
        } finally {
            lane.close();
        }
    }

    /** A batch of one value of {@code bytes} bytes. */
    private static Batch batch(int bytes) {
        Batch batch = new Batch(SCHEMA, 1);
        batch.column(0).setBytes(0, new byte[bytes], 0, bytes);
        batch.setRowCount(1);
        return batch;
    }
}
