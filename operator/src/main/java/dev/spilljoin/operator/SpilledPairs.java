package dev.spilljoin.operator;

import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.JoinStrategy.FinishAction;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.operator.table.JoinStrategy;
import dev.spilljoin.operator.table.OutputWriter;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The JOIN_SPILLED phase: joins the spilled partition pairs one at a time, depth first (a stack, so the disk holds
 * at most one level's siblings per level at a time).
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
final class SpilledPairs implements OutputTask, JoinPhase {
    private final JoinContext ctx;
    private final InputTotals totals;
    /** This phase's own counts (its tasks write them), folded into the stats when it ends. */
    private final PairCounters counters = new PairCounters();
    private final Deque<SpillPair> pending = new ArrayDeque<>();
    private final SpilledRowDecoder decoder;
    private final SpilledRowDecoder reversedDecoder;
    private OutputTask current;

    /** The phase joining {@code pairs} (level 0's, in order), with the join-wide facts {@code totals}. */
    SpilledPairs(JoinContext ctx, List<SpillPair> pairs, InputTotals totals) {
        this.ctx = ctx;
        this.totals = totals;
        for (int i = pairs.size() - 1; i >= 0; i--) {
            pending.push(pairs.get(i));
        }
        this.decoder = new SpilledRowDecoder(ctx.probeFormat, ctx.probeSchema, ctx.config.outputBatchRows());
        this.reversedDecoder = new SpilledRowDecoder(ctx.buildFormat, ctx.spec.schema(ctx.strategy.buildSide()),
                ctx.config.outputBatchRows());
    }

    @Override
    public boolean fill(OutputWriter out) throws IOException {
        while (true) {
            if (current == null) {
                SpillPair pair = pending.poll();
                if (pair == null) {
                    return true;
                }
                ctx.checkCancelled();
                current = plan(pair);
                continue;
            }
            if (!current.fill(out)) {
                return false;
            }
            OutputTask done = current;
            current = null;
            done.close();
        }
    }

    /** Chooses how to join {@code pair}: null after dropping or re-partitioning it. */
    private OutputTask plan(SpillPair pair) throws IOException {
        if (producesNothing(pair)) {
            discard(pair);
            return null;
        }
        long limit = ctx.config.pairMemoryLimit() > 0
                ? Math.min(ctx.config.pairMemoryLimit(), ctx.memory.headroom()) : ctx.memory.headroom();
        boolean faulted = ctx.faults.dropsUnmatchedBuildRows(pair.level(), pair.index());
        if (ctx.config.roleReversal() && !faulted && pair.build() != null && pair.probe() != null && pair.probe().length() < pair.build().length()
                && InMemoryPairJoin.memoryNeeded(ctx, pair, true) <= limit) {
            counters.roleReversals++;
            return counted(new InMemoryPairJoin(ctx, pair, ctx.orientation(totals, true), reversedDecoder));
        }
        if (pair.buildRows() == 0 || InMemoryPairJoin.memoryNeeded(ctx, pair, false) <= limit) {
            return counted(new InMemoryPairJoin(ctx, pair, ctx.orientation(totals, false), decoder));
        }
        if (!pair.stuck() && pair.level() < ctx.config.maxRecursionDepth()) {
            List<SpillPair> children = Repartitioner.split(ctx, counters, pair,
                    ctx.sizing.repartitionFanoutLog2(ctx.config, pair, ctx.memory.headroom()));
            for (int i = children.size() - 1; i >= 0; i--) {
                pending.push(children.get(i));
            }
            return null;
        }
        return new HeavyHitterNestedLoop(ctx, counters, pair, ctx.orientation(totals, false), decoder);
    }

    /** Counts the table kind {@code join} built. */
    private InMemoryPairJoin counted(InMemoryPairJoin join) {
        if (join.usesDirectTable()) {
            counters.directTables++;
        } else {
            counters.hashTables++;
        }
        return join;
    }

    /** Whether the pair cannot produce output: no build rows for a probe action that needs them, or no probe rows. */
    private boolean producesNothing(SpillPair pair) {
        ProbeAction probe = ctx.strategy.probe();
        boolean probeNeedsBuild = probe == ProbeAction.PAIRS || probe == ProbeAction.SEMI || probe == ProbeAction.MARK;
        boolean noBuildOutput = ctx.strategy.finish() == FinishAction.NONE;
        if (pair.buildRows() == 0 && pair.probeRows() == 0) {
            return true;
        }
        if (pair.buildRows() == 0 && probeNeedsBuild) {
            return true;
        }
        return pair.probeRows() == 0 && noBuildOutput;
    }

    private static void discard(SpillPair pair) throws IOException {
        if (pair.build() != null && pair.build().isSealed()) {
            pair.build().delete();
        }
        if (pair.probe() != null && pair.probe().isSealed()) {
            pair.probe().delete();
        }
    }

    /** What this phase did so far. */
    PairCounters counters() {
        return counters;
    }

    @Override
    public void close() throws IOException {
        try {
            if (current != null) {
                current.close();
                current = null;
            }
        } finally {
            pending.clear();
        }
    }
}
