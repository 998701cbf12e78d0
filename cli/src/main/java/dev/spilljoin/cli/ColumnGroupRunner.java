package dev.spilljoin.cli;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs one step of the Parquet writer (write a batch, flush a row group) over its column groups at once: group 0 on
 * the calling thread, each other group as a task on a helper thread, and returns when every group is done. So the
 * batch a step reads may be reused as soon as {@link #run} returns, and what the helpers wrote is visible to the
 * caller then (the executor's futures order it).
 *
 * <p>Threads: {@code groups - 1} daemon helpers named {@code spilljoin-parquet-N}, started at the first step and
 * ended by {@link #close()} (interrupt, then wait for them). A group is run by one thread at a time, the steps one
 * after the other, so a group's column writers, buffers and compressor need no lock.
 *
 * <p>Failures: every group runs to its end even when another fails (no step is left half-run on a live thread); the
 * first failure is thrown on the caller's thread as it was raised (an {@link IOException} as such). An interrupt of
 * the caller while it waits (Ctrl-C) stops the helpers before the {@link InterruptedIOException} is thrown.
 */
final class ColumnGroupRunner implements AutoCloseable {
    /** One step for one group. */
    interface GroupStep {
        void run(int group) throws IOException;
    }

    private final int groups;
    private final ExecutorService helpers;
    private final Future<?>[] running;

    /** A runner of {@code groups} (at least 1) column groups; with one group everything runs on the caller. */
    ColumnGroupRunner(int groups) {
        if (groups < 1) {
            throw new IllegalArgumentException("at least one column group, got " + groups);
        }
        this.groups = groups;
        this.running = new Future<?>[groups];
        if (groups == 1) {
            this.helpers = null;
        } else {
            int[] number = {0};
            this.helpers = Executors.newFixedThreadPool(groups - 1, body -> {
                Thread thread = new Thread(body, "spilljoin-parquet-" + ++number[0]);
                thread.setDaemon(true);
                return thread;
            });
        }
    }

    int groups() {
        return groups;
    }

    /** Runs {@code step} for every group and waits for all of them; throws the first failure. */
    void run(GroupStep step) throws IOException {
        for (int g = 1; g < groups; g++) {
            int group = g;
            running[g] = helpers.submit(() -> {
                step.run(group);
                return null;
            });
        }
        Throwable failure = null;
        try {
            step.run(0);
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
        }
        for (int g = 1; g < groups; g++) {
            try {
                running[g].get();
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
            } catch (InterruptedException e) {
                close();
                Thread.currentThread().interrupt();
                throw (InterruptedIOException) new InterruptedIOException("interrupted while writing Parquet")
                        .initCause(e);
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure != null) {
            throw (Error) failure;
        }
    }

    /** Stops the helper threads and waits until they have ended; the caller's interrupt status is kept. Idempotent. */
    @Override
    public void close() {
        if (helpers == null) {
            return;
        }
        helpers.shutdownNow();
        boolean interrupted = Thread.interrupted();
        while (true) {
            try {
                if (helpers.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
