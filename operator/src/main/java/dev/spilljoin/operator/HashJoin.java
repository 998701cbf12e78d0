package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An in-memory hash join of two inputs under a memory budget, for every {@link JoinType}.
 *
 * <p>Phases ({@link Phase}): BUILD reads the build side completely, serializing its rows with their key hashes into
 * off-heap pages ({@link RowArena}, {@link RowWriter}), then reserves and fills the table ({@link JoinHashTable});
 * PROBE streams the other side through {@link HashProbe}; FINISH emits build rows by their MATCHED flags
 * ({@link BuildRowScan}); DONE. The build side is the smaller input by the sources' size hints (bytes if both give
 * them, else rows; the right side when unknown or equal), unless {@link JoinConfig#buildSide()} forces it; the join
 * type is mapped to that orientation by {@link JoinStrategy}.
 *
 * <p>Three ways to drive it: {@link #run} pushes results to a sink; {@link #iterator} pulls result batches; and
 * engines that drive their operators call {@link #start} (which says the side to push first), {@link #push} and
 * {@link #endOfInput}.
 *
 * <p>Memory: every off-heap byte (row pages, table directory) is reserved from the join's reservation before it is
 * allocated; the Java heap holds only the batches in flight and per-batch arrays. This version does not spill: if
 * the build side does not fit, it fails with a {@link MemoryExhaustedException} naming the budget and the need,
 * and never exceeds the budget. {@link #close()} releases every byte, in any phase, after an exception too.
 */
public final class HashJoin implements AutoCloseable {

    /** The join's phases, in order. */
    enum Phase {
        /** Nothing read yet; the build side is not chosen. */
        CREATED,
        /** Reading the build side into row pages. */
        BUILD,
        /** The table is built; streaming the probe side. */
        PROBE,
        /** The probe side ended; emitting build rows by their flags. */
        FINISH,
        /** Every result row was handed out. */
        DONE,
        CLOSED
    }

    private final JoinSpec spec;
    private final MemoryReservation memory;
    private final JoinStats stats = new JoinStats();
    private Phase phase = Phase.CREATED;
    private JoinStrategy strategy;
    private RowLayout layout;
    private RowArena arena;
    private RowWriter writer;
    private KeyHasher buildHasher;
    private JoinHashTable table;
    private HashProbe probe;
    private BuildRowScan scan;
    private OutputWriter output;
    private long[] buildHashes = new long[0];
    private long[] buildNullKeys = new long[0];
    private long buildRowsIn;
    private long buildNullKeyRows;
    private boolean probeInProgress;
    private boolean outputHandedOut;
    private BatchSink pushSink;

    private HashJoin(JoinSpec spec) {
        this.spec = spec;
        this.memory = spec.reservation() != null
                ? spec.reservation().newChild("hash-join")
                : MemoryReservation.root("hash-join", spec.budgetBytes());
        stats.joinType = spec.joinType().name();
        stats.budgetBytes = memory.limit();
    }

    public static HashJoin create(JoinSpec spec) {
        return new HashJoin(spec);
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
     * as results are pulled. A returned batch is valid until the next call.
     */
    public Iterator<Batch> iterator(BatchSource left, BatchSource right) {
        Side build = chooseBuildSide(left.sizeHintBytes(), left.sizeHintRows(), right.sizeHintBytes(), right.sizeHintRows());
        BatchSource buildSource = build == Side.LEFT ? left : right;
        BatchSource probeSource = build == Side.LEFT ? right : left;
        return new Iterator<>() {
            private Batch next;
            private boolean fetched;

            @Override
            public boolean hasNext() {
                if (!fetched) {
                    next = nextOutput(buildSource, probeSource);
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

    private Batch nextOutput(BatchSource buildSource, BatchSource probeSource) {
        if (outputHandedOut) {
            output.clear();
            outputHandedOut = false;
        }
        while (true) {
            switch (phase) {
                case BUILD -> {
                    for (Batch b = buildSource.next(); b != null; b = buildSource.next()) {
                        consumeBuild(b);
                    }
                    finishBuild();
                }
                case PROBE -> {
                    if (probeInProgress) {
                        boolean done = probe.fill(output);
                        output.materialize(probe.batch());
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
                }
                case FINISH -> {
                    boolean done = scan.fill(output);
                    output.materialize(null);
                    if (done) {
                        phase = Phase.DONE;
                    }
                    if (output.isFull()) {
                        return handOut();
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
        return chooseBuildSide(leftSizeHintBytes, -1, rightSizeHintBytes, -1);
    }

    /** Pushes one batch of {@code side}; the build side must be complete ({@link #endOfInput}) before the other. */
    public void push(Side side, Batch batch) {
        requirePushMode();
        if (side == strategy.buildSide()) {
            requirePhase(Phase.BUILD, "push a build-side (" + side + ") batch");
            consumeBuild(batch);
            return;
        }
        requirePhase(Phase.PROBE, "push a probe-side (" + side + ") batch; end the build side (" + strategy.buildSide()
                + ") first");
        probe.start(batch);
        while (!probe.fill(output)) {
            output.materialize(batch);
            emitToSink();
        }
        output.materialize(batch);
        if (output.isFull()) {
            emitToSink();
        }
    }

    /** Ends the input of {@code side}: the build side builds the table; the probe side finishes the join. */
    public void endOfInput(Side side) {
        requirePushMode();
        if (side == strategy.buildSide()) {
            requirePhase(Phase.BUILD, "end the build side (" + side + ")");
            finishBuild();
            return;
        }
        requirePhase(Phase.PROBE, "end the probe side (" + side + ")");
        finishProbe();
        while (!scan.fill(output)) {
            output.materialize(null);
            emitToSink();
        }
        output.materialize(null);
        if (output.rowCount() > 0) {
            emitToSink();
        }
        phase = Phase.DONE;
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

    // ------------------------------------------------------------------ phases

    private Side chooseBuildSide(long leftBytes, long leftRows, long rightBytes, long rightRows) {
        if (phase != Phase.CREATED) {
            throw new IllegalStateException("a HashJoin runs once; it is in phase " + phase);
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
        strategy = JoinStrategy.of(spec.joinType(), build);
        stats.buildSide = build;
        Schema buildSchema = spec.schema(build);
        int[] buildKeys = spec.keys(build);
        int[] needed = spec.projection().stream().filter(r -> r.side() == build).mapToInt(ColumnRef::column).toArray();
        layout = new RowLayout(buildSchema, buildKeys, needed);
        arena = new RowArena(memory, spec.config().pageSize());
        writer = new RowWriter(layout);
        buildHasher = new KeyHasher(buildKeys);
        output = new OutputWriter(spec.outputSchema(), spec.projection(), build, layout, spec.config().outputBatchRows());
        phase = Phase.BUILD;
        return build;
    }

    private void consumeBuild(Batch batch) {
        int n = batch.rowCount();
        if (buildHashes.length < n) {
            buildHashes = new long[n];
            buildNullKeys = new long[(n + 63) >>> 6];
        }
        boolean anyNull = buildHasher.hash(batch, buildHashes, buildNullKeys);
        buildRowsIn += n;
        if (anyNull) {
            for (int w = 0, words = (n + 63) >>> 6; w < words; w++) {
                buildNullKeyRows += Long.bitCount(buildNullKeys[w]);
            }
        }
        int stop = writer.write(batch, 0, buildHashes, buildNullKeys, strategy.keepsNullKeyBuildRows(), arena);
        if (stop < n) {
            throw budgetExceeded("its rows need more than the " + ByteSize.format(arena.reservedBytes())
                    + " of row pages reserved so far (" + buildRowsIn + " rows read)");
        }
    }

    private void finishBuild() {
        table = JoinHashTable.tryCreate(memory, arena.rowCount());
        if (table == null) {
            throw budgetExceeded("its " + arena.rowCount() + " rows take " + ByteSize.format(arena.reservedBytes())
                    + " and the hash table's directory needs " + ByteSize.format(JoinHashTable.directoryBytes(arena.rowCount()))
                    + " more");
        }
        table.insertAll(arena);
        Side build = strategy.buildSide();
        long rows = buildRowsIn;
        if (build == Side.LEFT) {
            stats.leftRows = rows;
        } else {
            stats.rightRows = rows;
        }
        stats.buildRowsStored = arena.rowCount();
        stats.rowBytes = arena.reservedBytes();
        stats.tableBuckets = table.bucketCount();
        stats.tableBytes = table.directoryBytes();
        int[] probeKeys = spec.keys(build.other());
        boolean hashIsKey = probeKeys.length == 1 && comparesByHashAlone(spec.schema(build.other()).type(probeKeys[0]));
        probe = new HashProbe(table, strategy, new KeyHasher(probeKeys),
                hashIsKey ? null : new KeyEncoder(layout, probeKeys), layout, buildRowsIn == 0, buildNullKeyRows > 0);
        phase = Phase.PROBE;
    }

    private void finishProbe() {
        long rows = probe.probeRows();
        if (strategy.probeSide() == Side.LEFT) {
            stats.leftRows = rows;
        } else {
            stats.rightRows = rows;
        }
        scan = new BuildRowScan(arena, strategy.finish(), rows == 0, probe.probeNullKeyRows() > 0);
        phase = Phase.FINISH;
    }

    private MemoryExhaustedException budgetExceeded(String need) {
        return new MemoryExhaustedException("hash join: the build side (" + strategy.buildSide() + ") does not fit the "
                + "memory budget of " + ByteSize.format(memory.limit()) + " (" + memory.limit() + " bytes): " + need
                + ". This join does not spill yet; give it a larger budget.");
    }

    /** Releases every off-heap byte the join holds; idempotent, valid in any phase. */
    @Override
    public void close() {
        if (phase == Phase.CLOSED) {
            return;
        }
        stats.peakReservedBytes = memory.peakReserved();
        phase = Phase.CLOSED;
        try {
            if (table != null) {
                table.close();
            }
            if (arena != null) {
                arena.close();
            }
        } finally {
            memory.close();
        }
    }

    /** Whether a single key column of {@code type} compares by hash alone (its hash is a bijection of it). */
    static boolean comparesByHashAlone(ColumnType type) {
        return !type.isVariableWidth();
    }
}
