package dev.spilljoin.cli;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes of the batches one stage thread has handed to another and not yet had back ({@link BatchRing},
 * {@link EncoderLane}), which the handing thread waits on before it fills another: so rows of megabytes pass a
 * stage about one batch at a time, where a stage's fixed count of batches would each hold such a row at once.
 *
 * <p>Invariants: {@link #add} counts a batch when it is handed on and uncounts it (by the same bytes) when it comes
 * back, so the count is the bytes out; {@link #awaitBelow} returns once they are fewer than the bound (an empty
 * stage passes any batch: the bound holds up to one batch beyond it), {@link #awaitNone} once none are out, either
 * also once the receiving thread failed ({@link #receiverFailed}), which then gives nothing more back. One lock per
 * batch, never per row.
 */
final class BytesOut {
    private final long limit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long bytes;
    private boolean receiverFailed;

    /** A count whose {@link #awaitBelow} waits while the bytes out reach {@code limit}. */
    BytesOut(long limit) {
        this.limit = limit;
    }

    /** Handing thread: waits until the bytes out are below the bound, or the receiving thread failed. */
    void awaitBelow() throws InterruptedException {
        awaitFewerThan(limit);
    }

    /**
     * Handing thread: waits until nothing is out (every batch handed on has come back; a batch of at least one row
     * counts more than 0 bytes), or the receiving thread failed.
     */
    void awaitNone() throws InterruptedException {
        awaitFewerThan(1);
    }

    private void awaitFewerThan(long bound) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (bytes >= bound && !receiverFailed) {
                changed.await();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Counts {@code delta} bytes out: positive when a batch is handed on, negative when it comes back. */
    void add(long delta) {
        lock.lock();
        try {
            bytes += delta;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Receiving thread: it failed and gives nothing more back, so the handing thread no longer waits on bytes. */
    void receiverFailed() {
        lock.lock();
        try {
            receiverFailed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
