package dev.spilljoin.cli;

import java.io.PrintStream;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * How a signal (Ctrl-C, SIGTERM) reaches a running command. The command registers, while it holds them, the
 * actions that undo what it started ({@link #onCancel}): cancel the join and delete its spill files at once,
 * delete the uncommitted output. {@code Main}'s shutdown hook calls {@link #cancel()}, which runs those actions on
 * the hook's thread, without waiting for the command's thread, and interrupts that thread (so reading and writing
 * CSV stop too); the hook then prints {@link #MESSAGE} and the process exits with 130.
 *
 * <p>Invariant: {@link #MESSAGE} is printed at most once, by the hook or by the command's thread if it reports
 * first ({@link #reportOnce}); after {@link #cancel()} the command prints nothing else.
 */
final class Cancellation {
    static final String MESSAGE = "spilljoin: interrupted; the files it had started were deleted";

    /** For commands run without a hook (tests calling {@code Main.run}): nothing ever cancels them. */
    static final Cancellation NONE = new Cancellation(null);

    /** A registered action; closing it unregisters the action (the command undid or committed the work itself). */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    private final Thread worker;
    private final Queue<Runnable> actions = new ConcurrentLinkedQueue<>();
    private volatile boolean cancelled;
    private boolean reported;

    Cancellation(Thread worker) {
        this.worker = worker;
    }

    /**
     * Registers {@code action} to run on {@link #cancel()}, from the signal's thread while the command may still
     * be running, until the returned registration is closed. Registered in the order the work was started.
     */
    Registration onCancel(Runnable action) {
        if (this == NONE) {
            return () -> { };
        }
        actions.add(action);
        return () -> actions.remove(action);
    }

    /** Runs every registered action and interrupts the command's thread; a failing action does not stop the rest. */
    void cancel() {
        cancelled = true;
        for (Runnable action : actions) {
            try {
                action.run();
            } catch (RuntimeException | Error e) {
                // the process is exiting: undo the rest
            }
        }
        if (worker != null) {
            worker.interrupt();
        }
    }

    boolean isCancelled() {
        return cancelled;
    }

    /** Prints {@link #MESSAGE} on {@code err} unless it was printed already; returns the exit code, 130. */
    synchronized int reportOnce(PrintStream err) {
        if (!reported) {
            reported = true;
            err.println(MESSAGE);
            err.flush();
        }
        return ExitCodes.INTERRUPTED;
    }
}
