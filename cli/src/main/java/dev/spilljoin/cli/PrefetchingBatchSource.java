package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One input file read ahead on a thread of its own ({@code --threads} 2 or more): that thread parses CSV chunks and
 * converts them into batches ({@link InputBatches#readInto}) while the join works on earlier ones.
 *
 * <p>Algorithm: {@value #BATCHES} batches of the file's {@link InputBatches#batchRows()} rows (sized by bytes, so
 * the ring's heap does not grow with the column count) cycle through a {@link BatchRing}. The reader thread takes a
 * free batch, fills it, marks it with its number in the file ({@link Batch#setOrigin}) and publishes it. The join
 * reads through {@linkplain #reader() readers}: its source, and the concurrent readers that source hands out, one
 * per worker (so each worker takes batches for itself: no copy, no hand-over through the join's thread): a reader's
 * {@link Reader#next()} takes the next published batch and releases the one it handed out before. So a batch stays
 * valid until its reader's next {@code next()} (the {@link BatchSource} contract), and the reader thread runs at most
 * {@value #BATCHES} - 1 batches ahead. The end of the file, or the reader thread's failure, ends the ring; every
 * reader's {@code next()} then returns null, or rethrows the failure on its worker's thread as it was raised (a
 * malformed row's {@link InputException} names file and line), which keeps exit codes and messages as they are
 * without the thread; the join rethrows its first worker's failure on its own thread. Rows read are reported to
 * the {@link ProgressLine} as each batch is handed to a worker. The lines where a batch's rows start travel beside
 * it, by batch, until it is released ({@link #positionOf}), for messages about a row the join refuses.
 *
 * <p>The thread ({@link StageThread}) starts at the first {@code next()} of any reader (the join reads its build
 * file to the end before it reads the probe file, so one reader thread works at a time). {@link #close()} stops it;
 * closing the file is the {@link InputBatches}' owner's part. A worker interrupted while it waits (Ctrl-C) gets a
 * {@link CancellationException}, as the join itself throws when cancelled.
 */
final class PrefetchingBatchSource implements AutoCloseable {
    /**
     * Why 16: the join takes a file's batches unevenly (a Parquet reader's row group or the JIT at work holds one
     * side up for a while), and W1's Parquet case ran 4.5 % faster with 16 than with 4 (2 % with 8; 16 batches of
     * its 4,096 rows of two BIGINTs are 1 MB); the ring's byte bound ({@link BatchSizing#ringWaitingBytes}) still holds
     * batches of wide rows to about two.
     */
    static final int BATCHES = 16;

    private final InputBatches file;
    private final ProgressLine progress;
    private final BatchRing ring;
    private final StageThread thread;
    /**
     * The lines where the rows of each published batch start, by batch (the reader thread puts them before it
     * publishes the batch, a reader takes them out when it releases it), and the free line arrays: as many as
     * batches, so neither the reader thread nor a reader ever waits on them.
     */
    private final Map<Batch, long[]> linesOf = new ConcurrentHashMap<>();
    private final BlockingQueue<long[]> freeLines = new ArrayBlockingQueue<>(BATCHES);
    /** The readers handed out ({@link #reader()}), in that order. */
    private final List<Reader> readers = new CopyOnWriteArrayList<>();
    /** The reader thread's failure: written before the ring ends, read after its end is taken. */
    private volatile Throwable failure;

    /** Reads {@code file} ahead in batches aiming at {@code batchBytes} ({@link BatchSizing#ringWaitingBytes}). */
    PrefetchingBatchSource(InputBatches file, ProgressLine progress, int batchBytes) {
        this.file = file;
        this.progress = progress;
        this.ring = new BatchRing(file.schema(), BATCHES, file.batchRows(), BatchSizing.ringWaitingBytes(batchBytes));
        this.thread = new StageThread("spilljoin-read-" + file.side().name().toLowerCase(Locale.ROOT),
                this::readAhead);
        for (int i = 0; i < BATCHES; i++) {
            freeLines.add(new long[file.batchRows()]);
        }
    }

    /**
     * A reader of the file's batches for one of the join's workers: the join's source (the first) and each concurrent
     * reader it hands out ({@link BatchSource#concurrentReader()}) share the file's batches.
     */
    BatchSource reader() {
        Reader reader = new Reader();
        readers.add(reader);
        return reader;
    }

    /**
     * The position ({@link InputBatches#where}) of row {@code row} of the batch marked {@code origin}, or -1 unless a
     * reader holds that batch. Call it once the join's workers stopped (the worker that refused a row holds its
     * batch until then).
     */
    long positionOf(long origin, int row) {
        for (Reader reader : readers) {
            Batch batch = reader.handedOut;
            if (batch != null && batch.origin() == origin) {
                return reader.handedOutLines[row];
            }
        }
        return -1;
    }

    /** Stops the reader thread (interrupts and joins it). Idempotent. */
    @Override
    public void close() {
        thread.stop();
    }

    /** The reader thread: fills free batches until the end of the file, a failure or an interrupt. */
    private void readAhead() {
        try {
            for (long origin = 0; ; origin++) {
                Batch batch = ring.takeFree();
                long[] lines = freeLines.remove();
                if (!file.readInto(batch, lines)) {
                    break;
                }
                batch.setOrigin(origin);
                linesOf.put(batch, lines);
                ring.publish(batch);
            }
        } catch (InterruptedException e) {
            return; // stopped: nobody waits for the end any more
        } catch (Throwable t) {
            failure = t;
        }
        ring.publishEnd();
    }

    /** One worker's reader: the batch it handed out last, valid until its next call, and that batch's lines. */
    private final class Reader implements BatchSource {
        /** Written by its worker, read by {@link #positionOf} on the join's thread. */
        private volatile Batch handedOut;
        private volatile long[] handedOutLines;

        @Override
        public Batch next() {
            Batch previous = handedOut;
            if (previous != null) {
                handedOut = null;
                linesOf.remove(previous);
                freeLines.add(handedOutLines); // before the batch, which the reader thread may take at once
                ring.release(previous);
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
            handedOutLines = linesOf.get(batch);
            handedOut = batch;
            return batch;
        }

        @Override
        public long sizeHintBytes() {
            return file.sizeHintBytes();
        }

        @Override
        public long sizeHintRows() {
            return file.sizeHintRows();
        }

        @Override
        public BatchSource concurrentReader() {
            return reader();
        }
    }
}
