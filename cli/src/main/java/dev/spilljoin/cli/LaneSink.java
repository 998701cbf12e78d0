package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The join's result batches formatted by the join's own workers ({@code --threads} 2 or more, an output with
 * {@linkplain ResultWriter#lanes lanes}: CSV): a thread-safe sink ({@link dev.spilljoin.operator.HashJoin#run}), so
 * each worker writes the batch it made into the output at once, on its own thread, in place: no copy of the batch,
 * no hand-over to a writer thread, and formatting as parallel as the join. Against one writer thread fed copies of
 * the batches (the W1 CSV case at 128 MB on 2 cores): 1.69–1.95 → 1.36–1.44 s, 16 MB 2.31–2.58 → 1.96–2.11 s.
 *
 * <p>Algorithm: {@code lanes} lanes (as many as the join's workers, which call the sink at most that many at once)
 * wait in a queue; a call takes one, writes the batch into it and puts it back, so a lane is used by one thread at a
 * time and the queue hands its buffer from one to the next. {@link #finish()} (after the join returned: every worker
 * has ended) finishes every lane, then the output.
 *
 * <p>Failures: an output failure (disk full, a closed pipe, an interrupt) leaves the call as a {@link WriteFailure}
 * holding the {@link IOException}; the join fails with it on the caller's thread, which reports it as a write failure
 * ({@link ResultOutput#writeFailed}). {@link #interruptWriters()} (Ctrl-C) interrupts the threads inside a call, so
 * that one blocked on the output, or waiting for a lane, leaves it.
 */
final class LaneSink implements BatchSink {
    private final ResultWriter output;
    private final List<ResultWriter> lanes;
    private final BlockingQueue<ResultWriter> free;
    private final ProgressLine progress;
    private final Set<Thread> writing = ConcurrentHashMap.newKeySet();

    private LaneSink(ResultWriter output, List<ResultWriter> lanes, ProgressLine progress) {
        this.output = output;
        this.lanes = lanes;
        this.free = new ArrayBlockingQueue<>(lanes.size(), false, lanes);
        this.progress = progress;
    }

    /**
     * A sink writing into {@code count} lanes of {@code output} of {@code bufferBytes} each, reporting rows written
     * to {@code progress}; null when the output has no lanes (its format is written by one thread).
     */
    static LaneSink open(ResultWriter output, int count, int bufferBytes, ProgressLine progress) {
        List<ResultWriter> lanes = output.lanes(count, bufferBytes);
        return lanes.isEmpty() ? null : new LaneSink(output, lanes, progress);
    }

    @Override
    public void accept(Batch batch) {
        Thread me = Thread.currentThread();
        writing.add(me);
        try {
            ResultWriter lane = free.take();
            try {
                lane.write(batch);
            } finally {
                free.add(lane);
            }
        } catch (InterruptedException e) {
            me.interrupt();
            throw new WriteFailure(new InterruptedIOException("interrupted while writing CSV"));
        } catch (IOException e) {
            throw new WriteFailure(e);
        } finally {
            writing.remove(me);
        }
        progress.rowsWritten(batch.rowCount());
    }

    @Override
    public boolean isThreadSafe() {
        return true;
    }

    /** Finishes every lane, then the output (once no thread writes: the join has returned). */
    void finish() throws IOException {
        for (ResultWriter lane : lanes) {
            lane.finish();
        }
        output.finish();
    }

    /** Interrupts the threads inside {@link #accept} (any thread; for Ctrl-C). */
    void interruptWriters() {
        for (Thread thread : writing) {
            thread.interrupt();
        }
    }

    /** An output failure inside {@link #accept}, which cannot throw the {@link IOException} itself. */
    static final class WriteFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WriteFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }
}
