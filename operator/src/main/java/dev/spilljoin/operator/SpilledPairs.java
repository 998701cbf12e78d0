package dev.spilljoin.operator;

import dev.spilljoin.spill.MemoryReservation;


import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The JOIN_SPILLED phase: joins the spilled partition pairs, depth first (a stack, so the disk holds at most one
 * level's siblings per level at a time per worker), on one or more {@link PairWorker}s. Each worker takes a pair at
 * a time from the shared stack and joins it within its own share of the budget (a child reservation with a limit:
 * the memory free when the phase starts, split evenly, so workers cannot take each other's room and each plans as a
 * single-threaded join with that budget would); a worker that finds the stack empty waits while another may still
 * push children (a pair being planned), then stops. As many workers run as the free memory holds shares for, a share
 * being the larger of a pair worker's minimum ({@link SpillSizing#pairWorkerMinimum}) and the largest pair that one
 * worker with the whole budget would join at once (so that splitting the budget re-partitions nothing more), up to
 * the join's threads and the pairs there are.
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
    /** Pairs taken and still being planned: they may push children (guarded by this). */
    private int planning;

    /** The phase joining {@code pairs} (level 0's, in order) with up to {@code maxWorkers} workers. */
    SpilledPairs(JoinContext ctx, List<SpillPair> pairs, InputTotals totals, int maxWorkers) {
        this.ctx = ctx;
        for (int i = pairs.size() - 1; i >= 0; i--) {
            pending.push(pairs.get(i));
        }
        long free = ctx.memory.headroom();
        long least = Math.max(ctx.sizing.pairWorkerMinimum(ctx.config), largestFitting(ctx, pairs, free));
        int count = (int) Math.max(1, Math.min(Math.min(maxWorkers, Math.max(1, pairs.size())), free / least));
        this.workers = new PairWorker[count];
        for (int w = 0; w < count; w++) {
            MemoryReservation share = count == 1 ? ctx.memory.newChild("pair-worker-0")
                    : ctx.memory.newChild("pair-worker-" + w, free / count);
            workers[w] = new PairWorker(this, ctx, totals, share);
        }
    }

    /**
     * The most memory a pair that fits {@code free} needs to be joined in memory (roles reversed where that is less):
     * a worker's share must hold it, or splitting the budget would re-partition pairs one worker joins at once (pairs
     * that do not fit the whole budget are re-partitioned anyway, and their children are smaller).
     */
    private static long largestFitting(JoinContext ctx, List<SpillPair> pairs, long free) {
        long largest = 0;
        for (SpillPair pair : pairs) {
            long need = InMemoryPairJoin.memoryNeeded(ctx, pair, false);
            if (ctx.config.roleReversal() && pair.build() != null && pair.probe() != null) {
                need = Math.min(need, InMemoryPairJoin.memoryNeeded(ctx, pair, true));
            }
            if (need <= free) {
                largest = Math.max(largest, need);
            }
        }
        return largest;
    }

    /** The workers: each joins one pair at a time, on one thread at a time. */
    PairWorker worker(int index) {
        return workers[index];
    }

    int workerCount() {
        return workers.length;
    }

    /**
     * The next pair to join, or null when every pair is taken and no taken pair can push children any more; waits
     * while the stack is empty and another worker is planning a pair. Call {@link #planned} after planning it.
     */
    synchronized SpillPair take() {
        while (pending.isEmpty() && planning > 0) {
            ctx.checkCancelled();
            try {
                wait(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // checkCancelled turns it into a CancellationException
            }
        }
        SpillPair pair = pending.poll();
        if (pair != null) {
            planning++;
        }
        return pair;
    }

    /** A pair taken was planned: its {@code children} (none unless it was re-partitioned) join the stack. */
    synchronized void planned(List<SpillPair> children) {
        for (int i = children.size() - 1; i >= 0; i--) {
            pending.push(children.get(i));
        }
        planning--;
        notifyAll();
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
            }
        }
    }
}
