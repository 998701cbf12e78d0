package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A fixed set of batches handed from one thread to others and back, for the stage threads of {@link CsvPipeline}:
 * the producer takes a free batch, fills it and publishes it; a consumer takes the next published batch, uses
 * it and releases it back to the free ones. The producer ends the stream with {@link #publishEnd()}. Consumers
 * (one, or several each holding one batch at a time: the join's workers reading ahead) take batches in turn.
 *
 * <p>Invariants: the free queue, the ready queue and the batches the threads hold are the {@code size}
 * batches, so releasing never finds the free queue full and publishing never finds the ready queue full (it has
 * one slot more, for the end marker): neither call blocks. Only taking blocks: the producer when it is
 * {@code size} batches ahead or the batches waiting to be taken reach their byte bound (below), a consumer when
 * nothing is ready.
 *
 * <p>Heap: a batch's arrays grow to the largest rows it held; a released batch holding a value array larger than
 * {@value BatchSizing#MAX_KEPT_VALUE_BYTES} bytes (a large row passed through) is replaced by a fresh one, so that
 * the ring holds about {@code size} batches of {@code rows} rows, not {@code size} copies of the largest rows seen.
 * The batches published and not yet taken are bounded by bytes as well as by count: the producer takes a free batch
 * only while they hold fewer than {@code readyBytesLimit} bytes ({@link Batch#dataBytes}). Batches of ordinary rows
 * stay below the bound; a batch of rows of megabytes makes the producer wait until a consumer took it, so that the
 * ring holds about one such batch waiting besides the one being filled and one per consumer, not {@code size}. The
 * batches the consumers hold do not count: a consumer that failed keeps its batch, and another consumer waiting for
 * one must not wait on it.
 */
final class BatchRing {
    private final Schema schema;
    private final int rows;
    private final BlockingQueue<Batch> free;
    private final BlockingQueue<Batch> published;
    private final Batch endMarker;
    /** The bytes of the batches published and not yet taken. */
    private final BytesOut ready;

    /**
     * {@code size} batches of {@code schema}, each made for {@code rows} rows (they grow when filled), of which those
     * waiting to be taken hold fewer than {@code readyBytesLimit} bytes when the producer takes another.
     */
    BatchRing(Schema schema, int size, int rows, long readyBytesLimit) {
        this.schema = schema;
        this.rows = rows;
        this.ready = new BytesOut(readyBytesLimit);
        this.free = new ArrayBlockingQueue<>(size);
        this.published = new ArrayBlockingQueue<>(size + 1);
        for (int i = 0; i < size; i++) {
            free.add(new Batch(schema, rows));
        }
        this.endMarker = new Batch(schema, 1);
    }

    /** Producer: a batch to fill, when one is free and the batches waiting to be taken are below the byte bound. */
    Batch takeFree() throws InterruptedException {
        ready.awaitBelow();
        return free.take();
    }

    /** Producer: hands a filled batch to the consumers. */
    void publish(Batch batch) {
        ready.add(batch.dataBytes());
        published.add(batch);
    }

    /** Producer: no batch follows. */
    void publishEnd() {
        published.add(endMarker);
    }

    /** Consumer: the next published batch, or null at the end (and at every call after it, by every consumer). */
    Batch takeReady() throws InterruptedException {
        Batch batch = published.take();
        if (batch == endMarker) {
            published.add(endMarker);
            return null;
        }
        ready.add(-batch.dataBytes());
        return batch;
    }

    /** Consumer: gives a batch it took back to the free ones. */
    void release(Batch batch) {
        free.add(BatchSizing.holdsLargeValues(batch) ? new Batch(schema, rows) : batch);
    }

    /**
     * Consumer: it failed and takes no more batches, so the producer's next {@link #takeFree} waits only for a free
     * batch (the consumer gives back the one it held), not for the others published to be taken; the producer then
     * learns of the failure from the consumer.
     */
    void consumerFailed() {
        ready.receiverFailed();
    }
}
