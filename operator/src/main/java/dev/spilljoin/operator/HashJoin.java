package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;
import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryReservation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The hybrid (Grace) hash join of two inputs of any size under a memory budget, for every {@link JoinType}; the
 * in-memory join is simply the case where nothing spills.
 *
 * <p>Phases ({@link Phase}):
 * <pre>
 * CREATED ─ choose build side ─▶ BUILD ─▶ PROBE ─▶ FINISH ─▶ JOIN_SPILLED ─▶ DONE      (CLOSED from any phase)
 * </pre>
 * BUILD ({@link PartitionedBuild}) partitions the build side by h1 into 2^k partitions (k from the estimator's
 * partition planner, fed the size hints or cached statistics: {@link SpillSizing}); partitions stay resident until
 * a reservation is refused, then the largest spills (partition 0 last). PROBE ({@link PartitionedProbe}) probes
 * rows of resident partitions at once and spills the others' beside their build rows. FINISH emits the resident build rows by their MATCHED flags
 * ({@link BuildRowScan}) and frees them. JOIN_SPILLED ({@link SpilledPairs}) joins each spilled pair with its own
 * table (on the smaller of its two files: role reversal), re-partitioning with the next level's h1 what does not
 * fit and sending what will not split to the nested-loop path ({@link HeavyHitterNestedLoop}). The build side is the smaller input by the sources' size hints (bytes if both give them, else
 * rows; the right side when unknown or equal), unless {@link JoinConfig#buildSide()} forces it; the join type is
 * mapped to that orientation by {@link JoinStrategy}.
 *
 * <p>Estimates (issue 5, {@link JoinSketches}): when the budget holds them beside the minimum, key sketches are
 * reserved first and fed the hashes each pass computes anyway: every build batch, every 8th probe batch. While
 * partitioning, keys the sketch finds heavy and the partition planner expects to overflow their partition go to
 * their own pair (see {@link PartitionedBuild}), which never re-partitions. With a {@link StatisticsLookup} in the
 * spec, each input's statistics are looked up first: a hit replaces the size hints (build side, the planner's
 * fanout) and the known heavy keys the planner routes go to that pair from the first row; after the probe pass the
 * build side's measured statistics are stored. The stats show the estimates beside the actuals, and the planner's
 * fanout per level and resident partitions beside what ran.
 *
 * <p>Three ways to drive it: {@link #run} pushes results to a sink; {@link #iterator} pulls result batches; and
 * engines that drive their operators call {@link #start} (which says the side to push first), {@link #push} and
 * {@link #endOfInput}.
 *
 * <p>Memory: every off-heap byte (row pages, tables, spill buffers and mapped windows, reader windows) is reserved
 * from the join's reservation before it exists; peak reserved ≤ budget, always. A budget below the join's minimum
 * ({@link SpillSizing}) fails at construction naming the minimum. Cancellation ({@link #cancel()} or a thread
 * interrupt) is checked at every batch and spill block boundary and ends in a
 * {@link java.util.concurrent.CancellationException}. On any failure, as on {@link #close()}, the join releases
 * every byte and deletes its spill directory; close is idempotent and valid in any phase.
 */
public final class HashJoin implements AutoCloseable {

    /** The join's phases, in order. */
    enum Phase {
        /** Nothing read yet; the build side is not chosen. */
        CREATED,
        /** Reading the build side into partitions, resident or spilled. */
        BUILD,
        /** The resident table is built; streaming the probe side (spilling rows of spilled partitions). */
        PROBE,
        /** The probe side ended; emitting resident build rows by their flags. */
        FINISH,
        /** Joining the spilled partition pairs. */
        JOIN_SPILLED,
        /** Every result row was handed out. */
        DONE,
        /** Closed: every byte released, every spill file deleted. */
        CLOSED
    }

    private final JoinSpec spec;
    private final MemoryReservation memory;
    private final JoinStats stats = new JoinStats();
    private Phase phase = Phase.CREATED;
    /** Volatile: {@link #cancel()} and {@link #deleteSpillFilesBeforeExit()} read it from other threads. */
    private volatile JoinContext ctx;
    private PartitionedBuild build;
    private PartitionedProbe probe;
    private SpilledPairs spilled;
    private OutputWriter output;
    private int residentScanPartition;
    private BuildRowScan residentScan;
    private boolean probeInProgress;
    private boolean outputHandedOut;
    private BatchSink pushSink;
    private volatile boolean cancelRequested;
    private volatile boolean deleteSpillBeforeExitRequested;
    private long buildHintRows = -1;
    private long buildHintBytes = -1;
    private long estimatedDistinctKeys = EstimatesVsActuals.UNKNOWN;
    private String estimateSource = "none";

    private HashJoin(JoinSpec spec) {
        this.spec = spec;
        this.memory = spec.reservation() != null
                ? spec.reservation().newChild("hash-join")
                : MemoryReservation.root("hash-join", spec.budgetBytes());
        stats.joinType = spec.joinType().name();
        stats.budgetBytes = memory.limit();
        long minimum = SpillSizing.absoluteMinimum(spec.config());
        if (memory.limit() < minimum) {
            memory.close();
            throw new IllegalArgumentException("hash join: the memory budget of " + ByteSize.format(memory.limit())
                    + " (" + memory.limit() + " bytes) is below this join's minimum of " + ByteSize.format(minimum)
                    + " (" + minimum + " bytes: spill writers for its partitions, a row page and a table); give it at"
                    + " least " + ByteSize.format(minimum));
        }
    }

    public static HashJoin create(JoinSpec spec) {
        return new HashJoin(spec);
    }

    /** The smallest budget a join with {@code config} accepts (automatic sizing at its smallest). */
    public static long minimumBudget(JoinConfig config) {
        return SpillSizing.absoluteMinimum(config);
    }

    public Schema outputSchema() {
        return spec.outputSchema();
    }

    public JoinStats stats() {
        stats.peakReservedBytes = memory.peakReserved();
        return stats;
    }

    /** The reservation the join draws from (for callers that watch memory). */
    public MemoryReservation memory() {
        return memory;
    }

    /**
     * Asks the join to stop (any thread): the running call throws a {@link java.util.concurrent.CancellationException}
     * at its next batch or block boundary, after releasing the join's memory and files.
     */
    public void cancel() {
        cancelRequested = true;
        JoinContext c = ctx;
        if (c != null) {
            c.cancel();
        }
    }

    /**
     * For a process about to exit on a signal (any thread): cancels the join and deletes its spill files at once,
     * without waiting for the running call to stop; files still mapped or open are unlinked, their disk space goes
     * when the process exits. The running call then fails; the process must exit.
     */
    public void deleteSpillFilesBeforeExit() {
        cancel();
        deleteSpillBeforeExitRequested = true;
        JoinContext c = ctx;
        if (c != null) {
            c.deleteSpillBeforeExit();
        }
    }

    // ------------------------------------------------------------------ pull and push over sources

    /** Joins {@code left} and {@code right}, pushing every result batch to {@code sink}. */
    public void run(BatchSource left, BatchSource right, BatchSink sink) {
        Iterator<Batch> results = iterator(left, right);
        while (results.hasNext()) {
            sink.accept(results.next());
        }
    }

    /**
     * Result batches, pulled: reads the build side at the first {@code hasNext()}, then the probe side batch by batch
     * as results are pulled, then the spilled pairs. A returned batch is valid until the next call.
     */
    public Iterator<Batch> iterator(BatchSource left, BatchSource right) {
        Side build = guarded(() -> chooseBuildSide(left.sizeHintBytes(), left.sizeHintRows(), right.sizeHintBytes(),
                right.sizeHintRows()));
        BatchSource buildSource = build == Side.LEFT ? left : right;
        BatchSource probeSource = build == Side.LEFT ? right : left;
        return new Iterator<>() {
            private Batch next;
            private boolean fetched;

            @Override
            public boolean hasNext() {
                if (!fetched) {
                    next = guarded(() -> nextOutput(buildSource, probeSource));
                    fetched = true;
                }
                return next != null;
            }

            @Override
            public Batch next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("the join has no more result batches");
                }
                fetched = false;
                return next;
            }
        };
    }

    private Batch nextOutput(BatchSource buildSource, BatchSource probeSource) throws IOException {
        if (outputHandedOut) {
            output.clear();
            outputHandedOut = false;
        }
        while (true) {
            switch (phase) {
                case BUILD -> {
                    long t = System.nanoTime();
                    for (Batch b = buildSource.next(); b != null; b = buildSource.next()) {
                        build.add(b);
                    }
                    stats.buildNanos += System.nanoTime() - t;
                    finishBuild();
                }
                case PROBE -> {
                    long t = System.nanoTime();
                    try {
                        if (probeInProgress) {
                            HashProbe p = probe.probe();
                            boolean done = p.fill(output);
                            output.materialize(p.batch());
                            probeInProgress = !done;
                            if (output.isFull()) {
                                return handOut();
                            }
                        } else {
                            Batch b = probeSource.next();
                            if (b == null) {
                                finishProbe();
                            } else {
                                probe.start(b);
                                probeInProgress = true;
                            }
                        }
                    } finally {
                        stats.probeNanos += System.nanoTime() - t;
                    }
                }
                case FINISH, JOIN_SPILLED -> {
                    boolean done = fillAfterProbe();
                    if (output.isFull()) {
                        return handOut();
                    }
                    if (done) {
                        phase = Phase.DONE;
                    }
                }
                case DONE -> {
                    return output.rowCount() > 0 ? handOut() : null;
                }
                case CREATED -> throw new IllegalStateException("the join has not chosen its build side");
                case CLOSED -> throw new IllegalStateException("the join is closed");
            }
        }
    }

    /** FINISH then JOIN_SPILLED: true when both are done, false when the output is full. */
    private boolean fillAfterProbe() throws IOException {
        if (phase == Phase.FINISH) {
            long t = System.nanoTime();
            try {
                while (residentScanPartition < stats.fanout) {
                    if (build.isSpilled(residentScanPartition)) {
                        residentScanPartition++;
                        continue;
                    }
                    if (residentScan == null) {
                        residentScan = new BuildRowScan(build.residentArena(residentScanPartition),
                                ctx.strategy.finish(), ctx.probeRowsTotal == 0, ctx.probeNullKeyRows > 0);
                    }
                    boolean done = residentScan.fill(output);
                    output.materialize(null);
                    if (!done) {
                        return false;
                    }
                    residentScan = null;
                    residentScanPartition++;
                }
                build.releaseResident();
                spilled = new SpilledPairs(ctx, spilledPairs());
                phase = Phase.JOIN_SPILLED;
            } finally {
                stats.probeNanos += System.nanoTime() - t;
            }
        }
        long t = System.nanoTime();
        try {
            return spilled.fill(output);
        } finally {
            stats.spilledPairsNanos += System.nanoTime() - t;
        }
    }

    private List<SpillPair> spilledPairs() {
        List<SpillPair> pairs = new ArrayList<>();
        for (int p = 0; p < stats.fanout; p++) {
            if (build.isSpilled(p)) {
                pairs.add(new SpillPair(build.file(p), probe.file(p), 0, p, false, false));
            }
        }
        int heavy = build.heavyPartition();
        if (build.file(heavy) != null || probe.file(heavy) != null) {
            pairs.add(new SpillPair(build.file(heavy), probe.file(heavy), 0, heavy, true, true));
        }
        return pairs;
    }

    private Batch handOut() {
        outputHandedOut = true;
        stats.outputRows += output.rowCount();
        stats.outputBatches++;
        return output.batch();
    }

    // ------------------------------------------------------------------ push form for engines

    /**
     * Starts a join that an engine drives: chooses the build side from the size hints (bytes, -1 = unknown) and
     * returns it; push that side first. Results go to {@code sink}.
     */
    public Side start(long leftSizeHintBytes, long rightSizeHintBytes, BatchSink sink) {
        this.pushSink = sink;
        return guarded(() -> chooseBuildSide(leftSizeHintBytes, -1, rightSizeHintBytes, -1));
    }

    /** Pushes one batch of {@code side}; the build side must be complete ({@link #endOfInput}) before the other. */
    public void push(Side side, Batch batch) {
        requirePushMode();
        if (side == ctx.strategy.buildSide()) {
            requirePhase(Phase.BUILD, "push a build-side (" + side + ") batch");
            guarded(() -> {
                long t = System.nanoTime();
                build.add(batch);
                stats.buildNanos += System.nanoTime() - t;
                return null;
            });
            return;
        }
        requirePhase(Phase.PROBE, "push a probe-side (" + side + ") batch; end the build side ("
                + ctx.strategy.buildSide() + ") first");
        guarded(() -> {
            long t = System.nanoTime();
            probe.start(batch);
            HashProbe p = probe.probe();
            while (!p.fill(output)) {
                output.materialize(batch);
                emitToSink();
            }
            output.materialize(batch);
            if (output.isFull()) {
                emitToSink();
            }
            stats.probeNanos += System.nanoTime() - t;
            return null;
        });
    }

    /** Ends the input of {@code side}: the build side builds the table; the probe side finishes the join. */
    public void endOfInput(Side side) {
        requirePushMode();
        if (side == ctx.strategy.buildSide()) {
            requirePhase(Phase.BUILD, "end the build side (" + side + ")");
            guarded(() -> {
                finishBuild();
                return null;
            });
            return;
        }
        requirePhase(Phase.PROBE, "end the probe side (" + side + ")");
        guarded(() -> {
            finishProbe();
            while (!fillAfterProbe()) {
                emitToSink();
            }
            if (output.rowCount() > 0) {
                emitToSink();
            }
            phase = Phase.DONE;
            return null;
        });
    }

    private void emitToSink() {
        stats.outputRows += output.rowCount();
        stats.outputBatches++;
        pushSink.accept(output.batch());
        output.clear();
    }

    private void requirePushMode() {
        if (pushSink == null) {
            throw new IllegalStateException("call start(...) before pushing batches");
        }
    }

    private void requirePhase(Phase expected, String action) {
        if (phase != expected) {
            throw new IllegalStateException("cannot " + action + " in phase " + phase + " (expected " + expected + ")");
        }
    }

    /** A step of the join that may fail. */
    private interface Step<T> {
        T run() throws IOException;
    }

    /** Runs a step; on any failure the join closes itself (memory released, spill files deleted) and rethrows. */
    private <T> T guarded(Step<T> step) {
        try {
            return step.run();
        } catch (IOException e) {
            closeAfterFailure(e);
            throw new UncheckedIOException("hash join: spilling failed: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e);
            throw e;
        }
    }

    private void closeAfterFailure(Throwable failure) {
        try {
            close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    // ------------------------------------------------------------------ phases

    private Side chooseBuildSide(long leftBytes, long leftRows, long rightBytes, long rightRows) {
        if (phase != Phase.CREATED) {
            throw new IllegalStateException("a HashJoin runs once; it is in phase " + phase);
        }
        InputStatistics leftKnown = known(Side.LEFT);
        InputStatistics rightKnown = known(Side.RIGHT);
        if (leftKnown != null) {
            leftRows = leftKnown.rows();
            leftBytes = leftKnown.bytes();
        }
        if (rightKnown != null) {
            rightRows = rightKnown.rows();
            rightBytes = rightKnown.bytes();
        }
        Side build;
        if (spec.config().buildSide() != null) {
            build = spec.config().buildSide();
        } else if (leftBytes >= 0 && rightBytes >= 0) {
            build = leftBytes < rightBytes ? Side.LEFT : Side.RIGHT;
        } else if (leftRows >= 0 && rightRows >= 0) {
            build = leftRows < rightRows ? Side.LEFT : Side.RIGHT;
        } else {
            build = Side.RIGHT;
        }
        JoinStrategy strategy = JoinStrategy.of(spec.joinType(), build);
        stats.buildSide = build;
        buildHintRows = Math.max(-1, build == Side.LEFT ? leftRows : rightRows);
        buildHintBytes = Math.max(-1, build == Side.LEFT ? leftBytes : rightBytes);
        InputStatistics chosenKnown = build == Side.LEFT ? leftKnown : rightKnown;
        if (chosenKnown != null) {
            estimatedDistinctKeys = chosenKnown.distinctKeys();
        }
        long minimum = SpillSizing.absoluteMinimum(spec.config());
        JoinSketches sketches = JoinSketches.reserve(memory, minimum, stats);
        // beside the minimum and the sketches, so that the partitioning keeps at least the minimum
        BuildKeyFilter keyFilter = BuildKeyFilter.reserve(spec, build, memory, minimum + stats.sketchBytes,
                buildHintRows, buildHintBytes, stats);
        int minRowBytes = JoinContext.layoutOf(spec, build).minRowLength();
        // the sketches and the key filter are held through the probe pass: the partitioning is planned without them
        SpillSizing sizing = SpillSizing.choose(spec.config(),
                memory.limit() - stats.sketchBytes - stats.keyFilterBytes, memory.limit(),
                SpillSizing.expectedBuild(chosenKnown, buildHintRows, buildHintBytes, minRowBytes), minRowBytes);
        stats.spillBufferBytes = sizing.bufferBytes();
        stats.spillWindowBytes = sizing.windowBytes();
        stats.fanout = sizing.fanout();
        stats.plannedFanoutLog2PerLevel = sizing.plan().fanoutLog2PerLevel();
        stats.plannedResidentPartitions = sizing.plan().residentPartitions();
        ctx = new JoinContext(spec, strategy, sizing, memory, stats);
        ctx.sketches = sketches;
        ctx.keyFilter = keyFilter;
        if (cancelRequested) {
            ctx.cancel();
        }
        if (deleteSpillBeforeExitRequested) {
            ctx.deleteSpillBeforeExit();
        }
        output = new OutputWriter(spec.outputSchema(), spec.projection(), build, ctx.buildLayout,
                spec.config().outputBatchRows());
        this.build = new PartitionedBuild(ctx);
        estimateSource = chosenKnown != null ? "cache" : buildHintRows >= 0 || buildHintBytes >= 0 ? "hint" : "none";
        this.build.routeKnownHeavyKeys(sizing.plan().nestedLoopKeys());
        phase = Phase.BUILD;
        return strategy.buildSide();
    }

    private void finishBuild() throws IOException {
        long t = System.nanoTime();
        build.finish(PartitionedProbe.stagingBytes(ctx.sizing));
        ctx.buildRowsTotal = build.rowsIn();
        ctx.buildNullKeyRows = build.nullKeyRows();
        if (ctx.strategy.buildSide() == Side.LEFT) {
            stats.leftRows = build.rowsIn();
        } else {
            stats.rightRows = build.rowsIn();
        }
        probe = new PartitionedProbe(ctx, build);
        stats.buildNanos += System.nanoTime() - t;
        phase = Phase.PROBE;
    }

    private void finishProbe() throws IOException {
        long t = System.nanoTime();
        probe.finish();
        HashProbe p = probe.probe();
        ctx.probeRowsTotal = p.probeRows();
        ctx.probeNullKeyRows = p.probeNullKeyRows();
        if (ctx.strategy.probeSide() == Side.LEFT) {
            stats.leftRows = p.probeRows();
        } else {
            stats.rightRows = p.probeRows();
        }
        residentScanPartition = 0;
        recordEstimates();
        stats.probeNanos += System.nanoTime() - t;
        phase = Phase.FINISH;
    }

    /** The cached statistics of {@code side}'s input (a hit or a miss in the stats), or null. */
    private InputStatistics known(Side side) {
        StatisticsLookup lookup = spec.statistics();
        if (lookup == null) {
            return null;
        }
        InputStatistics s = lookup.cache().get(lookup.identity(side)).orElse(null);
        if (s == null) {
            stats.statisticsCacheMisses++;
        } else {
            stats.statisticsCacheHits++;
        }
        return s;
    }

    /** Copies the sketches' figures into the stats and returns their memory (they are not needed after the probe). */
    private void recordEstimates() {
        if (ctx.sketches == null) {
            return;
        }
        KeySketches b = ctx.sketches.build;
        KeySketches p = ctx.sketches.probe;
        stats.estimates = new EstimatesVsActuals(estimateSource, buildHintRows, b.rows(), buildHintBytes, b.bytes(),
                estimatedDistinctKeys, b.distinctEstimate());
        StatisticsLookup lookup = spec.statistics();
        if (lookup != null) {
            lookup.cache().put(lookup.identity(ctx.strategy.buildSide()), b.statistics(build.heavyCandidateRows()));
        }
        stats.probeSampleRows = p.sketchedRows();
        stats.probeSampleDistinctKeys = p.distinctEstimate();
        ctx.sketches.close();
        ctx.sketches = null;
    }

    /** Releases every off-heap byte the join holds and deletes its spill files; idempotent, valid in any phase. */
    @Override
    public void close() {
        if (phase == Phase.CLOSED) {
            return;
        }
        stats.peakReservedBytes = memory.peakReserved();
        phase = Phase.CLOSED;
        try {
            if (spilled != null) {
                try {
                    spilled.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("hash join: closing its spilled pairs failed: " + e.getMessage(), e);
                }
            }
        } finally {
            try {
                if (probe != null) {
                    probe.close();
                }
                if (build != null) {
                    build.close();
                }
            } finally {
                try {
                    if (ctx != null) {
                        if (ctx.sketches != null) {
                            ctx.sketches.close();
                        }
                        ctx.closeKeyFilter();
                        ctx.closeSpace();
                    }
                } finally {
                    memory.close();
                }
            }
        }
    }
}
