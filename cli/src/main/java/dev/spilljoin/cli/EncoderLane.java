package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One column group of the Parquet writer encoded on a thread of its own, behind the writing thread rather than in
 * step with it: the writer hands the lane a copy of the group's columns of each batch ({@link #copyOf}) and goes
 * on with its own group and the next batch; the lane encodes the copies in order and reports, per batch, its
 * group's buffered bytes after it. The writer takes a batch's result when it has handed over the {@value #LAG}
 * next ones, so it waits only for a lane further behind, and at a row group's end ({@link #finishRowGroup}), not
 * for each batch's hand-over as threads working in step do.
 *
 * <p>Invariants: tasks run in the order submitted, one at a time, on the lane's thread alone, so the group's column
 * writers, buffers and compressor need no lock; a result is reported per task, in order, and the writer takes each
 * exactly once ({@link #await}); at most {@value #COPIES} copies exist, so the writer waits when the lane is that
 * many batches behind (and the heap holds at most that many). The copies submitted and not yet encoded are bounded
 * by bytes too ({@link BytesOut}, {@code copyBytesLimit}), so that copies of rows of megabytes wait for the lane one
 * at a time, and a copy whose arrays such a row grew is dropped once encoded ({@link BatchSizing#holdsLargeValues}),
 * not kept for reuse. A batch of such rows is not copied at all but lent ({@link #lend}): the lane encodes it in place
 * while the writer waits for it ({@link #awaitLent}), and the writer gives the batch back only after that. What the
 * lane wrote is visible to the writer once it took the task's result (the queues order it), and what the writer set
 * up before a submit is visible to the lane.
 *
 * <p>Failures: a failure ends the lane; the writer gets it, as it was raised, at its next wait for a result or a
 * copy. {@link #close()} interrupts and joins the thread (an interrupted wait of the writer, Ctrl-C, is an
 * {@link InterruptedIOException}).
 */
final class EncoderLane implements AutoCloseable {
    /** How many batches a lane may be behind the writer before the writer waits for it. */
    static final int LAG = 3;
    /** Batch copies per lane: the batches it may be behind, one more being filled by the writer, one to spare. */
    static final int COPIES = LAG + 2;

    /** What the lane does on its thread. */
    interface Group {
        /** Encodes the group's columns of {@code batch}; returns the group's buffered bytes after it. */
        long write(Batch batch) throws IOException;

        /** Ends the row group's column chunks of the group (their last pages). */
        void finishRowGroup() throws IOException;
    }

    /** The task that ends a row group (and, after a failure, the copy that wakes a writer waiting for one). */
    private static final Batch FINISH = new Batch(new Schema(List.of()), 0);
    private static final long FAILED = Long.MIN_VALUE;

    private final Group group;
    /** The columns of the batches that the lane's copies hold. */
    private final int[] columns;
    private final BlockingQueue<Batch> free = new ArrayBlockingQueue<>(COPIES);
    private final BlockingQueue<Batch> tasks = new ArrayBlockingQueue<>(COPIES + 1);
    private final BlockingQueue<Long> results = new ArrayBlockingQueue<>(COPIES + 2);
    private final StageThread thread;
    /** The bytes of the copies submitted and not yet encoded. */
    private final BytesOut copiesOut;
    /** The writer's batch last lent to the lane (encoded in place, not one of its copies). */
    private volatile Batch lent;
    private int copiesMade;
    private volatile Throwable failure;

    /**
     * A lane named {@code name} running {@code group}'s work on copies of {@code columns}, its copies waiting for the
     * lane once those submitted hold {@code copyBytesLimit} bytes; its thread starts at the first task.
     */
    EncoderLane(String name, Group group, int[] columns, long copyBytesLimit) {
        this.group = group;
        this.columns = columns.clone();
        this.copiesOut = new BytesOut(copyBytesLimit);
        this.thread = new StageThread(name, this::run);
    }

    /**
     * Writer: a copy of the lane's columns of {@code batch} (other columns left empty), made in a copy the lane has
     * released; waits while every copy is in use or those submitted hold their byte bound.
     */
    Batch copyOf(Batch batch) throws IOException {
        throwIfFailed();
        try {
            copiesOut.awaitBelow();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        Batch copy;
        if (copiesMade < COPIES) {
            copiesMade++;
            copy = new Batch(batch.schema(), batch.rowCount());
        } else {
            copy = take(free);
        }
        throwIfFailed();
        int rows = batch.rowCount();
        for (int c : columns) {
            copy.column(c).copyFrom(batch.column(c), rows);
        }
        copy.setRowCount(rows);
        return copy;
    }

    /** Writer: hands the lane a copy to encode (from {@link #copyOf}). */
    void submit(Batch copy) {
        thread.startOnce();
        copiesOut.add(copy.dataBytes(columns));
        tasks.add(copy);
    }

    /**
     * Writer: hands the lane {@code batch} itself to encode (no copy: for a batch of rows of megabytes), after the
     * copies submitted before it; the writer reads but does not change or give back the batch before
     * {@link #awaitLent} returns.
     */
    void lend(Batch batch) throws IOException {
        throwIfFailed();
        lent = batch;
        thread.startOnce();
        copiesOut.add(batch.dataBytes(columns));
        tasks.add(batch);
    }

    /**
     * Writer: waits until the lane has encoded every batch handed to it, the one lent last among them, and forgets
     * that one (a batch of rows of megabytes the writer's caller may drop).
     */
    void awaitLent() throws IOException {
        try {
            copiesOut.awaitNone();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        throwIfFailed();
        lent = null;
    }

    /**
     * Writer, once it submitted every batch of the row group: has the lane end the group's row group after them
     * (without waiting; its result follows theirs).
     */
    void finishRowGroup() {
        thread.startOnce();
        tasks.add(FINISH);
    }

    /**
     * Writer: the result of the oldest task whose result it has not taken yet, waiting for it: after a batch, the
     * group's buffered bytes; after a row group's end, 0.
     */
    long await() throws IOException {
        throwIfFailed(); // a stopped lane reports nothing more: its failure is the answer to every later wait
        long result = take(results);
        throwIfFailed();
        return result;
    }

    /** Stops the lane's thread (interrupts and joins it); idempotent. */
    @Override
    public void close() {
        thread.stop();
    }

    private void run() {
        try {
            while (true) {
                Batch task = tasks.take();
                if (task == FINISH) {
                    group.finishRowGroup();
                    results.add(0L);
                } else {
                    long bytes = group.write(task);
                    long taskBytes = task.dataBytes(columns);
                    if (task != lent) {
                        free.add(BatchSizing.holdsLargeValues(task) ? new Batch(task.schema(), 1) : task);
                    }
                    copiesOut.add(-taskBytes);
                    results.add(bytes);
                }
            }
        } catch (InterruptedException e) {
            failure = new InterruptedIOException("interrupted while writing Parquet");
        } catch (Throwable t) {
            failure = t;
        }
        results.offer(FAILED); // wakes a writer waiting for a result,
        copiesOut.receiverFailed(); // or for room among the copies,
        free.offer(FINISH); // or for a copy (which it never uses: it sees the failure first)
    }

    private <T> T take(BlockingQueue<T> queue) throws IOException {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    private static InterruptedIOException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return (InterruptedIOException) new InterruptedIOException("interrupted while writing Parquet").initCause(e);
    }

    private void throwIfFailed() throws IOException {
        StageThread.throwIfFailed(failure);
    }
}
