package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A fixed set of batches handed from one thread to another and back, for the stage threads of {@link CsvPipeline}:
 * the producer takes a free batch, fills it and publishes it; the consumer takes the next published batch, uses
 * it and releases it back to the free ones. The producer ends the stream with {@link #publishEnd()}.
 *
 * <p>Invariants: the free queue, the ready queue and the batches the two threads hold are the {@code size}
 * batches, so releasing never finds the free queue full and publishing never finds the ready queue full (it has
 * one slot more, for the end marker): neither call blocks. Only taking blocks: the producer when it is
 * {@code size} batches ahead or its batches out reach their byte bound (below), the consumer when nothing is
 * ready.
 *
 * <p>Heap: a batch's arrays grow to the largest rows it held; a released batch holding a value array larger than
 * {@value BatchSizing#MAX_KEPT_VALUE_BYTES} bytes (a large row passed through) is replaced by a fresh one, so that
 * the ring holds about {@code size} batches of {@code rows} rows, not {@code size} copies of the largest rows seen.
 * The batches out (published and not yet released) are bounded by bytes as well as by count: the producer takes a
 * free batch only while they hold fewer than {@code outBytesLimit} bytes ({@link Batch#dataBytes}, the same when
 * published and when released: a consumer does not change a batch it was handed). Batches of ordinary rows stay
 * below the bound; a batch of rows of megabytes makes the producer wait until the consumer is done with it, so that
 * the ring holds about one such batch besides the one being filled, not {@code size}.
 */
final class BatchRing {
    private final Schema schema;
    private final int rows;
    private final BlockingQueue<Batch> free;
    private final BlockingQueue<Batch> ready;
    private final Batch endMarker;
    /** The bytes of the batches published and not yet released. */
    private final BytesOut out;

    /**
     * {@code size} batches of {@code schema}, each made for {@code rows} rows (they grow when filled), of which those
     * out hold fewer than {@code outBytesLimit} bytes when the producer takes another.
     */
    BatchRing(Schema schema, int size, int rows, long outBytesLimit) {
        this.schema = schema;
        this.rows = rows;
        this.out = new BytesOut(outBytesLimit);
        this.free = new ArrayBlockingQueue<>(size);
        this.ready = new ArrayBlockingQueue<>(size + 1);
        for (int i = 0; i < size; i++) {
            free.add(new Batch(schema, rows));
        }
        this.endMarker = new Batch(schema, 1);
    }

    /** Producer: a batch to fill, when one is free and the batches out hold fewer bytes than the bound. */
    Batch takeFree() throws InterruptedException {
        out.awaitBelow();
        return free.take();
    }

    /** Producer: hands a filled batch to the consumer. */
    void publish(Batch batch) {
        out.add(batch.dataBytes());
        ready.add(batch);
    }

    /** Producer: no batch follows. */
    void publishEnd() {
        ready.add(endMarker);
    }

    /** Consumer: the next published batch, or null at the end (and at every call after it). */
    Batch takeReady() throws InterruptedException {
        Batch batch = ready.take();
        if (batch == endMarker) {
            ready.add(endMarker);
            return null;
        }
        return batch;
    }

    /** Consumer: gives a published batch back to the free ones. */
    void release(Batch batch) {
        long bytes = batch.dataBytes();
        free.add(BatchSizing.holdsLargeValues(batch) ? new Batch(schema, rows) : batch);
        out.add(-bytes);
    }

    /**
     * Consumer: it failed and takes no more batches, so the producer's next {@link #takeFree} waits only for a free
     * batch (the consumer gives back the one it held), not for the others out to be released; the producer then
     * learns of the failure from the consumer.
     */
    void consumerFailed() {
        out.receiverFailed();
    }
}
