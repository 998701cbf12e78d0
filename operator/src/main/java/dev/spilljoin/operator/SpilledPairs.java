package dev.spilljoin.operator;

import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillFile;


import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * The JOIN_SPILLED phase: joins the spilled partition pairs, depth first (a stack, so the disk holds at most one
 * level's siblings per level at a time per worker), on one or more {@link PairWorker}s. Each worker takes a pair at
 * a time from the shared stack and joins it within its own share of the budget (a child reservation with a limit:
 * the memory free when the phase starts, split evenly, so workers cannot take each other's room and each plans as a
 * single-threaded join with that budget would). A worker that finds the stack empty helps another worker's task
 * probe its pair, a block of the probe file at a time ({@link SharedProbePass}: so one large pair, such as the heavy
 * keys', runs on every worker), and otherwise waits while another may still push children (a pair being planned)
 * or offer a probe pass (a task running), then stops; the caller's thread does not wait but returns to hand the
 * helpers' result batches out ({@link Work#IDLE}). As many workers take pairs as the free memory holds shares for, a
 * share being the largest of a pair worker's minimum ({@link SpillSizing#pairWorkerMinimum}), the largest pair
 * that one worker with the whole budget would join at once (so that splitting the budget re-partitions nothing
 * more) and what any pair's nested loop needs for its largest rows ({@link HeavyHitterNestedLoop#memoryNeeded});
 * up to the join's threads, however few pairs there are (one when there is none), the rest only help probe, each
 * with a lane's share (a block buffer and a nested-loop forwarder): so a budget that holds one pair at a time
 * still probes it on every worker. The caller's thread is the first of those that only help, as it also hands every
 * result batch out: loading a pair's table there would stop the helpers' batches (docs/PERFORMANCE.md measures
 * it).
 *
 * <p>For each pair: if a side is empty and the join type can produce nothing from the other, both files are
 * dropped; if its probe file is the smaller and its probe rows fit, it is joined in memory with the roles reversed;
 * if its build rows, table and a reader fit the memory left (or the configured pair limit), it is joined in memory
 * ({@link InMemoryPairJoin}); else, unless it is {@linkplain SpillPair#stuck stuck} or at the maximum
 * depth, it is re-partitioned with the next level's h1 ({@link Repartitioner}), into as many children as the
 * partition planner plans for its rows and the memory free ({@link SpillSizing#repartitionFanoutLog2}), and its
 * children are pushed; else it
 * takes the nested-loop path ({@link HeavyHitterNestedLoop}).
 *
 * <p>The pair of the heavy keys the build's sketch found ({@link SpillPair#fromSketch()}) is stuck from the start: it
 * is joined in memory (reversed or not) if it fits, else it goes straight to the nested loop.
 *
 * <p>Role reversal covers the in-memory pair join only: the nested-loop path keeps the planned orientation (it
 * streams the probe file once per chunk of build rows, so reversing would pay off only when the probe file is the
 * smaller, which is the case the in-memory reversal already takes whenever the probe rows fit).
 *
 * <p>Invariant: the nested loop gets only pairs that no longer split. A pair that does not fit is re-partitioned
 * while it is not stuck, that is while the split that made it left less than 9/10 of its parent's build rows in
 * it, so the build rows of each pair on the path shrink by a tenth or more per level and the descent ends; each
 * level splits a pair into the parts the planner expects to fit (2 to 1024 of them). The depth bound
 * {@link JoinConfig#maxRecursionDepth()} ({@link JoinConfig#DEFAULT_MAX_RECURSION_DEPTH}) is a safety net that
 * only tests lower: the nested loop streams a pair's probe rows once per budget-sized chunk of its build rows, a
 * cost that grows with the square of the pair's size, so it is kept for the keys re-partitioning cannot separate
 * (hot keys), where it is the only way.
 */
final class SpilledPairs implements JoinPhase {
    private final JoinContext ctx;
    /** Pairs not yet taken (guarded by this). */
    private final Deque<SpillPair> pending = new ArrayDeque<>();
    /** Owned: the workers, each with its share of the budget, counters and current task. */
    private final PairWorker[] workers;
    /** Probe passes of running tasks offered to idle workers (guarded by this). */
    private final Deque<SharedProbePass> passes = new ArrayDeque<>();
    /** Pairs taken and still being planned: they may push children (guarded by this). */
    private int planning;
    /** Tasks joining a pair, not yet closed: they may offer a probe pass (guarded by this). */
    private int running;
    /**
     * The largest spilled row too large for a write buffer (its own block), in memory; 0 for none. Level 0's pairs
     * hold every spilled row, so re-partitioning makes none larger.
     */
    private final long largestOwnBlockRow;

    /** The phase joining {@code pairs} (level 0's, in order) with up to {@code maxWorkers} workers. */
    SpilledPairs(JoinContext ctx, List<SpillPair> pairs, InputTotals totals, int maxWorkers) {
        this.ctx = ctx;
        for (int i = pairs.size() - 1; i >= 0; i--) {
            pending.push(pairs.get(i));
        }
        long largestRow = 0;
        for (SpillPair pair : pairs) {
            largestRow = Math.max(largestRow, HeavyHitterNestedLoop.largestRow(ctx, pair));
        }
        this.largestOwnBlockRow = largestRow;
        long free = ctx.memory.headroom();
        boolean shared = maxWorkers > 1;
        long least = Math.max(ctx.sizing.pairWorkerMinimum(ctx.config),
                Math.max(largestFitting(ctx, pairs, free, shared), nestedLoopLeast(ctx, pairs, shared)));
        int owners = pairs.isEmpty() ? 1 : (int) Math.max(1, Math.min(maxWorkers, free / least));
        long laneShare = laneShare(ctx, pairs);
        int helpers = pairs.isEmpty() ? 0
                : (int) Math.max(0, Math.min(maxWorkers - owners, (free - owners * least) / laneShare));
        int count = owners + helpers;
        long ownerShare = (free - helpers * laneShare) / owners;
        this.workers = new PairWorker[count];
        for (int w = 0; w < count; w++) {
            boolean helpsOnly = w < helpers;
            MemoryReservation share = count == 1 ? ctx.memory.newChild("pair-worker-0")
                    : ctx.memory.newChild((helpsOnly ? "pair-helper-" : "pair-worker-") + w,
                            helpsOnly ? laneShare : ownerShare);
            workers[w] = new PairWorker(this, ctx, totals, share, w > 0, helpsOnly);
        }
    }

    /**
     * The share of a worker that only helps other workers' probe passes: a lane's buffer for the largest block of
     * any pair's files (a reversed pair streams its build file; the nested loop's forwarded files hold a write
     * buffer's rows or one larger row) and a nested-loop lane's forwarder.
     */
    private static long laneShare(JoinContext ctx, List<SpillPair> pairs) {
        int largest = ctx.sizing.recordCapacity();
        for (SpillPair pair : pairs) {
            largest = Math.max(largest, Math.max(maxBlockPayload(pair.build()), maxBlockPayload(pair.probe())));
        }
        return SharedProbePass.laneBufferBytes(ctx, largest) + ProbeRowForwarder.memoryNeeded(ctx, largest);
    }

    /** The largest block of {@code file}; 0 for none. */
    private static int maxBlockPayload(SpillFile file) {
        return file == null ? 0 : file.maxBlockPayload();
    }

    /**
     * The most memory a pair that fits {@code free} needs to be joined in memory (roles reversed where that is less):
     * a worker's share must hold it, or splitting the budget would re-partition pairs one worker joins at once (pairs
     * that do not fit the whole budget are re-partitioned anyway, and their children are smaller).
     */
    private static long largestFitting(JoinContext ctx, List<SpillPair> pairs, long free, boolean shared) {
        long largest = 0;
        for (SpillPair pair : pairs) {
            long need = InMemoryPairJoin.memoryNeeded(ctx, pair, false, shared);
            if (ctx.config.roleReversal() && pair.build() != null && pair.probe() != null) {
                need = Math.min(need, InMemoryPairJoin.memoryNeeded(ctx, pair, true, shared));
            }
            if (need <= free) {
                largest = Math.max(largest, need);
            }
        }
        return largest;
    }

    /**
     * The most share any pair's nested loop needs ({@link HeavyHitterNestedLoop#memoryNeeded}): more than a pair
     * worker's minimum only for rows too large for a write buffer, whose nested loop a smaller share could not run
     * (then fewer workers take pairs, each with more of the budget).
     */
    private static long nestedLoopLeast(JoinContext ctx, List<SpillPair> pairs, boolean shared) {
        long least = 0;
        for (SpillPair pair : pairs) {
            least = Math.max(least, HeavyHitterNestedLoop.memoryNeeded(ctx, pair, shared));
        }
        return least;
    }

    /** The workers: each joins one pair at a time, on one thread at a time. */
    PairWorker worker(int index) {
        return workers[index];
    }

    int workerCount() {
        return workers.length;
    }

    /** What {@link #take} gives a worker: a pair to plan, a probe pass to help with, or no work (now or for good). */
    record Work(Kind kind, SpillPair pair, SharedProbePass pass) {
        enum Kind {
            /** Plan {@link #pair}. */
            PAIR,
            /** Join {@link #pass} with a lane. */
            HELP,
            /** Nothing to do now, but a running task may still offer a probe pass or push children. */
            IDLE,
            /** No pair is left and no task runs: the worker stops. */
            NONE
        }

        static final Work IDLE = new Work(Kind.IDLE, null, null);
        static final Work NONE = new Work(Kind.NONE, null, null);
    }

    /**
     * The next work: a pair (call {@link #planned} after planning it; none for a worker that {@code helpsOnly}),
     * else a probe pass that wants helpers (and has not {@code refused} this worker), else
     * {@link Work#NONE} when no pair is left and no pair is being planned or joined. Meanwhile (a pair being planned
     * may push children; a task may offer a pass), a worker that {@code mayWait} waits and one that may not (the
     * caller's thread, which must hand the helpers' result batches out) gets {@link Work#IDLE}.
     */
    synchronized Work take(boolean mayWait, boolean helpsOnly, Set<SharedProbePass> refused) {
        while (true) {
            SpillPair pair = helpsOnly ? null : pending.poll();
            if (pair != null) {
                planning++;
                return new Work(Work.Kind.PAIR, pair, null);
            }
            SharedProbePass pass = passWantingHelpers(refused);
            if (pass != null) {
                return new Work(Work.Kind.HELP, null, pass);
            }
            if (planning == 0 && running == 0 && pending.isEmpty()) {
                return Work.NONE;
            }
            ctx.checkCancelled();
            if (!mayWait) {
                return Work.IDLE;
            }
            try {
                wait(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // checkCancelled turns it into a CancellationException
            }
        }
    }

    /**
     * The first offered pass that still wants helpers and has not {@code refused} the worker asking (its lane did
     * not fit the worker's memory); passes that no longer want helpers are dropped.
     */
    private SharedProbePass passWantingHelpers(Set<SharedProbePass> refused) {
        passes.removeIf(pass -> !pass.wantsHelpers());
        for (SharedProbePass pass : passes) {
            if (!refused.contains(pass)) {
                return pass;
            }
        }
        return null;
    }

    /**
     * A pair taken was planned: its {@code children} (none unless it was re-partitioned) join the stack; with
     * {@code joining}, a task now joins it (call {@link #joined} when it is closed).
     */
    synchronized void planned(List<SpillPair> children, boolean joining) {
        for (int i = children.size() - 1; i >= 0; i--) {
            pending.push(children.get(i));
        }
        planning--;
        if (joining) {
            running++;
        }
        notifyAll();
    }

    /** A task that joined a pair is closed. */
    synchronized void joined() {
        running--;
        notifyAll();
    }

    /** The largest spilled row too large for a write buffer, in memory; 0 for none (a refused row names it). */
    long largestOwnBlockRow() {
        return largestOwnBlockRow;
    }

    /** Whether tasks' probe passes are shared with idle workers (more than one worker runs). */
    boolean sharesPasses() {
        return workers.length > 1;
    }

    /** Offers a running task's probe pass to workers that find no pair to take. */
    synchronized void offer(SharedProbePass pass) {
        if (pass.wantsHelpers()) {
            passes.add(pass);
            notifyAll();
        }
    }

    /** What this phase did so far: the workers' counters summed (read after the workers stopped). */
    PairCounters counters() {
        PairCounters sum = new PairCounters();
        for (PairWorker w : workers) {
            sum.add(w.counters());
        }
        return sum;
    }

    @Override
    public void close() throws IOException {
        try {
            for (PairWorker w : workers) {
                w.close();
            }
        } finally {
            synchronized (this) {
                pending.clear();
                passes.clear();
            }
        }
    }
}
