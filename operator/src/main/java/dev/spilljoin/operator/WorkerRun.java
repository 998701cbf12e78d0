package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.ParallelTasks;

import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The helper threads of one parallel phase of a pulled join (morsel-driven, Leis et al. 2014): the thread that pulls
 * the join's results (the caller's) is worker 0 and does the phase's work itself whenever it has nothing to hand
 * out; {@code helpers} threads of their own are workers 1..helpers and run a {@link Body} each. So N workers take
 * N threads, not N + 1, and a result the caller makes itself is handed out without a hand-over.
 *
 * <p>Input (the build and probe passes, {@link Input}): by default the caller pulls the source on its own thread
 * (sources need not be thread-safe, and one whose thread matters, such as a Spark task's iterator, is read on the
 * thread that owns it). It gives a batch to the helpers ({@link #offer}, a copy into one of the recycled batches,
 * {@link #inFlight}: a source may reuse its batch at the next call) while fewer than four batches per helper wait,
 * and works on it itself otherwise; a helper takes one ({@link #nextInput}), works on it, and gives it back
 * ({@link #recycle}). A source that hands out {@linkplain dev.spilljoin.operator.data.BatchSource#concurrentReader()
 * concurrent readers} is read by every helper for itself instead: no copy, no hand-over; the caller may then work as a
 * helper does, on its own source ({@link #nextInput} of worker 0), with the helpers' loop.
 *
 * <p>Output ({@link Output}): each helper fills a result batch ({@link OutputWriter}) of its own. Given a
 * thread-safe sink, a helper calls it with every full batch itself and goes on with the same writer. Otherwise a
 * full one goes to the caller's queue and the helper gets a free one back ({@link #handOff}), from recycled
 * writers ({@link #inFlight}: enough that a helper seldom waits for the caller, since waking a thread on this VM
 * costs tens of microseconds), so a slow consumer stops the helpers instead of piling batches up. The caller hands a
 * queued batch out ({@link #pollFull}, {@link #next}) until its next call.
 *
 * <p>Heap: the recycled input copies and result batches are on-heap and up to an output batch's bytes each, so their
 * number is bounded for all helpers together ({@value #WRITERS_IN_FLIGHT} writers, {@value #INPUTS_IN_FLIGHT}
 * inputs), at least two writers (one filled, one queued) and one input per helper: the caller takes results at one
 * rate however many helpers fill them. A batch holds one row beyond its byte bound, so rows of megabytes would
 * make each of those batches that large: the queues are bounded by bytes as well. A helper queues a full result
 * batch only while the queued ones and it stay within two output batches' bytes ({@link #handOff} waits; an empty
 * queue takes any batch), and the caller offers input while the queued copies hold less than four output batches'
 * bytes per helper. Free batches are reused last in, first out, so that only the few batches in use grow to hold
 * large rows, not every recycled one in turn.
 *
 * <p>Failure and cancellation: the first failure of any helper wins; it cancels the join (every other worker stops at
 * its next batch or block boundary) and the caller rethrows it after every helper's body returned ({@link #stop},
 * which {@code HashJoin.close} also calls, so no helper can touch memory after it is freed). An interrupt of the
 * caller's thread while it waits cancels the join the same way. Every exchange locks once per batch, never per row.
 */
final class WorkerRun {
    /** Recycled result batches for all helpers together, unless two per helper are more. */
    private static final int WRITERS_IN_FLIGHT = 16;
    /** Recycled input copies for all helpers together, unless two per helper are more. */
    private static final int INPUTS_IN_FLIGHT = 6;

    /** What a worker thread runs: its share of the phase, on {@code run}'s inputs and writers. */
    interface Body {
        void run(int worker, WorkerRun run) throws Exception;
    }

    /**
     * Where the helpers' input batches come from: nowhere ({@link #NONE}), copies of what the caller offers
     * ({@link #offered}), or readers of their own ({@link #read}: worker w reads {@code readers[w]}, the caller's
     * own source at 0).
     */
    record Input(Schema offeredSchema, BatchSource[] readers) {
        static final Input NONE = new Input(null, null);

        static Input offered(Schema schema) {
            return new Input(schema, null);
        }

        static Input read(BatchSource[] readers) {
            return new Input(null, readers);
        }
    }

    /**
     * Where the helpers' result batches go: nowhere ({@link #NONE}: a phase without results), to the caller's queue
     * ({@code sink} null), or straight to a thread-safe {@code sink}; {@code writers} makes the result batches.
     */
    record Output(Supplier<OutputWriter> writers, BatchSink sink) {
        static final Output NONE = new Output(null, null);
    }

    private final JoinContext ctx;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Batch> inputs = new ArrayDeque<>();
    private final ArrayDeque<Batch> freeInputs = new ArrayDeque<>();
    private final ArrayDeque<OutputWriter> full = new ArrayDeque<>();
    private final ArrayDeque<OutputWriter> freeWriters = new ArrayDeque<>();
    /** The helpers running {@code body}, on the join's kept threads ({@link JoinContext#tasks}). */
    private final ParallelTasks.Helpers helpers;
    private final int helperCount;
    /** Each worker's own reader (worker w reads {@code readers[w]}), or null: helpers take what the caller offers. */
    private final BatchSource[] readers;
    /** The thread-safe sink the helpers call themselves, or null: their full batches go to the caller. */
    private final BatchSink sink;
    /** The writer the caller handed out last (recycled at its next call). */
    private OutputWriter handedOut;
    /** The counted bytes ({@link OutputWriter#countedBytes}) of the result batches in {@code full}. */
    private long fullBytes;
    /** The most bytes of result batches queued for the caller, unless a single batch holds more. */
    private final long fullBytesLimit;
    /** The bytes ({@link Batch#dataBytes}) of the input copies in {@code inputs}. */
    private long inputBytes;
    /** The caller offers input while the queued copies hold fewer bytes than this (or none is queued). */
    private final long inputBytesLimit;
    private boolean inputEnded;
    private int running;
    private Throwable failure;
    /** Set by {@link #stop}: waiting workers give up. */
    private boolean stopping;

    /**
     * Starts {@code helpers} helpers (the join's kept threads) running {@code body} as workers 1..helpers (the caller
     * is worker 0), with their input from {@code input} and their results going to {@code output}.
     */
    WorkerRun(JoinContext ctx, String name, int helpers, Input input, Output output, Body body) {
        this.ctx = ctx;
        this.readers = input.readers();
        this.sink = output.sink();
        int writers = output.writers() == null ? 0 : sink != null ? helpers : inFlight(WRITERS_IN_FLIGHT, helpers, 2);
        for (int i = 0; i < writers; i++) {
            freeWriters.add(output.writers().get());
        }
        for (int i = 0; i < inFlight(INPUTS_IN_FLIGHT, helpers, 1) && input.offeredSchema() != null; i++) {
            freeInputs.add(new Batch(input.offeredSchema(), ctx.config.outputBatchRows()));
        }
        inputEnded = input.offeredSchema() == null;
        fullBytesLimit = 2 * ctx.config.outputBatchBytes();
        inputBytesLimit = 4L * Math.max(1, helpers) * ctx.config.outputBatchBytes();
        running = helpers;
        helperCount = helpers;
        this.helpers = ctx.tasks.start(name, helpers, worker -> work(worker, body));
    }

    private void work(int worker, Body body) {
        try {
            body.run(worker, this);
        } catch (Throwable e) {
            fail(e);
        } finally {
            lock.lock();
            try {
                running--;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** The recycled result batches and input copies of a run of {@code helpers} helpers, at most (none without). */
    static int recycledBatches(int helpers) {
        return helpers == 0 ? 0 : inFlight(WRITERS_IN_FLIGHT, helpers, 2) + inFlight(INPUTS_IN_FLIGHT, helpers, 1);
    }

    /** Recycled batches for {@code helpers}: {@code total} (a lone helper's) shared out, {@code least} or more each. */
    private static int inFlight(int total, int helpers, int least) {
        return helpers * Math.max(least, total / helpers);
    }

    private void fail(Throwable e) {
        lock.lock();
        try {
            if (failure == null) {
                failure = e;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        ctx.cancel();
    }

    /**
     * The failure to report when the caller's own work (as worker 0) failed with {@code callers}: the first failure of
     * the run (a helper's, when a helper failed first and the caller then only saw its cancellation), recording
     * {@code callers} as the first if none was.
     */
    Throwable firstFailure(Throwable callers) {
        lock.lock();
        try {
            if (failure == null) {
                failure = callers;
                changed.signalAll();
            }
            return failure;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ the workers' side

    /**
     * Worker {@code worker}'s next input batch (read from its own reader, or, for a helper, taken from what the
     * caller offered), or null once the input ended and every batch was taken.
     */
    Batch nextInput(int worker) throws InterruptedException {
        if (readers != null) {
            return readers[worker].next();
        }
        lock.lock();
        try {
            while (inputs.isEmpty() && !inputEnded) {
                checkNotFailed();
                changed.await();
            }
            Batch input = inputs.poll();
            if (input != null) {
                inputBytes -= input.dataBytes();
            }
            return input;
        } finally {
            lock.unlock();
        }
    }

    /** Gives an input batch back for the next copy (a batch of the helper's own reader stays the reader's). */
    void recycle(Batch input) {
        if (readers != null) {
            return;
        }
        lock.lock();
        try {
            freeInputs.push(input);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A free result batch to start with. */
    OutputWriter firstWriter() throws InterruptedException {
        return handOff(null);
    }

    /**
     * Passes {@code filled} on (null: none) and returns a result batch to fill next: with a sink, calls it and returns
     * {@code filled} cleared; else queues it for the caller (waiting while the queue would pass its byte bound) and
     * returns a free one (waits for one). Throws first if the join was cancelled or this thread interrupted: each
     * result batch is a batch boundary.
     */
    OutputWriter handOff(OutputWriter filled) throws InterruptedException {
        ctx.checkCancelled();
        if (sink != null && filled != null) {
            sink.accept(filled.batch());
            filled.clear();
            return filled;
        }
        lock.lock();
        try {
            if (filled != null) {
                long bytes = filled.countedBytes();
                while (!full.isEmpty() && fullBytes + bytes > fullBytesLimit) {
                    checkNotFailed();
                    changed.await();
                }
                full.add(filled);
                fullBytes += bytes;
                changed.signalAll();
            }
            while (freeWriters.isEmpty()) {
                checkNotFailed();
                changed.await();
            }
            return freeWriters.pop();
        } finally {
            lock.unlock();
        }
    }

    /** A worker's last batch: passed on (as {@link #handOff} does) if it holds rows, else recycled. */
    void finishWith(OutputWriter last) {
        if (sink != null && last.rowCount() > 0) {
            sink.accept(last.batch());
            last.clear();
        }
        lock.lock();
        try {
            if (last.rowCount() > 0) {
                full.add(last);
                fullBytes += last.countedBytes();
            } else {
                freeWriters.push(last);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void checkNotFailed() {
        if (failure != null || stopping) {
            throw new CancellationException("hash join worker stopped: " + (failure != null
                    ? "another worker failed" : "the join is stopping"));
        }
    }

    // ------------------------------------------------------------------ the caller's side

    /**
     * A helper's full result batch if one is queued, else null (never waits); rethrows a helper's failure once every
     * helper stopped. The returned batch stays valid until the next call of this or {@link #next}.
     */
    OutputWriter pollFull() {
        return awaitFull(0);
    }

    /**
     * A helper's full result batch, waiting up to {@code millis} for one; null if none came (or every helper ended).
     * Rethrows a helper's failure as {@link #pollFull} does.
     */
    OutputWriter awaitFull(long millis) {
        lock.lock();
        try {
            recycleHandedOut();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (failure == null && full.isEmpty() && running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    fail(JoinContext.interrupted());
                }
            }
            if (failure == null) {
                return handOutFull();
            }
        } finally {
            lock.unlock();
        }
        throw stopAndRethrow();
    }

    /**
     * Gives a copy of {@code batch} to the helpers while they {@link #wantInput}; false when the caller should work
     * on it itself. The copy is made outside the lock, so that helpers taking and giving back batches do not wait
     * for it (only the caller offers: what {@link #wantInput} saw cannot change against it meanwhile).
     */
    boolean offer(Batch batch) {
        Batch copy;
        lock.lock();
        try {
            if (!wantInputLocked()) {
                return false;
            }
            copy = freeInputs.poll();
        } finally {
            lock.unlock();
        }
        copy.copyFrom(batch);
        long bytes = copy.dataBytes();
        lock.lock();
        try {
            inputs.add(copy);
            inputBytes += bytes;
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the helpers want another input batch: fewer than four per helper wait, holding fewer bytes than their
     * bound (or none waits), and a free batch to copy into is left. When true, the caller's next {@link #offer} takes
     * its batch.
     */
    boolean wantInput() {
        lock.lock();
        try {
            return wantInputLocked();
        } finally {
            lock.unlock();
        }
    }

    private boolean wantInputLocked() {
        return inputs.size() < 4 * helperCount && !freeInputs.isEmpty()
                && (inputs.isEmpty() || inputBytes < inputBytesLimit);
    }

    /** Whether the helpers read their input for themselves (the caller offers them nothing). */
    boolean helpersReadOwnInput() {
        return readers != null;
    }

    /** The input ended: helpers stop once the queued batches are done. */
    void endInput() {
        lock.lock();
        try {
            inputEnded = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next full result batch of the helpers, waiting for one; null when every helper ended and every batch was
     * handed out. Rethrows a helper's failure once every helper stopped. The returned batch stays valid until the
     * next call.
     */
    OutputWriter next() {
        lock.lock();
        try {
            recycleHandedOut();
            while (failure == null) {
                if (!full.isEmpty()) {
                    return handOutFull();
                }
                if (running == 0) {
                    return null;
                }
                try {
                    changed.await(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    fail(JoinContext.interrupted());
                }
            }
        } finally {
            lock.unlock();
        }
        throw stopAndRethrow();
    }

    /**
     * Takes the first queued result batch to hand out (null if none is queued); helpers waiting for room in the queue
     * may go on.
     */
    private OutputWriter handOutFull() {
        handedOut = full.poll();
        if (handedOut != null) {
            fullBytes -= handedOut.countedBytes();
            changed.signalAll();
        }
        return handedOut;
    }

    private void recycleHandedOut() {
        if (handedOut != null) {
            handedOut.clear();
            freeWriters.push(handedOut);
            handedOut = null;
            changed.signalAll();
        }
    }

    /** After a helper failed: stops the others and returns its failure to throw. */
    private RuntimeException stopAndRethrow() {
        stop();
        return unchecked(failure);
    }

    /**
     * {@code failure} as the unchecked exception a join call throws: itself if unchecked, an {@link Error} thrown at
     * once, an I/O failure as {@link java.io.UncheckedIOException} ("spilling failed"), an interrupt as cancellation.
     */
    static RuntimeException unchecked(Throwable failure) {
        if (failure instanceof RuntimeException r) {
            return r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure instanceof java.io.IOException io) {
            return new java.io.UncheckedIOException("hash join: spilling failed: " + io.getMessage(), io);
        }
        if (failure instanceof InterruptedException) {
            CancellationException c = new CancellationException("hash join stopped: a worker was interrupted");
            c.initCause(failure);
            return c;
        }
        return new IllegalStateException("hash join: a worker failed: " + failure, failure);
    }

    /** CPU time the helpers spent on this run (complete once {@link #stop} returned). */
    long workerCpuNanos() {
        return helpers.cpuNanos();
    }

    /**
     * Stops the workers (cancelling the join if any is still running) and waits until every helper's body returned;
     * idempotent. Memory and files may be freed only after this.
     */
    void stop() {
        boolean anyRunning;
        lock.lock();
        try {
            anyRunning = running > 0;
            stopping = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (anyRunning) {
            ctx.cancel();
        }
        helpers.await();
    }
}
