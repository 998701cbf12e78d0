package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import java.util.Locale;
import java.util.concurrent.CancellationException;

/**
 * One input file read ahead on a thread of its own ({@code --threads} 2 or more): that thread parses CSV chunks and
 * converts them into batches ({@link CsvBatchSource#readInto}) while the join works on earlier ones.
 *
 * <p>Algorithm: {@value #BATCHES} batches of the file's {@link CsvBatchSource#batchRows()} rows (sized by bytes, so
 * the ring's heap does not grow with the column count) cycle through a {@link BatchRing}. The reader thread takes a free batch,
 * fills it and publishes it; {@link #next()} takes the next published batch for the join and releases the one it
 * handed out before. So a batch stays valid until the next {@code next()} (the {@link BatchSource} contract), and
 * the reader runs at most {@value #BATCHES} - 1 batches ahead. The end of the file, or the reader's failure, ends
 * the ring; {@code next()} then returns null, or rethrows the failure on the join's thread as it was raised (a
 * malformed row's {@link InputException} names file and line), which keeps exit codes and messages as they are
 * without the thread. Only the join's thread calls {@code next()}; rows read are reported to the
 * {@link ProgressLine} there, as each batch is handed to the join.
 *
 * <p>The thread ({@link StageThread}) starts at the first {@code next()} (the join reads its build file to the end
 * before it reads the probe file, so one reader works at a time). {@link #close()} stops it; closing the file is
 * the {@link CsvBatchSource}'s owner's part. A join thread interrupted while it waits (Ctrl-C) gets a
 * {@link CancellationException}, as the join itself throws when cancelled.
 */
final class PrefetchingBatchSource implements BatchSource, AutoCloseable {
    static final int BATCHES = 4;

    private final CsvBatchSource file;
    private final ProgressLine progress;
    private final BatchRing ring;
    private final StageThread thread;
    /** The reader's failure: written before the ring ends, read after its end is taken. */
    private volatile Throwable failure;
    private Batch handedOut;

    PrefetchingBatchSource(CsvBatchSource file, ProgressLine progress) {
        this.file = file;
        this.progress = progress;
        this.ring = new BatchRing(file.schema(), BATCHES, file.batchRows());
        this.thread = new StageThread("spilljoin-read-" + file.side().name().toLowerCase(Locale.ROOT),
                this::readAhead);
    }

    @Override
    public Batch next() {
        if (handedOut != null) {
            ring.release(handedOut);
            handedOut = null;
        }
        thread.startOnce();
        Batch batch;
        try {
            batch = ring.takeReady();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (CancellationException) new CancellationException("interrupted while waiting for "
                    + file.side() + " input").initCause(e);
        }
        if (batch == null) {
            Throwable t = failure;
            if (t != null) {
                throw StageThread.rethrown(t);
            }
            return null;
        }
        progress.rowsRead(file.side(), batch.rowCount());
        handedOut = batch;
        return batch;
    }

    @Override
    public long sizeHintBytes() {
        return file.sizeHintBytes();
    }

    /** Stops the reader thread (interrupts and joins it). Idempotent. */
    @Override
    public void close() {
        thread.stop();
    }

    /** The reader thread: fills free batches until the end of the file, a failure or an interrupt. */
    private void readAhead() {
        try {
            while (true) {
                Batch batch = ring.takeFree();
                if (!file.readInto(batch)) {
                    break;
                }
                ring.publish(batch);
            }
        } catch (InterruptedException e) {
            return; // stopped: nobody waits for the end any more
        } catch (Throwable t) {
            failure = t;
        }
        ring.publishEnd();
    }
}
