package dev.spilljoin.operator.table;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * Up to {@link #threads()} threads for the parallel passes of a join, the calling thread one of them: {@link #run}
 * runs tasks {@code 0..count-1} (a task is a row page or a partition, never a row), each thread taking the next task
 * index until none is left; {@link #start} runs a body on each of a number of helper threads (a phase's workers 1..,
 * {@code WorkerRun}). The first failure of a {@link #run} stops the other threads at their next task and is rethrown
 * on the calling thread once every thread has ended its part, so nothing the tasks use is freed while one still runs.
 * One thread (or one task) runs everything on the caller, with no helper.
 *
 * <p>Helpers: {@link #startingHelpers} starts a thread for each helper of each pass and lets it end with its part;
 * {@link #keepingHelpers} (a join's, one instance per join) starts helper thread {@code w} at the first pass that
 * needs it and keeps it, parked, for the passes after, until {@link #close}: a join of W1 on two workers started five
 * threads (the build and probe passes, the key statistics, the occupancy and the payload copy), each start and join
 * 140-460 µs on this VM, where waking a parked one takes tens of microseconds. Kept threads are made by the thread
 * that starts the first pass (the join's caller, as started ones are), so they inherit what a started one would; they
 * carry the pass's name while they run it ({@code spilljoin-<pass>-<w>}) and {@code spilljoin-helper-<w>} while
 * parked. A pass that asks for a kept helper still busy (a pass started from inside another) or after {@link #close}
 * gets a started thread instead.
 *
 * <p>Invariants: a helper runs one body at a time; {@link Helpers#await} returns only once every body of its pass
 * returned; {@link #close} returns once every kept thread ended (called when no pass runs).
 */
public final class ParallelTasks implements AutoCloseable {
    /** One task. */
    @FunctionalInterface
    public interface Task {
        void run(int index);
    }

    /** One task, told which of the threads runs it ({@code 0}: the calling thread; below {@link #threadsFor}). */
    @FunctionalInterface
    public interface ThreadTask {
        void run(int thread, int index);
    }

    /** The calling thread alone. */
    public static final ParallelTasks CALLER = new ParallelTasks(1, null, false, new AtomicLong());

    private final int threads;
    /** The kept helpers (shared by {@link #limitedTo} views), or null: every pass starts its own. */
    private final KeptHelpers kept;
    /** Whether {@link #close} ends the kept helpers: their owner's does, a view's does not. */
    private final boolean owner;
    /** The CPU time of the helpers' parts of {@link #run} not yet taken ({@link #takeHelperCpuNanos}); views share. */
    private final AtomicLong helperCpuNanos;

    private ParallelTasks(int threads, KeptHelpers kept, boolean owner, AtomicLong helperCpuNanos) {
        if (threads < 1) {
            throw new IllegalArgumentException("parallel tasks need at least one thread, got " + threads);
        }
        this.threads = threads;
        this.kept = kept;
        this.owner = owner;
        this.helperCpuNanos = helperCpuNanos;
    }

    /** Up to {@code threads} threads, each pass's helpers started for it. */
    public static ParallelTasks startingHelpers(int threads) {
        return threads == 1 ? CALLER : new ParallelTasks(threads, null, false, new AtomicLong());
    }

    /** Up to {@code threads} threads, the helpers kept from pass to pass until {@link #close}. */
    public static ParallelTasks keepingHelpers(int threads) {
        return threads == 1 ? CALLER
                : new ParallelTasks(threads, new KeptHelpers(threads - 1), true, new AtomicLong());
    }

    /** The most threads a pass runs on, the caller's included. */
    public int threads() {
        return threads;
    }

    /**
     * These threads, at most {@code most} of them (at least one): the same helpers, for a pass that fits fewer. Closing
     * the view ends nothing: the owner ends the helpers.
     */
    public ParallelTasks limitedTo(int most) {
        int n = Math.max(1, Math.min(threads, most));
        return n == threads ? this : n == 1 ? CALLER : new ParallelTasks(n, kept, false, helperCpuNanos);
    }

    /** The threads a pass over {@code count} tasks runs on when given {@code threads}. */
    public static int threadsFor(int threads, int count) {
        return Math.max(1, Math.min(threads, count));
    }

    public void run(int count, Task task) {
        run(count, (thread, index) -> task.run(index));
    }

    public void run(int count, ThreadTask task) {
        int helpers = threadsFor(threads, count) - 1;
        if (helpers == 0) {
            for (int i = 0; i < count; i++) {
                task.run(0, i);
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        IntConsumer loop = thread -> {
            try {
                for (int i = next.getAndIncrement(); i < count && failure.get() == null; i = next.getAndIncrement()) {
                    task.run(thread, i);
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        };
        Helpers started = start("table", helpers, loop);
        loop.accept(0);
        started.await();
        helperCpuNanos.addAndGet(started.cpuNanos());
        Throwable e = failure.get();
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error error) {
            throw error;
        }
        if (e != null) {
            throw new IllegalStateException("a table task failed: " + e, e);
        }
    }

    /**
     * The CPU time the helper threads spent in the parts of {@link #run} they took since the last call (the calling
     * thread's own part is on its own clock): the join adds it to the phase whose passes ran (a {@link #start}'s caller
     * reads its {@link Helpers#cpuNanos}).
     */
    public long takeHelperCpuNanos() {
        return helperCpuNanos.getAndSet(0);
    }

    /**
     * Runs {@code body} with {@code w} on helper {@code w} for each {@code w} in {@code 1..helpers}, on a thread named
     * {@code spilljoin-<name>-<w>} while it does; {@link Helpers#await} waits for every one to return. The body should
     * catch what it throws: what escapes it is rethrown by {@code await}, wrapped.
     */
    public Helpers start(String name, int helpers, IntConsumer body) {
        Helpers started = new Helpers(helpers);
        for (int w = 1; w <= helpers; w++) {
            int worker = w;
            String threadName = "spilljoin-" + name + "-" + w;
            if (kept == null
                    || !kept.tryRun(w, () -> started.run(threadName, worker, body, () -> kept.release(worker)))) {
                Thread t = new Thread(() -> started.run(threadName, worker, body, null), threadName);
                t.setDaemon(true);
                t.start();
            }
        }
        return started;
    }

    /**
     * Ends the kept helper threads (none runs a pass then) and waits until they ended; idempotent. A view's
     * ({@link #limitedTo}) ends nothing.
     */
    @Override
    public void close() {
        if (kept != null && owner) {
            kept.close();
        }
    }

    /** The helpers of one {@link #start}. */
    public static final class Helpers {
        private final CountDownLatch running;
        private final AtomicReference<Throwable> escaped = new AtomicReference<>();
        private final AtomicLong cpuNanos = new AtomicLong();

        private Helpers(int helpers) {
            running = new CountDownLatch(helpers);
        }

        /** Runs helper {@code worker}'s body; {@code release} (if any) frees a kept helper before the count down. */
        private void run(String threadName, int worker, IntConsumer body, Runnable release) {
            Thread me = Thread.currentThread();
            String idleName = me.getName();
            me.setName(threadName);
            long cpuStart = ThreadCpu.now(); // a kept thread's clock counts from its start, not from this body's
            try {
                body.accept(worker);
            } catch (Throwable e) {
                escaped.compareAndSet(null, e);
            } finally {
                cpuNanos.addAndGet(ThreadCpu.now() - cpuStart);
                me.setName(idleName);
                if (release != null) {
                    release.run(); // before the count down: the next pass may give this helper its job at once
                }
                running.countDown();
            }
        }

        /**
         * Waits until every helper's body returned, whatever interrupts come meanwhile (the memory they use may be
         * freed only afterwards; an interrupt is kept for the caller to see), and rethrows what escaped a body.
         */
        public void await() {
            uninterruptibly(running::await);
            Throwable e = escaped.get();
            if (e != null) {
                throw new IllegalStateException("a helper thread failed: " + e, e);
            }
        }

        /** The CPU time the helpers' bodies took: complete once {@link #await} returned. */
        public long cpuNanos() {
            return cpuNanos.get();
        }
    }

    /** Helper threads 1..n, each started at its first job and parked between jobs until closed. */
    private static final class KeptHelpers {
        private final ReentrantLock lock = new ReentrantLock();
        private final Thread[] threads;
        /** Helper w's next job (index w - 1), null when it has none; a job is taken when it starts. */
        private final Runnable[] jobs;
        /** Whether helper w has a job, assigned or running ({@link #release} ends it). */
        private final boolean[] busy;
        private final Condition[] assigned;
        private boolean closed;

        KeptHelpers(int helpers) {
            threads = new Thread[helpers];
            jobs = new Runnable[helpers];
            busy = new boolean[helpers];
            assigned = new Condition[helpers];
            for (int i = 0; i < helpers; i++) {
                assigned[i] = lock.newCondition();
            }
        }

        /** Gives {@code job} to helper {@code w} if it has none (starting its thread at its first); else false. */
        boolean tryRun(int w, Runnable job) {
            int i = w - 1;
            lock.lock();
            try {
                if (closed || i >= threads.length || busy[i]) {
                    return false;
                }
                busy[i] = true;
                jobs[i] = job;
                if (threads[i] == null) {
                    threads[i] = new Thread(() -> loop(i), "spilljoin-helper-" + w);
                    threads[i].setDaemon(true);
                    threads[i].start();
                } else {
                    assigned[i].signal();
                }
                return true;
            } finally {
                lock.unlock();
            }
        }

        private void loop(int i) {
            while (true) {
                Runnable job;
                lock.lock();
                try {
                    while (jobs[i] == null && !closed) {
                        assigned[i].awaitUninterruptibly();
                    }
                    job = jobs[i];
                    jobs[i] = null;
                } finally {
                    lock.unlock();
                }
                if (job == null) {
                    return; // closed, no job left
                }
                Thread.interrupted(); // each job starts uninterrupted, as on a fresh thread: an interrupt meant for
                                      // the last one (a writer's, at Ctrl-C) ended with it
                job.run(); // Helpers.run catches what its body throws and releases the helper
            }
        }

        /** Helper {@code w} finished its job: it takes the next one. */
        void release(int w) {
            lock.lock();
            try {
                busy[w - 1] = false;
            } finally {
                lock.unlock();
            }
        }

        void close() {
            lock.lock();
            try {
                closed = true;
                for (Condition c : assigned) {
                    c.signal();
                }
            } finally {
                lock.unlock();
            }
            for (Thread t : threads) {
                if (t != null) {
                    uninterruptibly(t::join);
                }
            }
        }
    }

    /** A wait that an interrupt ends early. */
    @FunctionalInterface
    private interface InterruptibleWait {
        void run() throws InterruptedException;
    }

    /**
     * Runs {@code wait} until it returns without an interrupt (what it waits for may free memory only afterwards);
     * an interrupt meanwhile is kept for the caller to see.
     */
    private static void uninterruptibly(InterruptibleWait wait) {
        boolean interrupted = false;
        while (true) {
            try {
                wait.run();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
