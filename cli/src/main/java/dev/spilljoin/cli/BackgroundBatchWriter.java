package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * The join's result batches encoded and written on a thread of their own ({@code --threads} 2 or more) while the
 * join computes the next ones, for an output written by one thread (Parquet; CSV is written by the join's workers
 * themselves, {@link LaneSink}).
 *
 * <p>Algorithm: the join reuses its result batch after the next {@code hasNext()}, so {@link #write} copies it
 * ({@link VectorCopy}: one array copy per column, no object per row or field) into a free batch of a
 * {@link BatchRing} of {@value #BATCHES} and publishes that; the writer thread formats each published batch
 * (the output's {@link ResultWriter}) and releases it. The join's thread blocks only when
 * the writer is {@value #BATCHES} batches behind. {@link #finish()} ends the ring and waits until the thread has
 * finished the output ({@link ResultWriter#finish()}) and ended, so that the output is committed only after that.
 * The output's {@link ResultWriter} is used by the writer thread alone from the first {@code write} until {@code finish} returns.
 *
 * <p>Failures: a write failure (disk full, a closed pipe) ends the thread; it releases the batch it held, so a
 * join thread waiting for a free batch wakes up, and the join's thread gets that {@link IOException} at its next
 * {@code write} or at {@code finish}, and handles it as it did when it wrote itself. An interrupt of the join's
 * thread while it waits (Ctrl-C) is an {@link InterruptedIOException}, as the {@link CsvWriter} throws. The thread
 * ({@link StageThread}) starts at the first {@code write} or {@code finish}; {@link #close()} stops it.
 */
final class BackgroundBatchWriter implements AutoCloseable {
    static final int BATCHES = 4;

    private final ResultWriter output;
    private final BatchRing ring;
    private final StageThread thread;
    private volatile Throwable failure;

    /**
     * Writes batches of {@code schema} (the join's output, aiming at {@code batchBytes}) to {@code output}; the
     * batches grow to the join's.
     */
    BackgroundBatchWriter(ResultWriter output, Schema schema, int batchBytes) {
        this.output = output;
        this.ring = new BatchRing(schema, BATCHES, 1, BatchSizing.ringWaitingBytes(batchBytes));
        this.thread = new StageThread("spilljoin-write", this::writeBehind);
    }

    /** Hands a copy of {@code result} to the writer thread (the join may reuse {@code result} afterwards). */
    void write(Batch result) throws IOException {
        throwIfFailed();
        thread.startOnce();
        Batch copy;
        try {
            copy = ring.takeFree();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        throwIfFailed(); // the batch may be one the failed thread released
        VectorCopy.batch(result, copy);
        ring.publish(copy);
    }

    /** Waits until every batch handed over is written and the output flushed; throws the writer's failure. */
    void finish() throws IOException {
        throwIfFailed();
        thread.startOnce();
        ring.publishEnd();
        try {
            thread.awaitEnd();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        throwIfFailed();
    }

    /** Stops the writer thread (interrupts and joins it). Idempotent. */
    @Override
    public void close() {
        thread.stop();
    }

    private void throwIfFailed() throws IOException {
        StageThread.throwIfFailed(failure);
    }

    private static InterruptedIOException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return (InterruptedIOException) new InterruptedIOException("interrupted while writing CSV").initCause(e);
    }

    /** The writer thread: formats published batches until the end (then flushes), a failure or an interrupt. */
    private void writeBehind() {
        Batch held = null;
        try {
            while ((held = ring.takeReady()) != null) {
                output.write(held);
                ring.release(held);
                held = null;
            }
            output.finish();
        } catch (InterruptedException e) {
            failure = new InterruptedIOException("interrupted while writing CSV");
        } catch (Throwable t) {
            failure = t;
            ring.consumerFailed();
            if (held != null) {
                ring.release(held); // wakes a join thread waiting for a free batch; it then sees the failure
            }
        }
    }
}
