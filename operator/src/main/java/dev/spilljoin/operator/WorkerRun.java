package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.table.OutputWriter;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One parallel phase of a pulled join (morsel-driven, Leis et al. 2014): {@code workers} threads of their own run a
 * {@link Body} each, while the thread that pulls the join's results (the caller's) feeds them input batches and takes
 * their full result batches.
 *
 * <p>Input (the probe pass): the caller pulls the source on its own thread (sources need not be thread-safe, and one
 * whose thread matters, such as a Spark task's iterator, is read on the thread that owns it), copies each batch into a
 * free one of {@code 2 × workers} recycled batches (a source may reuse its batch at the next call) and queues it; a
 * worker takes one ({@link #nextInput}), works on it, and gives it back ({@link #recycle}). Output: each worker fills
 * a result batch ({@link OutputWriter}) of its own; a full one goes to the caller's queue and the worker gets a free
 * one back ({@link #handOff}), from {@code 2 × workers} recycled writers, so a slow consumer stops the workers instead
 * of piling batches up. The caller hands a full batch out until its next call ({@link #next}).
 *
 * <p>Failure and cancellation: the first failure of any worker wins; it cancels the join (every other worker stops at
 * its next batch or block boundary) and the caller rethrows it after every worker thread ended ({@link #stop}, which
 * {@code HashJoin.close} also calls, so no worker can touch memory after it is freed). An interrupt of the caller's
 * thread while it waits cancels the join the same way. Every exchange locks once per batch, never per row.
 */
final class WorkerRun implements AutoCloseable {
    /** What a worker thread runs: its share of the phase, on {@code run}'s inputs and writers. */
    interface Body {
        void run(int worker, WorkerRun run) throws Exception;
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final JoinContext ctx;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Batch> inputs = new ArrayDeque<>();
    private final ArrayDeque<Batch> freeInputs = new ArrayDeque<>();
    private final ArrayDeque<OutputWriter> full = new ArrayDeque<>();
    private final ArrayDeque<OutputWriter> freeWriters = new ArrayDeque<>();
    private final Thread[] threads;
    /** The writer the caller handed out last (recycled at its next call). */
    private OutputWriter handedOut;
    private boolean inputEnded;
    private int running;
    private Throwable failure;
    /** Set by {@link #stop}: waiting workers give up. */
    private boolean stopping;
    private long workerCpuNanos;

    /**
     * Starts {@code workers} threads running {@code body}; {@code inputSchema} is the input batches' schema (null for
     * a phase without input), {@code writers} makes result batches.
     */
    WorkerRun(JoinContext ctx, String name, int workers, Schema inputSchema, Supplier<OutputWriter> writers,
              Body body) {
        this.ctx = ctx;
        for (int i = 0; i < 2 * workers; i++) {
            freeWriters.add(writers.get());
            if (inputSchema != null) {
                freeInputs.add(new Batch(inputSchema, ctx.config.outputBatchRows()));
            }
        }
        inputEnded = inputSchema == null;
        this.threads = new Thread[workers];
        running = workers;
        for (int w = 0; w < workers; w++) {
            int worker = w;
            threads[w] = new Thread(() -> work(worker, body), "spilljoin-" + name + "-" + w);
            threads[w].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
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
                workerCpuNanos += THREADS.getCurrentThreadCpuTime();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
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

    // ------------------------------------------------------------------ the workers' side

    /** The next input batch, or null once the input ended and every batch was taken. */
    Batch nextInput() throws InterruptedException {
        lock.lock();
        try {
            while (inputs.isEmpty() && !inputEnded) {
                checkNotFailed();
                changed.await();
            }
            return inputs.poll();
        } finally {
            lock.unlock();
        }
    }

    /** Gives an input batch back for the next copy. */
    void recycle(Batch input) {
        lock.lock();
        try {
            freeInputs.add(input);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A free result batch to start with. */
    OutputWriter firstWriter() throws InterruptedException {
        return handOff(null);
    }

    /** Queues {@code filled} (null: none) for the caller and returns a free result batch (waits for one). */
    OutputWriter handOff(OutputWriter filled) throws InterruptedException {
        lock.lock();
        try {
            if (filled != null) {
                full.add(filled);
                changed.signalAll();
            }
            while (freeWriters.isEmpty()) {
                checkNotFailed();
                changed.await();
            }
            return freeWriters.poll();
        } finally {
            lock.unlock();
        }
    }

    /** A worker's last batch: queued if it holds rows, else recycled. */
    void finishWith(OutputWriter last) {
        lock.lock();
        try {
            if (last.rowCount() > 0) {
                full.add(last);
            } else {
                freeWriters.add(last);
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
     * The next full result batch, feeding {@code source} (null: no input) to the workers meanwhile; null when every
     * worker ended and every batch was handed out. Rethrows a worker's failure once every worker stopped. The
     * returned batch stays valid until the next call.
     */
    OutputWriter next(BatchSource source) {
        lock.lock();
        try {
            if (handedOut != null) {
                handedOut.clear();
                freeWriters.add(handedOut);
                handedOut = null;
                changed.signalAll();
            }
            while (true) {
                if (failure != null) {
                    break;
                }
                if (!full.isEmpty()) {
                    handedOut = full.poll();
                    return handedOut;
                }
                if (!inputEnded && !freeInputs.isEmpty()) {
                    Batch copy = freeInputs.poll();
                    lock.unlock();
                    Batch in;
                    try {
                        ctx.checkCancelled();
                        in = source.next();
                        if (in != null) {
                            copy.copyFrom(in);
                        }
                    } catch (RuntimeException | Error e) {
                        lock.lock();
                        fail(e);
                        break;
                    }
                    lock.lock();
                    if (in == null) {
                        inputEnded = true;
                        freeInputs.add(copy);
                    } else {
                        inputs.add(copy);
                    }
                    changed.signalAll();
                    continue;
                }
                if (running == 0) {
                    return null;
                }
                try {
                    changed.await(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail(new CancellationException("hash join stopped: its thread was interrupted"));
                }
            }
        } finally {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
        }
        stop();
        throw rethrowable(failure);
    }

    private static RuntimeException rethrowable(Throwable failure) {
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        return new java.io.UncheckedIOException("hash join: spilling failed: " + failure.getMessage(),
                failure instanceof java.io.IOException io ? io : new java.io.IOException(failure));
    }

    /** CPU time the worker threads spent (complete once they all ended). */
    long workerCpuNanos() {
        lock.lock();
        try {
            return workerCpuNanos;
        } finally {
            lock.unlock();
        }
    }

    int workers() {
        return threads.length;
    }

    /**
     * Stops the workers (cancelling the join if any is still running) and waits until every worker thread ended;
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
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true; // the workers must end before anything is freed: keep waiting
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
