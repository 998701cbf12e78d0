package dev.spilljoin.operator;

import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.table.BuildRowScan;
import dev.spilljoin.operator.table.DirectIndexProbe;
import dev.spilljoin.operator.table.DirectIndexScan;
import dev.spilljoin.operator.table.DirectIndexTable;
import dev.spilljoin.operator.table.KeyRange;
import dev.spilljoin.operator.table.FinishScan;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.JoinStrategy;
import dev.spilljoin.operator.table.JoinStrategy.FinishAction;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.Collections;

/**
 * Joins one spilled partition pair whose build rows fit in memory: loads the build file into an arena, expanding
 * its rows from the {@link SpillRowFormat} back into in-memory {@link RowLayout} rows (walkable rows again), copies
 * them into an independent {@link UnchainedTable} (slot = the top bits of the stored hash; h1 chose the partition
 * from other bits; the arena's pages are freed as its rows are copied), streams the probe file through a probe pass
 * ({@link SharedProbePass}: this task's own {@link PairProbeLane} and, with several workers, the lanes of workers
 * that found no pair to take, each decoding and probing a block at a time with a {@link HashProbe} of its own), then,
 * once every lane is done, runs the finish pass over the table ({@link BuildRowScan}). Resumable at every output
 * batch. When the loaded rows have one integer key without duplicates in a dense enough range, and a direct-index
 * table over them costs no more than the hash table, they go into that table instead ({@link DirectIndexTable}; the
 * arena is freed once it is filled) and are probed and finished by {@link DirectIndexProbe} and
 * {@link DirectIndexScan}.
 *
 * <p>Role reversal: when the pair's probe file is the smaller, the pair may be joined the other way round
 * ({@link JoinContext.PairOrientation}): the probe rows are loaded and the build rows streamed, with the join type's
 * strategy for that orientation, so a wrong size hint costs one pair, not the join. Both sides' files carry the
 * same kind of rows (a layout's format, the stored hash, flags), which is what makes this a matter of choosing the file.
 *
 * <p>Invariants: everything lives in one child reservation (a helper lane's buffer and decoder are its worker's),
 * closed when the pair is done, after every helper lane detached; the build file is deleted once loaded, the probe
 * file once streamed; build rows arrive with clear MATCHED flags (they spilled before any
 * probe), and the join-wide facts (either side empty, a NULL key seen) come from {@link JoinContext}.
 */
final class InMemoryPairJoin implements OutputTask {
    private final JoinContext ctx;
    private final JoinContext.PairOrientation orientation;
    private final SpilledPairs phase;
    private final PairCounters counters;
    /** Whether this task's worker may wait for helper lanes (not the caller's thread: {@link SpilledPairs#take}). */
    private final boolean mayWait;
    private final PairOutput output;
    private final MemoryReservation memory;
    private final RowArena arena;
    /** The loaded rows' hash table, or null when they went into {@link #direct}. */
    private final UnchainedTable table;
    /** The loaded rows' direct-index table, or null when they went into {@link #table}. */
    private final DirectIndexTable direct;
    /** The streamed rows' format (the probe side's, or the build side's when reversed). */
    private final SpillRowFormat streamedFormat;
    private final SharedProbePass pass;
    private final PairProbeLane lane;
    private final FinishScan scan;
    private boolean offered;
    private boolean probed;
    private boolean scanDone;

    /**
     * Joins {@code pair} in memory drawn from {@code parent} (its worker's share of the budget), counting in
     * {@code counters}; its probe pass is offered to {@code phase}'s idle workers when the phase shares passes.
     */
    InMemoryPairJoin(JoinContext ctx, MemoryReservation parent, SpillPair pair,
                     JoinContext.PairOrientation orientation, SpilledRowDecoder decoder, SpilledPairs phase,
                     PairCounters counters, boolean mayWait) throws IOException {
        this.ctx = ctx;
        this.orientation = orientation;
        this.phase = phase;
        this.counters = counters;
        this.mayWait = mayWait;
        this.output = new PairOutput(ctx, orientation);
        SpillFile loaded = orientation.reversed() ? pair.probe() : pair.build();
        SpillFile streamed = orientation.reversed() ? pair.build() : pair.probe();
        SpillRowFormat format = orientation.reversed() ? ctx.probeFormat : ctx.buildFormat;
        this.streamedFormat = orientation.reversed() ? ctx.buildFormat : ctx.probeFormat;
        long loadedRows = loaded == null ? 0 : loaded.rowCount();
        this.memory = parent.newChild("pair L" + pair.level() + " p" + pair.index());
        try {
            this.arena = new RowArena(memory, ctx.sizing.pairPageSize());
            if (loaded != null) {
                try (PartitionReader reader = loaded.openReader(memory, ctx.sizing.readWindowBytes())) {
                    while (reader.nextBlock()) {
                        if (!format.expandBlock(arena, reader.blockAddress(), reader.blockLength())) {
                            throw new MemoryExhaustedException("hash join: spilled partition " + pair.index()
                                    + " at level " + pair.level() + " (" + loadedRows + " rows, "
                                    + ByteSize.format(loaded.length()) + ") did not fit the "
                                    + ByteSize.format(memory.headroom()) + " left of the budget");
                        }
                    }
                }
            }
            RowLayout layout = orientation.buildLayout();
            JoinStrategy strategy = orientation.strategy();
            long tableBytes = UnchainedTable.bytesFor(layout, loadedRows, arena.usedBytes());
            this.direct = loadedRows > 0 && ctx.spec.condition() == null && DirectIndexTable.supports(layout)
                    ? DirectIndexTable.tryBuild(memory, layout, KeyRange.scan(layout, arena),
                            strategy.marksBuildRows(), new RowArena[] {arena}, tableBytes)
                    : null;
            if (direct != null) {
                arena.clear();
                this.table = null;
            } else {
                this.table = UnchainedTable.tryBuild(memory, layout, strategy.marksBuildRows(),
                        strategy.keepsNullKeyBuildRows(), arena);
                if (table == null) {
                    throw new MemoryExhaustedException("hash join: the table of spilled partition " + pair.index()
                            + " needs " + ByteSize.format(tableBytes) + " but only "
                            + ByteSize.format(memory.headroom()) + " of the budget is left");
                }
            }
            this.pass = new SharedProbePass(ctx, memory, Collections.singletonList(streamed),
                    phase.sharesPasses(), this::helperLane);
            this.lane = new PairProbeLane(ctx, pass, memory, decoder, newProbe(), output, PairProbeLane.Tail.ALL,
                    null, false);
            boolean dropped = ctx.faults.dropsUnmatchedBuildRows(pair.level(), pair.index());
            FinishAction finish = strategy.finish();
            this.scan = dropped ? null : direct != null
                    ? new DirectIndexScan(direct, finish, orientation.probeEmpty(), orientation.probeHasNullKey())
                    : new BuildRowScan(table, finish, orientation.probeEmpty(), orientation.probeHasNullKey());
        } catch (IOException | RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    /** A probe of this pair's table (each lane has its own; the table is only read). */
    private TableProbe newProbe() {
        if (direct != null) {
            return new DirectIndexProbe(direct, orientation.strategy(), orientation.probeKeys()[0],
                    orientation.buildEmpty(), orientation.buildHasNullKey());
        }
        return new HashProbe(table, orientation.strategy(), new KeyHasher(orientation.probeKeys()),
                orientation.encoder(ctx.hashIsKey), orientation.buildEmpty(), orientation.buildHasNullKey(),
                ctx.candidatePairs(orientation.buildSide(), orientation.buildLayout()));
    }

    /** The lane of another worker joining the probe pass, in its memory; null when its buffer does not fit there. */
    private PairProbeLane helperLane(SharedProbePass pass, MemoryReservation workerMemory) {
        if (workerMemory.headroom() < pass.laneBufferBytes()) {
            return null;
        }
        SpilledRowDecoder decoder = new SpilledRowDecoder(streamedFormat, orientation.probeSchema(),
                ctx.config.outputBatchRows());
        return new PairProbeLane(ctx, pass, workerMemory, decoder, newProbe(), new PairOutput(ctx, orientation),
                PairProbeLane.Tail.ALL, null, true);
    }

    /** Whether the loaded rows went into a direct-index table (else a hash table). */
    boolean usesDirectTable() {
        return direct != null;
    }

    /** Whether the pair's direct-index table is indexed by a key stride above 1. */
    boolean usesStridedTable() {
        return direct != null && direct.keyStride() > 1;
    }

    /**
     * Memory the pair needs when the rows of {@code reversed ? probe : build} are loaded: their pages (bounded: the
     * rows expanded to in-memory rows), their table (built while the pages are still held), the larger of the two
     * readers and, when the probe pass is {@code shared}, a lane's buffer for the streamed file's blocks.
     */
    static long memoryNeeded(JoinContext ctx, SpillPair pair, boolean reversed, boolean shared) {
        SpillFile loaded = reversed ? pair.probe() : pair.build();
        SpillFile streamed = reversed ? pair.build() : pair.probe();
        SpillRowFormat format = reversed ? ctx.probeFormat : ctx.buildFormat;
        int window = ctx.sizing.readWindowBytes();
        long rows = loaded == null ? 0 : loaded.rowCount();
        long expanded = loaded == null ? 0 : format.expandedBytesBound(loaded.length(), rows);
        long pages = loaded == null ? 0 : ctx.sizing.pairPagesBound(expanded, rows,
                format.expandedRowBound(loaded.maxBlockPayload()));
        long readers = Math.max(pair.build() == null ? 0 : pair.build().readerBytes(window),
                pair.probe() == null ? 0 : pair.probe().readerBytes(window));
        long laneBuffer = shared && streamed != null ? SharedProbePass.laneBufferBytes(ctx, streamed.maxBlockPayload())
                : 0;
        return pages + UnchainedTable.bytesFor(reversed ? ctx.probeLayout : ctx.buildLayout, rows, expanded) + readers
                + laneBuffer;
    }

    /**
     * Probes the streamed rows (with the helper lanes, when shared), then, once every helper lane is done, runs the
     * finish scan. Returns false when {@code shared} is full, or (a worker that may not wait) while helper lanes are
     * still probing: call again.
     */
    @Override
    public boolean fill(OutputWriter shared) throws IOException {
        if (!offered) {
            offered = true;
            phase.offer(pass);
        }
        if (!probed) {
            if (!lane.fill(shared) || !pass.awaitHelpers(mayWait)) {
                return false;
            }
            probed = true;
            counters.sharedPairBlocks += pass.helperBlocks();
        }
        if (!scanDone && scan != null) {
            OutputWriter out = output.writer(shared);
            boolean done = scan.fill(out);
            out.materialize(null);
            if (!done) {
                return false;
            }
            scanDone = true;
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        try {
            lane.close();
            pass.close();
        } finally {
            if (table != null) {
                table.close();
            }
            if (direct != null) {
                direct.close();
            }
            arena.close();
            memory.close();
        }
    }
}
