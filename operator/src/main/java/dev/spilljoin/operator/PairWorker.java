package dev.spilljoin.operator;

import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.JoinStrategy.FinishAction;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.spill.MemoryReservation;

import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * One worker of the spilled-pairs phase ({@link SpilledPairs}, whose comment gives the plan for a pair): takes a pair
 * at a time from the phase's stack and joins it with a task of its own ({@link InMemoryPairJoin}, role reversed or
 * not, or {@link HeavyHitterNestedLoop}), or re-partitions it ({@link Repartitioner}) and pushes the children back;
 * when no pair is left to take, it helps another worker's task probe its pair with a lane of its own
 * ({@link PairProbeLane}). A worker whose share holds only a lane ({@code helpsOnly}) never takes a pair.
 *
 * <p>Owns its share of the budget ({@code memory}: every task's and lane's child reservation hangs below it, and it
 * plans with that share's headroom), its counters, its row decoders and its current task or lane; nothing here is
 * shared with another worker (a lane reads the table of another's task). {@link #fill} runs on one thread at a time.
 */
final class PairWorker implements OutputTask {
    private final SpilledPairs phase;
    private final JoinContext ctx;
    private final InputTotals totals;
    private final MemoryReservation memory;
    private final PairCounters counters = new PairCounters();
    private final SpilledRowDecoder decoder;
    private final SpilledRowDecoder reversedDecoder;
    /** Whether this worker may wait for others (a helper thread's; the caller's thread hands results out instead). */
    private final boolean mayWait;
    /** Whether this worker only helps other workers' probe passes (its share holds a lane, not a pair). */
    private final boolean helpsOnly;
    private OutputTask current;
    /** Probe passes whose lane did not fit this worker's memory: not offered to it again. */
    private final Set<SharedProbePass> refused = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Whether {@link #current} joins a pair of this worker's (else it is a lane helping another worker's task). */
    private boolean joining;

    PairWorker(SpilledPairs phase, JoinContext ctx, InputTotals totals, MemoryReservation memory, boolean mayWait,
               boolean helpsOnly) {
        this.phase = phase;
        this.mayWait = mayWait;
        this.helpsOnly = helpsOnly;
        this.ctx = ctx;
        this.totals = totals;
        this.memory = memory;
        this.decoder = new SpilledRowDecoder(ctx.probeFormat, ctx.probeSchema, ctx.config.outputBatchRows());
        this.reversedDecoder = new SpilledRowDecoder(ctx.buildFormat, ctx.spec.schema(ctx.strategy.buildSide()),
                ctx.config.outputBatchRows());
    }

    /**
     * Joins pairs into {@code out}, and helps other workers' probe passes when no pair is left: true when no work is
     * left, false when {@code out} is full or (a worker that may not wait) when it has nothing to do now but others
     * may still offer work: call again.
     */
    @Override
    public boolean fill(OutputWriter out) throws IOException {
        while (true) {
            if (current == null) {
                SpilledPairs.Work work = phase.take(mayWait, helpsOnly, refused);
                switch (work.kind()) {
                    case NONE -> {
                        return true;
                    }
                    case IDLE -> {
                        return false;
                    }
                    case HELP -> {
                        current = work.pass().attach(memory);
                        joining = false;
                        if (current == null) {
                            refused.add(work.pass());
                        }
                    }
                    case PAIR -> plan(work.pair());
                }
                continue;
            }
            if (!current.fill(out)) {
                return false;
            }
            endTask();
        }
    }

    /** Plans {@code pair}: drops it, starts its task, or re-partitions it and pushes its children. */
    private void plan(SpillPair pair) throws IOException {
        List<SpillPair> children = List.of();
        try {
            ctx.checkCancelled();
            if (producesNothing(pair)) {
                discard(pair);
            } else {
                current = task(pair);
                joining = current != null;
                if (current == null) {
                    children = Repartitioner.split(ctx, memory, counters, pair,
                            ctx.sizing.repartitionFanoutLog2(ctx.config, pair, memory.headroom()));
                }
            }
        } finally {
            phase.planned(children, current != null);
        }
    }

    /** Closes the finished task; a pair's task tells the phase it joined its pair. */
    private void endTask() throws IOException {
        OutputTask done = current;
        boolean joined = joining;
        current = null;
        joining = false;
        try {
            done.close();
        } finally {
            if (joined) {
                phase.joined();
            }
        }
    }

    /**
     * The task joining {@code pair} (see {@link SpilledPairs}): in memory with the roles reversed when its probe file
     * is the smaller and its rows fit, else in memory as planned when its build rows fit, else the nested loop once it
     * no longer splits; null when it must be re-partitioned. Each fit is computed once.
     */
    private OutputTask task(SpillPair pair) throws IOException {
        long limit = limit();
        boolean faulted = ctx.faults.dropsUnmatchedBuildRows(pair.level(), pair.index());
        if (ctx.config.roleReversal() && !faulted && pair.build() != null && pair.probe() != null
                && pair.probe().length() < pair.build().length()
                && InMemoryPairJoin.memoryNeeded(ctx, pair, true, phase.sharesPasses()) <= limit) {
            counters.roleReversals++;
            return counted(new InMemoryPairJoin(ctx, memory, pair, ctx.orientation(totals, true), reversedDecoder,
                    phase, counters, mayWait));
        }
        if (pair.buildRows() == 0 || InMemoryPairJoin.memoryNeeded(ctx, pair, false, phase.sharesPasses()) <= limit) {
            return counted(new InMemoryPairJoin(ctx, memory, pair, ctx.orientation(totals, false), decoder, phase,
                    counters, mayWait));
        }
        if (!pair.stuck() && pair.level() < ctx.config.maxRecursionDepth()) {
            return null;
        }
        return new HeavyHitterNestedLoop(ctx, memory, counters, pair, ctx.orientation(totals, false), decoder, phase,
                mayWait);
    }

    /** The most a pair may load: this worker's headroom (or the test knob's limit, if lower). */
    private long limit() {
        return ctx.config.pairMemoryLimit() > 0
                ? Math.min(ctx.config.pairMemoryLimit(), memory.headroom()) : memory.headroom();
    }

    /** Counts the table kind {@code join} built. */
    private InMemoryPairJoin counted(InMemoryPairJoin join) {
        if (join.usesDirectTable()) {
            counters.directTables++;
            counters.directTablesStrided += join.usesStridedTable() ? 1 : 0;
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

    /** This worker's counts (read after it stopped). */
    PairCounters counters() {
        return counters;
    }

    /** Closes the current task and gives the worker's share back; idempotent. */
    @Override
    public void close() throws IOException {
        try {
            if (current != null) {
                endTask();
            }
        } finally {
            memory.close();
        }
    }
}
