package dev.spilljoin.operator;

import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.JoinStrategy.FinishAction;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.spill.MemoryReservation;

import java.io.IOException;
import java.util.List;

/**
 * One worker of the spilled-pairs phase ({@link SpilledPairs}, whose comment gives the plan for a pair): takes a pair
 * at a time from the phase's stack and joins it with a task of its own ({@link InMemoryPairJoin}, role reversed or
 * not, or {@link HeavyHitterNestedLoop}), or re-partitions it ({@link Repartitioner}) and pushes the children back.
 *
 * <p>Owns its share of the budget ({@code memory}: every task's child reservation hangs below it, and it plans with
 * that share's headroom), its counters, its row decoders and its current task; nothing here is shared with another
 * worker. {@link #fill} runs on one thread at a time.
 */
final class PairWorker implements OutputTask {
    private final SpilledPairs phase;
    private final JoinContext ctx;
    private final InputTotals totals;
    private final MemoryReservation memory;
    private final PairCounters counters = new PairCounters();
    private final SpilledRowDecoder decoder;
    private final SpilledRowDecoder reversedDecoder;
    private OutputTask current;

    PairWorker(SpilledPairs phase, JoinContext ctx, InputTotals totals, MemoryReservation memory) {
        this.phase = phase;
        this.ctx = ctx;
        this.totals = totals;
        this.memory = memory;
        this.decoder = new SpilledRowDecoder(ctx.probeFormat, ctx.probeSchema, ctx.config.outputBatchRows());
        this.reversedDecoder = new SpilledRowDecoder(ctx.buildFormat, ctx.spec.schema(ctx.strategy.buildSide()),
                ctx.config.outputBatchRows());
    }

    /** Joins pairs into {@code out}: true when no pair is left, false when {@code out} is full (call again). */
    @Override
    public boolean fill(OutputWriter out) throws IOException {
        while (true) {
            if (current == null) {
                SpillPair pair = phase.take();
                if (pair == null) {
                    return true;
                }
                List<SpillPair> children = List.of();
                try {
                    ctx.checkCancelled();
                    if (producesNothing(pair)) {
                        discard(pair);
                    } else {
                        current = task(pair);
                        if (current == null) {
                            children = Repartitioner.split(ctx, memory, counters, pair,
                                    ctx.sizing.repartitionFanoutLog2(ctx.config, pair, memory.headroom()));
                        }
                    }
                } finally {
                    phase.planned(children);
                }
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
                && InMemoryPairJoin.memoryNeeded(ctx, pair, true) <= limit) {
            counters.roleReversals++;
            return counted(new InMemoryPairJoin(ctx, memory, pair, ctx.orientation(totals, true), reversedDecoder));
        }
        if (pair.buildRows() == 0 || InMemoryPairJoin.memoryNeeded(ctx, pair, false) <= limit) {
            return counted(new InMemoryPairJoin(ctx, memory, pair, ctx.orientation(totals, false), decoder));
        }
        if (!pair.stuck() && pair.level() < ctx.config.maxRecursionDepth()) {
            return null;
        }
        return new HeavyHitterNestedLoop(ctx, memory, counters, pair, ctx.orientation(totals, false), decoder);
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
                current.close();
                current = null;
            }
        } finally {
            memory.close();
        }
    }
}
