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

/**
 * Joins one spilled partition pair whose build rows fit in memory: loads the build file into an arena, expanding
 * its rows from the {@link SpillRowFormat} back into in-memory {@link RowLayout} rows (walkable rows again), copies
 * them into an independent {@link UnchainedTable} (slot = the top bits of the stored hash; h1 chose the partition
 * from other bits; the arena's pages are freed as its rows are copied), streams the probe file through
 * {@link SpilledRowDecoder} and the shared {@link HashProbe}, then runs the finish pass over the table
 * ({@link BuildRowScan}). Resumable at every output batch. When the loaded rows have one integer key without
 * duplicates in a dense enough range, and a direct-index table over them costs no more than the hash table, they go
 * into that table instead ({@link DirectIndexTable}; the arena is freed once it is filled) and are probed and
 * finished by {@link DirectIndexProbe} and {@link DirectIndexScan}.
 *
 * <p>Role reversal: when the pair's probe file is the smaller, the pair may be joined the other way round
 * ({@link JoinContext.PairOrientation}): the probe rows are loaded and the build rows streamed, with the join type's
 * strategy for that orientation, so a wrong size hint costs one pair, not the join. Both sides' files carry the
 * same kind of rows (a layout's format, the stored hash, flags), which is what makes this a matter of choosing the file.
 *
 * <p>Invariants: everything lives in one child reservation, closed when the pair is done; the build file is deleted
 * once loaded, the probe file once streamed; build rows arrive with clear MATCHED flags (they spilled before any
 * probe), and the join-wide facts (either side empty, a NULL key seen) come from {@link JoinContext}.
 */
final class InMemoryPairJoin implements OutputTask {
    private final JoinContext ctx;
    private final JoinContext.PairOrientation orientation;
    private OutputWriter reversedOut;
    /** The result batch {@link #reversedOut} writes into (a worker may hand the task another one per call). */
    private OutputWriter reversedFor;
    private final MemoryReservation memory;
    private final RowArena arena;
    /** The loaded rows' hash table, or null when they went into {@link #direct}. */
    private final UnchainedTable table;
    /** The loaded rows' direct-index table, or null when they went into {@link #table}. */
    private final DirectIndexTable direct;
    private final TableProbe probe;
    private final SpilledRowDecoder decoder;
    private final FinishScan scan;
    private PartitionReader probeReader;
    private long block;
    private int blockLength;
    private int blockOffset;
    private boolean probing;
    private boolean scanDone;

    /** Joins {@code pair} in memory drawn from {@code parent} (its worker's share of the budget). */
    InMemoryPairJoin(JoinContext ctx, MemoryReservation parent, SpillPair pair,
                     JoinContext.PairOrientation orientation, SpilledRowDecoder decoder) throws IOException {
        this.ctx = ctx;
        this.orientation = orientation;
        this.decoder = decoder;
        SpillFile loaded = orientation.reversed() ? pair.probe() : pair.build();
        SpillFile streamed = orientation.reversed() ? pair.build() : pair.probe();
        SpillRowFormat format = orientation.reversed() ? ctx.probeFormat : ctx.buildFormat;
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
                    ? DirectIndexTable.tryBuild(memory, layout, DirectIndexTable.KeyRange.scan(layout, arena),
                            strategy.marksBuildRows(), new RowArena[] {arena}, tableBytes)
                    : null;
            if (direct != null) {
                arena.clear();
                this.table = null;
                this.probe = new DirectIndexProbe(direct, strategy, orientation.probeKeys()[0],
                        orientation.buildEmpty(), orientation.buildHasNullKey());
            } else {
                this.table = UnchainedTable.tryBuild(memory, layout, strategy.marksBuildRows(),
                        strategy.keepsNullKeyBuildRows(), arena);
                if (table == null) {
                    throw new MemoryExhaustedException("hash join: the table of spilled partition " + pair.index()
                            + " needs " + ByteSize.format(tableBytes) + " but only "
                            + ByteSize.format(memory.headroom()) + " of the budget is left");
                }
                this.probe = new HashProbe(table, strategy, new KeyHasher(orientation.probeKeys()),
                        orientation.encoder(ctx.hashIsKey), orientation.buildEmpty(), orientation.buildHasNullKey(),
                        ctx.candidatePairs(orientation.buildSide(), layout));
            }
            this.probeReader = streamed == null ? null : streamed.openReader(memory, ctx.sizing.readWindowBytes());
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

    /** Whether the loaded rows went into a direct-index table (else a hash table). */
    boolean usesDirectTable() {
        return direct != null;
    }

    /**
     * Memory the pair needs when the rows of {@code reversed ? probe : build} are loaded: their pages (bounded: the
     * rows expanded to in-memory rows), their table (built while the pages are still held) and the larger of the two
     * readers.
     */
    static long memoryNeeded(JoinContext ctx, SpillPair pair, boolean reversed) {
        SpillFile loaded = reversed ? pair.probe() : pair.build();
        SpillRowFormat format = reversed ? ctx.probeFormat : ctx.buildFormat;
        int window = ctx.sizing.readWindowBytes();
        long rows = loaded == null ? 0 : loaded.rowCount();
        long expanded = loaded == null ? 0 : format.expandedBytesBound(loaded.length(), rows);
        long pages = loaded == null ? 0 : ctx.sizing.pairPagesBound(expanded, rows,
                format.expandedRowBound(loaded.maxBlockPayload()));
        long readers = Math.max(pair.build() == null ? 0 : pair.build().readerBytes(window),
                pair.probe() == null ? 0 : pair.probe().readerBytes(window));
        return pages + UnchainedTable.bytesFor(reversed ? ctx.probeLayout : ctx.buildLayout, rows, expanded) + readers;
    }

    @Override
    public boolean fill(OutputWriter shared) throws IOException {
        OutputWriter out = writer(shared);
        while (true) {
            if (probing) {
                boolean done = probe.fill(out);
                out.materialize(decoder.batch());
                if (!done) {
                    return false;
                }
                probing = false;
            } else if (blockOffset < blockLength) {
                ctx.checkCancelled();
                blockOffset = decoder.decode(block, blockLength, blockOffset);
                probe.start(decoder.batch(), decoder.hashes(), decoder.nullKeys(), HashProbe.RowMasks.NONE);
                probing = true;
            } else if (probeReader != null && probeReader.nextBlock()) {
                block = probeReader.blockAddress();
                blockLength = probeReader.blockLength();
                blockOffset = 0;
            } else if (!scanDone && scan != null) {
                boolean done = scan.fill(out);
                out.materialize(null);
                if (!done) {
                    return false;
                }
                scanDone = true;
            } else {
                return true;
            }
        }
    }

    /** The output writer of this pair's orientation (a reversed pair writes the same batch from the other side). */
    private OutputWriter writer(OutputWriter shared) {
        if (!orientation.reversed()) {
            return shared;
        }
        if (reversedOut == null || reversedFor != shared) {
            reversedOut = shared.reoriented(ctx.spec.projection(), orientation.buildSide(), orientation.buildLayout());
            reversedFor = shared;
        }
        return reversedOut;
    }

    @Override
    public void close() throws IOException {
        try {
            if (probeReader != null) {
                probeReader.close();
                probeReader = null;
            }
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
