package dev.spilljoin.cli;

/**
 * How Ctrl-C reaches a running join: {@code Main}'s shutdown hook calls {@link #cancel()}, which cancels the join
 * that registered itself (so it stops at its next batch or spill block and deletes its spill directory) and
 * interrupts the thread running the command (so reading and writing CSV stop too). The command's
 * try-with-resources then deletes the uncommitted output, and the hook waits for that before the JVM exits.
 */
final class Cancellation {
    /** For commands run without a hook (tests calling {@code Main.run}): nothing ever cancels them. */
    static final Cancellation NONE = new Cancellation(null);

    private final Thread worker;
    private volatile Runnable cancelJoin;

    Cancellation(Thread worker) {
        this.worker = worker;
    }

    /** Registers how to cancel the running join (null: no join running). */
    void onCancel(Runnable action) {
        cancelJoin = action;
    }

    /** Cancels the registered join, if any, and interrupts the command's thread. */
    void cancel() {
        Runnable action = cancelJoin;
        if (action != null) {
            action.run();
        }
        if (worker != null) {
            worker.interrupt();
        }
    }
}
