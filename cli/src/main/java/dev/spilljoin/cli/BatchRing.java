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
 * {@code size} batches ahead, the consumer when nothing is ready.
 *
 * <p>Heap: a batch's arrays grow to the largest rows it held; a released batch holding a value array larger than
 * {@value BatchSizing#MAX_KEPT_VALUE_BYTES} bytes (a large row passed through) is replaced by a fresh one, so that
 * the ring holds about {@code size} batches of {@code rows} rows, not {@code size} copies of the largest rows seen.
 */
final class BatchRing {
    private final Schema schema;
    private final int rows;
    private final BlockingQueue<Batch> free;
    private final BlockingQueue<Batch> ready;
    private final Batch endMarker;

    /** {@code size} batches of {@code schema}, each made for {@code rows} rows (they grow when filled). */
    BatchRing(Schema schema, int size, int rows) {
        this.schema = schema;
        this.rows = rows;
        this.free = new ArrayBlockingQueue<>(size);
        this.ready = new ArrayBlockingQueue<>(size + 1);
        for (int i = 0; i < size; i++) {
            free.add(new Batch(schema, rows));
        }
        this.endMarker = new Batch(schema, 1);
    }

    /** Producer: a batch to fill, when one is free. */
    Batch takeFree() throws InterruptedException {
        return free.take();
    }

    /** Producer: hands a filled batch to the consumer. */
    void publish(Batch batch) {
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

    /** Consumer (or a failed producer): gives a batch back to the free ones. */
    void release(Batch batch) {
        free.add(holdsLargeValues(batch) ? new Batch(schema, rows) : batch);
    }

    private static boolean holdsLargeValues(Batch batch) {
        for (int c = 0; c < batch.columnCount(); c++) {
            byte[] values = batch.column(c).bytes();
            if (values != null && values.length > BatchSizing.MAX_KEPT_VALUE_BYTES) {
                return true;
            }
        }
        return false;
    }
}
