package dev.spilljoin.operator.table;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The calling thread's CPU clock, for the join's CPU time per phase: its own threads' and the helpers' of its parallel
 * passes ({@link ParallelTasks}). A read is a system call (not a vDSO read like {@link System#nanoTime}): read at
 * phase changes and at a helper's start and end, never per batch or row.
 */
public final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {
    }

    /** The calling thread's CPU time so far, in nanoseconds (0 where the JVM cannot measure it). */
    public static long now() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : 0;
    }
}
