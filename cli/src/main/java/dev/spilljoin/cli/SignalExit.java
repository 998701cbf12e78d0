package dev.spilljoin.cli;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How the process ends on Ctrl-C (SIGINT) or SIGTERM while a command runs: {@code Main} installs {@link #hook()}
 * as a shutdown hook, which undoes the command's work at once ({@link Cancellation#cancel()}: the join is cancelled
 * and its spill directory deleted, the uncommitted output deleted), gives the command's thread
 * {@value #GRACE_MILLIS} ms to finish unwinding if it can, prints {@link Cancellation#MESSAGE} and halts with 130,
 * whatever the signal. Halting skips {@code File.deleteOnExit}, so a native library extracted for the run is
 * deleted as it is loaded ({@link SnappyLibrary}, whose load in progress the hook waits for).
 *
 * <p>Nothing here waits on anything slow: the spill files are unlinked while the process holds them open, so the
 * file system frees their blocks (seconds for large fragmented files) only as the process exits, and the command's
 * thread is never waited for past the grace. The command and the signal race for the outcome once
 * ({@link #commandEnded}): a command that ended before the signal keeps its own exit code and output.
 */
final class SignalExit {
    private static final long GRACE_MILLIS = 200;
    private static final int RUNNING = 0;
    private static final int ENDED = 1;
    private static final int SIGNALLED = 2;

    private final Cancellation cancellation;
    private final PrintStream err;
    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile int exitCode;

    SignalExit(Cancellation cancellation, PrintStream err) {
        this.cancellation = cancellation;
        this.err = err;
    }

    /** The shutdown hook's thread (not started). */
    Thread hook() {
        return new Thread(this::onSignal, "spilljoin-signal");
    }

    /**
     * Called when the command returned {@code code}; true if the command ended first and the caller exits with
     * {@code code}, false if a signal took over (the hook exits with 130).
     */
    boolean commandEnded(int code) {
        exitCode = code;
        boolean first = state.compareAndSet(RUNNING, ENDED);
        ended.countDown();
        return first;
    }

    /**
     * Called instead of {@link #commandEnded} when the command failed because the process is shutting down (a
     * signal came before the hook cancelled it: a class whose initialization registers a shutdown hook fails then):
     * the hook, which the JVM has started or is about to, reports the signal and halts with 130 without waiting.
     */
    void commandStoppedByShutdown() {
        ended.countDown();
    }

    /**
     * Whether the JVM's shutdown has begun (a shutdown hook can no longer be registered): the signal's hook runs
     * or is about to, even before it has cancelled the command.
     */
    static boolean shutdownStarted() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
        } catch (IllegalStateException shuttingDown) {
            return true;
        }
        Runtime.getRuntime().removeShutdownHook(probe);
        return false;
    }

    private void onSignal() {
        if (!state.compareAndSet(RUNNING, SIGNALLED)) {
            Runtime.getRuntime().halt(exitCode);
        }
        try {
            cancellation.cancel();
            SnappyLibrary.closeForExit();
            ended.await(GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Runtime.getRuntime().halt(cancellation.reportOnce(err));
        }
    }
}
