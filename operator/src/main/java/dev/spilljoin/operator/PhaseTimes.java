package dev.spilljoin.operator;

import dev.spilljoin.operator.table.ThreadCpu;
import java.util.concurrent.atomic.LongAdder;

/**
 * The time a join spent in each phase: wall time as its callers saw it, and CPU time of every thread that worked on
 * the phase (the caller's and its workers'). Added to from any thread (concurrent pushes, worker threads ending),
 * without a lock: a {@link LongAdder} per figure, written once per batch or per thread, never per row. A thread's CPU
 * clock is a system call (not a vDSO read like {@link System#nanoTime}), so a pulled join reads the caller's only at
 * phase changes, never per result batch.
 */
final class PhaseTimes {
    /** A phase's two clocks. */
    static final class Clock {
        private final LongAdder wall = new LongAdder();
        private final LongAdder cpu = new LongAdder();

        /**
         * Adds the time since {@code wallStart} ({@link System#nanoTime}) and {@code cpuStart} ({@link ThreadCpu#now}).
         */
        void addSince(long wallStart, long cpuStart) {
            wall.add(System.nanoTime() - wallStart);
            cpu.add(ThreadCpu.now() - cpuStart);
        }

        /** Adds the wall time since {@code wallStart} ({@link System#nanoTime}). */
        void addWallSince(long wallStart) {
            wall.add(System.nanoTime() - wallStart);
        }

        /** Adds CPU time another thread spent on the phase. */
        void addCpu(long nanos) {
            cpu.add(nanos);
        }

        long wallNanos() {
            return wall.sum();
        }

        long cpuNanos() {
            return cpu.sum();
        }
    }

    final Clock build = new Clock();
    final Clock probe = new Clock();
    final Clock pairs = new Clock();
}
