package dev.spilljoin.cli;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When the Parquet writer's encoder lanes ({@link EncoderLane}) run: asked once per row group, before its first
 * batch ({@link #lanesForNextRowGroup()}).
 *
 * <p>{@link #always()}: from the first row group on. {@link #onceACoreIdles(int)}: from the row group after one
 * through which a whole core of the machine sat idle on average (this process's CPU time, compiler and collector
 * threads included, against the wall time since the row group began; short row groups measured together, at least
 * {@link #MIN_MEASURED_NANOS}), and from then on to the file's end. Until then the writer thread encodes every
 * column itself.
 *
 * <p>Why: a lane takes work off the writer thread but adds to the process's total (a copy of its columns of each
 * batch, a hand-over, a thread to schedule), so it pays only on a core nothing else would use. When every core is
 * busy (the join's workers, the input's reader, the writer, and early in a run the JIT's compiler threads) it only
 * slows the rest: on 2 cores W1's Parquet case took 1.77 s with a lane from the start and 1.66 s without (CPU
 * 2.99 → 2.74 s), 30M rows out 3.26 → 2.97 s; a writer that cannot keep up leaves the join's workers waiting, and so
 * cores idle, which turns the lanes on (docs/PERFORMANCE.md, thirtieth session).
 *
 * <p>Invariant: the choice never changes within a row group, and a lane-encoded row group is the same byte for byte
 * as one the writer encodes alone, so the file does not depend on the policy. Used by the writer's thread alone.
 */
final class LanePolicy {
    /**
     * The least wall time a judgement spans: a process's CPU time comes in clock ticks (10 ms on Linux), so over a
     * shorter row group (wide rows, a fast writer) a tick more or less would read as a core idle or busy; the row
     * groups are measured together until they span this much.
     */
    static final long MIN_MEASURED_NANOS = 100_000_000L;

    /** This process's CPU time in nanoseconds, or a negative value when the platform does not tell. */
    private final LongSupplier cpuNanos;
    /** Wall time in nanoseconds ({@link System#nanoTime()} but in tests). */
    private final LongSupplier wallNanos;
    private final int cores;
    private boolean lanes;
    /** Whether a row group is being measured (from {@link #cpuAtStart} and {@link #wallAtStart}). */
    private boolean measuring;
    private long cpuAtStart;
    private long wallAtStart;

    private LanePolicy(boolean lanes, int cores, LongSupplier cpuNanos, LongSupplier wallNanos) {
        this.lanes = lanes;
        this.cores = cores;
        this.cpuNanos = cpuNanos;
        this.wallNanos = wallNanos;
    }

    /** Lanes from the first row group (the writer's tests, and an output encoded on one thread). */
    static LanePolicy always() {
        return new LanePolicy(true, 1, () -> -1, System::nanoTime);
    }

    /** Lanes once a row group was written with one of {@code cores} cores idle, measured on this process. */
    static LanePolicy onceACoreIdles(int cores) {
        return onceACoreIdles(cores, LanePolicy::processCpuNanos, System::nanoTime);
    }

    /** As {@link #onceACoreIdles(int)}, with the clocks given (tests). */
    static LanePolicy onceACoreIdles(int cores, LongSupplier cpuNanos, LongSupplier wallNanos) {
        return new LanePolicy(false, cores, cpuNanos, wallNanos);
    }

    /**
     * Whether the next row group's column groups run on their lanes: true from the first call on for
     * {@link #always()}; else true once the time since an earlier call (the row group written since) left a core
     * idle on average, and ever after. Unknown CPU time turns the lanes on, as the writer ran before this policy.
     */
    boolean lanesForNextRowGroup() {
        if (lanes) {
            return true;
        }
        long cpu = cpuNanos.getAsLong();
        long wall = wallNanos.getAsLong();
        if (cpu < 0) {
            lanes = true;
        } else if (measuring) {
            long elapsed = wall - wallAtStart;
            if (elapsed < MIN_MEASURED_NANOS) {
                return false; // measured on with the next row group
            }
            lanes = (double) cores * elapsed - (cpu - cpuAtStart) >= elapsed;
        }
        measuring = true;
        cpuAtStart = cpu;
        wallAtStart = wall;
        return lanes;
    }

    /** The CPU time of this process (all its threads), or -1 where the platform does not report it. */
    private static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }
}
