package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The join's result batches formatted (CSV or Parquet) and written on threads of their own ({@code --threads} 2 or
 * more) while the join computes the next ones.
 *
 * <p>Algorithm: the join reuses its result batch after the next {@code hasNext()}, so {@link #write} copies it
 * ({@link VectorCopy}: one array copy per column, no object per row or field) into a free batch of a
 * {@link BatchRing} of {@link #batches} and publishes that. The output's {@link ResultWriter#lanes} are written by one
 * thread each: CSV gives as many lanes as asked, so that formatting, the most CPU of the run after parsing, is not
 * one thread's for any number of cores; Parquet gives one (its encoders have threads of their own). A lane thread
 * takes the next published batch, formats it into its lane and releases it; at the ring's end it finishes its lane
 * ({@link ResultWriter#finish()}: writes out the lane's rows). The join's thread blocks only when the lanes are
 * {@link #batches} batches behind. {@link #finish()} ends the ring, waits until every lane thread has ended, then
 * finishes the output (a compressed stream's end, Parquet's last row group and footer), so that the output is
 * committed only after that. From the first {@code write} until the lane threads end, the output is written by its
 * lanes alone.
 *
 * <p>Failures: a write failure (disk full, a closed pipe) ends its lane's thread; it releases the batch it held, so a
 * join thread waiting for a free batch wakes up, and the join's thread gets that {@link IOException} (the first
 * lane's to fail) at its next {@code write} or at {@code finish}, and handles it as it did when it wrote itself. An
 * interrupt of the join's thread while it waits (Ctrl-C) is an {@link InterruptedIOException}, as the
 * {@link CsvWriter} throws. The threads ({@link StageThread}) start at the first {@code write} or {@code finish};
 * {@link #close()} stops them.
 */
final class BackgroundBatchWriter implements AutoCloseable {
    /** The batches of the ring beyond one per lane: the ones the join fills and hands on while the lanes write. */
    private static final int BATCHES_AHEAD = 3;
    /**
     * The most lanes asked for: each holds a batch and a CSV buffer of a megabyte on the heap, and eight format
     * faster than a file takes rows (about 7M rows a second each for W1's four columns).
     */
    static final int MAX_LANES = 8;

    private final ResultWriter output;
    private final int lanes;
    private final BatchRing ring;
    private final List<StageThread> threads = new ArrayList<>();
    private volatile Throwable failure;

    /**
     * Writes batches of {@code schema} (the join's output, aiming at {@code batchBytes}) to {@code output} in up to
     * {@link #lanes}({@code threads}) lanes; the batches grow to the join's.
     */
    BackgroundBatchWriter(ResultWriter output, Schema schema, int batchBytes, int threads) {
        this.output = output;
        this.lanes = lanes(threads);
        this.ring = new BatchRing(schema, batches(threads), 1, lanes * BatchSizing.ringOutBytes(batchBytes));
    }

    /**
     * The lanes asked of the output for {@code --threads} {@code threads}: half as many (at least one, at most
     * {@value #MAX_LANES}). Formatting CSV took 40 % of the CPU of the CSV case's stages besides the JIT (W1 small
     * at 128 MB: 0.68 s against 0.55 s parsing and 0.45 s joining), so half the threads keep up with the others; on
     * 2 cores a second lane only competed with them for the CPU (the case at 16 MB 2.7-2.9 s with one lane, 2.9-3.1 s
     * with two).
     */
    static int lanes(int threads) {
        return Math.max(1, Math.min(threads / 2, MAX_LANES));
    }

    /** The batches of the ring for {@code threads}: one each lane formats, and those the join is ahead by. */
    static int batches(int threads) {
        return lanes(threads) + BATCHES_AHEAD;
    }

    /** Hands a copy of {@code result} to the lanes (the join may reuse {@code result} afterwards). */
    void write(Batch result) throws IOException {
        throwIfFailed();
        startOnce();
        Batch copy;
        try {
            copy = ring.takeFree();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        throwIfFailed(); // the batch may be one a failed lane released
        VectorCopy.batch(result, copy);
        ring.publish(copy);
    }

    /** Waits until every batch handed over is written and the output finished; throws a lane's failure. */
    void finish() throws IOException {
        throwIfFailed();
        startOnce();
        ring.publishEnd();
        try {
            for (StageThread thread : threads) {
                thread.awaitEnd();
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        throwIfFailed();
        output.finish();
    }

    /** Stops the lane threads (interrupts and joins them). Idempotent. */
    @Override
    public void close() {
        for (StageThread thread : threads) {
            thread.stop();
        }
    }

    /** Makes the output's lanes and starts a thread for each, unless done before. */
    private void startOnce() throws IOException {
        if (!threads.isEmpty()) {
            return;
        }
        List<ResultWriter> made = output.lanes(lanes);
        for (int i = 0; i < made.size(); i++) {
            ResultWriter lane = made.get(i);
            threads.add(new StageThread(i == 0 ? "spilljoin-write" : "spilljoin-write-" + (i + 1),
                    () -> writeBehind(lane)));
        }
        for (StageThread thread : threads) {
            thread.startOnce();
        }
    }

    private void throwIfFailed() throws IOException {
        StageThread.throwIfFailed(failure);
    }

    private static InterruptedIOException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return (InterruptedIOException) new InterruptedIOException("interrupted while writing CSV").initCause(e);
    }

    /**
     * A lane's thread: formats published batches into {@code lane} until the end (then finishes the lane), a failure
     * or an interrupt.
     */
    private void writeBehind(ResultWriter lane) {
        Batch held = null;
        try {
            while ((held = ring.takeReady()) != null) {
                lane.write(held);
                ring.release(held);
                held = null;
            }
            lane.finish();
        } catch (InterruptedException e) {
            fail(new InterruptedIOException("interrupted while writing CSV"));
        } catch (Throwable t) {
            fail(t);
            ring.consumerFailed();
            if (held != null) {
                ring.release(held); // wakes a join thread waiting for a free batch; it then sees the failure
            }
        }
    }

    /** Keeps the first lane's failure. */
    private synchronized void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }
}
