package dev.spilljoin.operator;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The build's structure lock: a reader-writer lock striped by worker. Worker {@code w} reads under its own stripe, a
 * {@link ReentrantLock} no other worker takes; a writer takes every stripe in worker order and releases them in
 * reverse. So readers never wait for each other, a writer waits for every reader to end its batch and holds every
 * later one off, writers exclude each other (all take stripe 0 first) and cannot deadlock, and both sides are
 * reentrant. The stripes are fair: a writer queued on a stripe is not overtaken by that worker's next batch.
 *
 * <p>Why not {@link java.util.concurrent.locks.ReentrantReadWriteLock}: every read of it compares and sets one word
 * that all workers share and keeps a per-thread hold count (a thread-local), so two workers taking it once a batch
 * contend on it, and the branches its contended and thread-local paths take now and then are ones the JIT's profile
 * had never seen when it compiled the build worker's batch method: each first use cost a recompilation of that whole
 * method (twice on W1's large build, 0.40 s of the compiler's time during the bench's timed runs). An uncontended
 * stripe takes one path only.
 */
final class StructureLock {
    private final ReentrantLock[] stripes;

    StructureLock(int workers) {
        stripes = new ReentrantLock[workers];
        for (int w = 0; w < workers; w++) {
            stripes[w] = new ReentrantLock(true);
        }
    }

    /** Worker {@code worker} holds the structure for reading (it writes a batch). */
    void lockRead(int worker) {
        stripes[worker].lock();
    }

    void unlockRead(int worker) {
        stripes[worker].unlock();
    }

    /** Holds the structure for writing: no worker reads until {@link #unlockWrite}. */
    void lockWrite() {
        for (ReentrantLock stripe : stripes) {
            stripe.lock();
        }
    }

    void unlockWrite() {
        for (int w = stripes.length - 1; w >= 0; w--) {
            stripes[w].unlock();
        }
    }
}
