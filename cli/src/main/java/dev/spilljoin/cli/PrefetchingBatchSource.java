package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;

/**
 * One input file read ahead on a thread of its own ({@code --threads} 2 or more): that thread parses CSV chunks and
 * converts them into batches ({@link InputBatches#readInto}) while the join works on earlier ones.
 *
 * <p>Algorithm: {@value #BATCHES} batches of the file's {@link InputBatches#batchRows()} rows (sized by bytes, so
 * the ring's heap does not grow with the column count) cycle through a {@link BatchRing}. The reader thread takes a
 * free batch, fills it and publishes it; {@link #next()} takes the next published batch for the join and releases the one it
 * handed out before. So a batch stays valid until the next {@code next()} (the {@link BatchSource} contract), and
 * the reader runs at most {@value #BATCHES} - 1 batches ahead. The end of the file, or the reader's failure, ends
 * the ring; {@code next()} then returns null, or rethrows the failure on the join's thread as it was raised (a
 * malformed row's {@link InputException} names file and line), which keeps exit codes and messages as they are
 * without the thread. Only the join's thread calls {@code next()}; rows read are reported to the
 * {@link ProgressLine} there, as each batch is handed to the join. The lines where a batch's rows start travel beside
 * it in publishing order ({@link #positionOf}), for messages about a row the join refuses.
 *
 * <p>The thread ({@link StageThread}) starts at the first {@code next()} (the join reads its build file to the end
 * before it reads the probe file, so one reader works at a time). {@link #close()} stops it; closing the file is
 * the {@link InputBatches}' owner's part. A join thread interrupted while it waits (Ctrl-C) gets a
 * {@link CancellationException}, as the join itself throws when cancelled.
 */
final class PrefetchingBatchSource implements BatchSource, AutoCloseable {
    /**
     * Why 16: the join takes a file's batches unevenly (a Parquet reader's row group or the JIT at work holds one
     * side up for a while), and W1's Parquet case ran 4.5 % faster with 16 than with 4 (2 % with 8; 16 batches of
     * its 4,096 rows of two BIGINTs are 1 MB); the ring's byte bound ({@link BatchSizing#ringOutBytes}) still holds
     * batches of wide rows to about two.
     */
    static final int BATCHES = 16;

    private final InputBatches file;
    private final ProgressLine progress;
    private final BatchRing ring;
    private final StageThread thread;
    /**
     * The lines where the rows of each published batch start, in publishing order (the reader puts a batch's lines
     * here before it publishes the batch, so they are there when the batch is taken), and the free line arrays: as
     * many as batches, so neither the reader nor the join's thread ever waits on them.
     */
    private final BlockingQueue<long[]> readyLines = new ArrayBlockingQueue<>(BATCHES);
    private final BlockingQueue<long[]> freeLines = new ArrayBlockingQueue<>(BATCHES);
    /** The reader's failure: written before the ring ends, read after its end is taken. */
    private volatile Throwable failure;
    private Batch handedOut;
    private long[] handedOutLines;

    /** Reads {@code file} ahead in batches aiming at {@code batchBytes} ({@link BatchSizing#ringOutBytes}). */
    PrefetchingBatchSource(InputBatches file, ProgressLine progress, int batchBytes) {
        this.file = file;
        this.progress = progress;
        this.ring = new BatchRing(file.schema(), BATCHES, file.batchRows(), BatchSizing.ringOutBytes(batchBytes));
        this.thread = new StageThread("spilljoin-read-" + file.side().name().toLowerCase(Locale.ROOT),
                this::readAhead);
        for (int i = 0; i < BATCHES; i++) {
            freeLines.add(new long[file.batchRows()]);
        }
    }

    @Override
    public Batch next() {
        if (handedOut != null) {
            freeLines.add(handedOutLines); // before the batch, which the reader may take at once
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
        handedOutLines = readyLines.remove();
        return batch;
    }

    /** The position ({@link InputBatches#where}) of row {@code row} of the batch {@link #next()} returned last. */
    long positionOf(int row) {
        return handedOutLines[row];
    }

    @Override
    public long sizeHintBytes() {
        return file.sizeHintBytes();
    }

    @Override
    public long sizeHintRows() {
        return file.sizeHintRows();
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
                long[] lines = freeLines.remove();
                if (!file.readInto(batch, lines)) {
                    break;
                }
                readyLines.add(lines);
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
