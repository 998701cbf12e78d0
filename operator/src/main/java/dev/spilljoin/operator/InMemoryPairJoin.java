package dev.spilljoin.operator;

import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.PartitionReader;

import java.io.IOException;

/**
 * Joins one spilled partition pair whose build rows fit in memory: loads the build file by whole-block copies into
 * an arena (blocks hold whole rows, so the pages are walkable rows again), builds an independent table over it
 * (h2 = the top bits of the stored hash; h1 chose the partition from other bits), streams the probe file through
 * {@link SpilledRowDecoder} and the shared {@link HashProbe}, then runs the finish pass over the loaded rows
 * ({@link BuildRowScan}). Resumable at every output batch.
 *
 * <p>Invariants: everything lives in one child reservation, closed when the pair is done; the build file is deleted
 * once loaded, the probe file once streamed; build rows arrive with clear MATCHED flags (they spilled before any
 * probe), and the join-wide facts (either side empty, a NULL key seen) come from {@link JoinContext}.
 */
final class InMemoryPairJoin implements OutputTask {
    private final JoinContext ctx;
    private final MemoryReservation memory;
    private final RowArena arena;
    private final JoinHashTable table;
    private final HashProbe probe;
    private final SpilledRowDecoder decoder;
    private final BuildRowScan scan;
    private PartitionReader probeReader;
    private long block;
    private int blockLength;
    private int blockOffset;
    private boolean probing;
    private boolean scanDone;

    InMemoryPairJoin(JoinContext ctx, SpillPair pair, SpilledRowDecoder decoder) throws IOException {
        this.ctx = ctx;
        this.decoder = decoder;
        this.memory = ctx.memory.newChild("pair L" + pair.level() + " p" + pair.index());
        try {
            this.arena = new RowArena(memory, ctx.sizing.pairPageSize());
            if (pair.build() != null) {
                try (PartitionReader reader = pair.build().openReader(memory, ctx.sizing.readWindowBytes())) {
                    while (reader.nextBlock()) {
                        if (!copyBlock(arena, reader.blockAddress(), reader.blockLength())) {
                            throw new MemoryExhaustedException("hash join: spilled partition " + pair.index()
                                    + " at level " + pair.level() + " (" + pair.buildRows() + " rows, "
                                    + ByteSize.format(pair.build().length()) + ") did not fit the "
                                    + ByteSize.format(memory.headroom()) + " left of the budget");
                        }
                    }
                }
            }
            this.table = JoinHashTable.tryCreate(memory, pair.buildRows());
            if (table == null) {
                throw new MemoryExhaustedException("hash join: the table of spilled partition " + pair.index()
                        + " needs " + ByteSize.format(JoinHashTable.directoryBytes(pair.buildRows()))
                        + " but only " + ByteSize.format(memory.headroom()) + " of the budget is left");
            }
            table.insertAll(arena);
            this.probe = new HashProbe(table, ctx.strategy, new KeyHasher(ctx.probeKeys), ctx.probeEncoder(),
                    ctx.buildLayout, ctx.buildRowsTotal == 0, ctx.buildNullKeyRows > 0);
            this.probeReader = pair.probe() == null ? null : pair.probe().openReader(memory, ctx.sizing.readWindowBytes());
            boolean dropped = pair.level() == 0 && pair.index() == ctx.config.faultDropUnmatchedBuildRowsOfPartition();
            this.scan = dropped ? null : new BuildRowScan(arena, ctx.strategy.finish(), ctx.probeRowsTotal == 0,
                    ctx.probeNullKeyRows > 0);
        } catch (IOException | RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    /** Memory the pair needs: its pages (bounded), its table and the larger of its two readers. */
    static long memoryNeeded(JoinContext ctx, SpillPair pair) {
        long pages = pair.build() == null ? 0 : ctx.sizing.pairPagesBound(pair.build().length());
        long readers = Math.max(pair.build() == null ? 0 : pair.build().readerBytes(ctx.sizing.readWindowBytes()),
                pair.probe() == null ? 0 : pair.probe().readerBytes(ctx.sizing.readWindowBytes()));
        return pages + JoinHashTable.directoryBytes(pair.buildRows()) + readers;
    }

    /** Copies a block of whole rows into the arena; false if the arena was refused a page. */
    static boolean copyBlock(RowArena arena, long address, int length) {
        if (length == 0) {
            return true;
        }
        long target = arena.tryAllocate(length);
        if (target == 0) {
            return false;
        }
        NativeMemory.copy(address, target, length);
        return true;
    }

    @Override
    public boolean fill(OutputWriter out) throws IOException {
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
                probe.start(decoder.batch(), decoder.hashes(), decoder.nullKeys(), null, null);
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

    @Override
    public void close() throws IOException {
        try {
            if (probeReader != null) {
                probeReader.close();
                probeReader = null;
            }
        } finally {
            table.close();
            arena.close();
            memory.close();
        }
    }
}
