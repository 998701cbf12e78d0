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
 * is behind, up to its lag; a copy holding rows of megabytes makes the writer wait for the lane before the next; a
 * batch lent instead of copied is encoded in place, and the writer waits until it is.
 */
class EncoderLaneTest {
    private static final Schema SCHEMA = Schema.of(Column.of("v", ColumnType.VARCHAR));
    private static final int[] COLUMNS = {0};

    @Test
    void theWriterWaitsForTheLaneOnlyWhileItsCopiesHoldTheirByteBound() throws Exception {
        CountDownLatch encode = new CountDownLatch(1);
        EncoderLane lane = lane(encode, new java.util.concurrent.CopyOnWriteArrayList<>());
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

    /**
     * A lent batch is encoded itself, not a copy of it, after the copies submitted before it; the writer's wait for
     * it lasts until the lane has encoded it; and it never joins the lane's copies (the next copy is another batch).
     */
    @Test
    void aLentBatchIsEncodedInPlaceAndTheWriterWaitsUntilItIs() throws Exception {
        CountDownLatch encode = new CountDownLatch(1);
        java.util.List<Batch> encoded = new java.util.concurrent.CopyOnWriteArrayList<>();
        EncoderLane lane = lane(encode, encoded);
        try {
            Batch copy = lane.copyOf(batch(100));
            lane.submit(copy);
            Batch large = batch(5000);
            lane.lend(large);
            FutureTask<Void> wait = new FutureTask<>(() -> {
                lane.awaitLent();
                return null;
            });
            Thread writer = new Thread(wait, "test-writer");
            writer.setDaemon(true);
            writer.start();
            assertThat(BatchSizingTest.waitsFor(wait)).as("the lane has not encoded the lent batch yet").isTrue();

            encode.countDown();
            wait.get(10, TimeUnit.SECONDS);
            assertThat(encoded).as("the copy, then the lent batch itself").containsExactly(copy, large);
            for (int i = 0; i <= EncoderLane.COPIES; i++) { // new copies, then ones the lane gave back
                Batch next = lane.copyOf(batch(100));
                assertThat(next).as("copy " + i).isNotSameAs(large);
                lane.submit(next);
                lane.await();
            }
        } finally {
            lane.close();
        }
    }

    /**
     * A lane whose copies hold their byte bound at 1,000 bytes and whose group, once {@code encode} is open, adds each
     * batch it encodes to {@code encoded}.
     */
    private static EncoderLane lane(CountDownLatch encode, java.util.List<Batch> encoded) {
        return new EncoderLane("spilljoin-parquet-test", new EncoderLane.Group() {
            @Override
            public long write(Batch batch) throws java.io.IOException {
                try {
                    encode.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                encoded.add(batch);
                return 0;
            }

            @Override
            public void finishRowGroup() {
            }
        }, COLUMNS, 1000);
    }

    /** A batch of one value of {@code bytes} bytes. */
    private static Batch batch(int bytes) {
        Batch batch = new Batch(SCHEMA, 1);
        batch.column(0).setBytes(0, new byte[bytes], 0, bytes);
        batch.setRowCount(1);
        return batch;
    }
}
