package dev.spilljoin.cli;

import java.io.IOException;

/**
 * The thread of one background stage of the CSV pipeline ({@link CsvPipeline}: an input file read ahead, the
 * output written behind). It is a daemon, started at the stage's first use ({@link #startOnce()}), and
 * {@link #stop()} (interrupt, then join) ends it on every path, so no stage thread outlives the command.
 *
 * <p>A stage catches its own failure and hands it to the join's thread, which rethrows it as it was raised
 * ({@link #rethrown}): the same exception type and message reach {@code Main} as when the stage ran on the join's
 * thread, and so the same exit code.
 */
final class StageThread {
    private final Thread thread;
    /** Guarded by this: a stage read by several of the join's workers is started by whichever asks first. */
    private boolean started;

    StageThread(String name, Runnable body) {
        this.thread = new Thread(body, name);
        thread.setDaemon(true);
    }

    /** Starts the thread unless it was started before; any thread may call it. */
    synchronized void startOnce() {
        if (!started) {
            started = true;
            thread.start();
        }
    }

    /** Waits for the thread to end by itself; an interrupt of the waiting thread (Ctrl-C) ends the wait. */
    void awaitEnd() throws InterruptedException {
        if (started()) {
            thread.join();
        }
    }

    /**
     * Interrupts the thread and waits until it has ended (its blocking waits and reads end on the interrupt). The
     * caller's own interrupt status, e.g. from Ctrl-C, is kept.
     */
    void stop() {
        if (!started()) {
            return;
        }
        thread.interrupt();
        joinUninterruptibly(thread);
    }

    private synchronized boolean started() {
        return started;
    }

    /** Waits for {@code thread} to end; an interrupt of the caller's, before or meanwhile, is kept for it. */
    static void joinUninterruptibly(Thread thread) {
        boolean interrupted = Thread.interrupted();
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Throws {@code failure}, raised on a stage thread (null: none), on the join's thread: an {@link IOException} as
     * it is, anything else as {@link #rethrown} gives it.
     */
    static void throwIfFailed(Throwable failure) throws IOException {
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure != null) {
            throw rethrown(failure);
        }
    }

    /**
     * {@code failure}, raised on a stage thread, to throw on the join's thread: an unchecked exception as it is,
     * an {@link Error} thrown right here, anything else wrapped.
     */
    static RuntimeException rethrown(Throwable failure) {
        if (failure instanceof RuntimeException unchecked) {
            return unchecked;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("a stage of the CSV pipeline failed: " + failure, failure);
    }
}
