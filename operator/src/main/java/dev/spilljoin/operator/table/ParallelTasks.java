package dev.spilljoin.operator.table;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Runs tasks {@code 0..count-1} (a task is a row page or a partition, never a row) on up to {@code threads} threads,
 * the calling thread one of them: each thread takes the next task index until none is left. The first failure stops
 * the others at their next task and is rethrown on the calling thread once every thread has ended, so nothing the
 * tasks use is freed while one still runs. One thread (or one task) runs everything on the caller, with no thread
 * started.
 */
public final class ParallelTasks {
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

    private ParallelTasks() {
    }

    public static void run(int threads, int count, Task task) {
        run(threads, count, (thread, index) -> task.run(index));
    }

    /** The threads {@link #run} runs {@code count} tasks on when given {@code threads}. */
    public static int threadsFor(int threads, int count) {
        return Math.max(1, Math.min(threads, count));
    }

    public static void run(int threads, int count, ThreadTask task) {
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
        Thread[] started = new Thread[helpers];
        for (int h = 0; h < helpers; h++) {
            int thread = h + 1;
            started[h] = new Thread(() -> loop.accept(thread), "spilljoin-table-" + thread);
            started[h].setDaemon(true);
            started[h].start();
        }
        loop.accept(0);
        joinAll(started);
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
     * Waits until every thread of {@code threads} ended, whatever interrupts come meanwhile (the memory they use may
     * be freed only afterwards); an interrupt is kept for the caller to see.
     */
    public static void joinAll(Thread[] threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
