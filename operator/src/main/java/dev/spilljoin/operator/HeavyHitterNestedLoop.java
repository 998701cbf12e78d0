package dev.spilljoin.operator;

import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.BuildRowScan;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The nested-loop path for a spilled pair that re-partitioning cannot split (a hot key, or a few, whose rows share
 * one stored hash; or the maximum depth was reached): a block nested loop over budget-sized chunks of the pair's
 * build rows against all of its probe rows (Graefe, "Query evaluation techniques for large databases", 1993, §4).
 *
 * <p>Algorithm, per chunk: load build blocks (their rows expanded from the {@link SpillRowFormat} into in-memory
 * rows) until the chunk's memory limit (pages plus the table built from them), copy the chunk into an
 * {@link UnchainedTable} (its pages freed as they are copied; equal keys share a slot, whose scan is the inner
 * loop), then stream the chunk's probe files through a probe pass ({@link SharedProbePass}): this task's own
 * {@link PairProbeLane} and, with several workers, the lanes of workers that found no pair to take, each probing a
 * block at a time with a {@link HashProbe} of its own and, unless this is the last chunk, copying each (still
 * encoded) probe row on to a next-chunk file of its own ({@link ProbeRowForwarder}), with its MATCHED flag set if it
 * matched in this chunk or an earlier one. Once every lane is done, the next chunk's probe files are the ones they
 * wrote, and the finish pass runs over the chunk's build rows (each build row lives in exactly one chunk and has met
 * every probe row, so its MATCHED flag is final).
 *
 * <p>Semantics across chunks, for a probe row: PAIRS emits its pairs chunk by chunk; SEMI emits it at its first
 * match and drops it; ANTI (and NOT IN) drops it at its first match and emits it in the last chunk if it never
 * matched; PAIRS_OR_PAD pads it in the last chunk only if it matched in no chunk (the flag it carries). So a probe
 * row is never emitted as unmatched by one chunk and matched by another.
 *
 * <p>Heavy-hitter keys for the stats: a small Misra–Gries summary of the chunk rows' hashes; keys holding at least a
 * tenth of the pair's build rows are counted. Besides pairs that re-partitioning could not split, this path takes
 * the heavy keys' pair the build routed from its sketch or the statistics cache ({@link SpillPair#fromSketch()})
 * when that pair does not fit in memory; its keys are counted apart from those found after re-partitioning.
 *
 * <p>Memory: one child reservation: the build reader, the chunk's pages and table, the probe reader, the own
 * lane's next-chunk writer and, when the probe files hold rows too large for the writer's buffer, a scratch page for
 * one of them, and with several workers the own lane's copy of a probe block; chunk limit = what is left after
 * those (or the configured pair limit). A helper lane's buffer and writer are its own worker's.
 */
final class HeavyHitterNestedLoop implements OutputTask {
    private static final int SUMMARY_SLOTS = 16;

    private final JoinContext ctx;
    private final SpilledPairs phase;
    /** Whether this task's worker may wait for helper lanes (not the caller's thread: {@link SpilledPairs#take}). */
    private final boolean mayWait;
    /** The pair phase's counters this path adds to. */
    private final PairCounters counters;
    /** The join's own orientation (this path never reverses a pair) with the join-wide facts. */
    private final JoinContext.PairOrientation orientation;
    private final SpillPair pair;
    private final MemoryReservation memory;
    private final SpilledRowDecoder decoder;
    private final SpillRowFormat buildFormat;
    private final RowArena arena;
    private final PartitionReader buildReader;
    private final long chunkLimit;
    /** The most a chunk (pages and table) may ever take: the memory left beside the readers and the writer. */
    private final long chunkMemory;
    private final boolean dropsMatched;
    private final long[] summaryHash = new long[SUMMARY_SLOTS];
    private final long[] summaryCount = new long[SUMMARY_SLOTS];
    private final PairOutput output;
    /** The current chunk's probe files: the pair's, then those the previous chunk's lanes forwarded rows to. */
    private List<SpillFile> probeFiles;
    private UnchainedTable table;
    private SharedProbePass pass;
    private PairProbeLane lane;
    private BuildRowScan scan;
    private boolean pendingBlock;
    private boolean buildEnded;
    private boolean lastChunk;
    private boolean chunkOpen;
    private boolean laneDone;
    private boolean probeDone;
    private long chunkRows;
    private boolean closed;

    /** Joins {@code pair} by chunks in memory drawn from {@code parent} (its worker's share of the budget). */
    HeavyHitterNestedLoop(JoinContext ctx, MemoryReservation parent, PairCounters counters, SpillPair pair,
                          JoinContext.PairOrientation orientation, SpilledRowDecoder decoder, SpilledPairs phase,
                          boolean mayWait) throws IOException {
        this.ctx = ctx;
        this.phase = phase;
        this.mayWait = mayWait;
        this.output = new PairOutput(ctx, orientation);
        this.counters = counters;
        this.orientation = orientation;
        this.pair = pair;
        this.decoder = decoder;
        this.buildFormat = ctx.buildFormat;
        SpillFile probeFile = pair.probe();
        this.probeFiles = probeFile == null ? List.of() : List.of(probeFile);
        ProbeAction action = ctx.strategy.probe();
        this.dropsMatched = action == ProbeAction.SEMI || action == ProbeAction.ANTI
                || action == ProbeAction.NULL_AWARE_ANTI;
        this.memory = parent.newChild("nested-loop L" + pair.level() + " p" + pair.index());
        try {
            this.arena = new RowArena(memory, ctx.sizing.pairPageSize());
            this.buildReader = pair.build().openReader(memory, ctx.sizing.readWindowBytes());
            long left = memory.headroom() - probeSideBytes(ctx, probeFile, phase.sharesPasses());
            long limit = ctx.config.pairMemoryLimit() > 0 ? Math.min(left, ctx.config.pairMemoryLimit()) : left;
            long smallest = smallestChunk(ctx);
            if (left < smallest) {
                long row = largestRow(ctx, pair);
                if (row > 0) {
                    throw RowTooLargeException.onNestedLoop(ctx, row, phase.largestOwnBlockRow());
                }
                throw new MemoryExhaustedException("hash join: the nested-loop path for partition " + pair.index()
                        + " at level " + pair.level() + " needs at least " + ByteSize.format(smallest)
                        + " for a chunk but has " + ByteSize.format(Math.max(0, left)) + " left of the budget of "
                        + ByteSize.format(ctx.memory.limit()));
            }
            this.chunkLimit = Math.max(limit, smallest);
            this.chunkMemory = left;
        } catch (IOException | RuntimeException e) {
            memory.close();
            throw e;
        }
        counters.heavyHitterRows += pair.buildRows() + pair.probeRows();
    }

    /**
     * The least share of the budget this path needs for {@code pair} (with a lane shared with other workers when
     * {@code shared}): the build reader, the probe reader, the forwarder and the lane's block copy, sized for the
     * pair's largest blocks, beside the smallest chunk, or one that holds the largest build row when that row is a
     * block of its own (too large for a write buffer). Re-partitioning never makes a block larger, so the level-0
     * pairs' figures bound their children's.
     */
    static long memoryNeeded(JoinContext ctx, SpillPair pair, boolean shared) {
        SpillFile build = pair.build();
        long buildReader = build == null ? 0 : build.readerBytes(ctx.sizing.readWindowBytes());
        long row = ownBlockRow(ctx, build, ctx.buildFormat);
        long chunk = Math.max(smallestChunk(ctx),
                ctx.sizing.pairPagesBound(row, 1, row) + UnchainedTable.bytesFor(ctx.buildLayout, 1, row));
        return buildReader + probeSideBytes(ctx, pair.probe(), shared) + chunk;
    }

    /**
     * What the path holds for streaming {@code probe}: its reader, the forwarder of its rows to the next chunk's file
     * and, {@code shared}, the own lane's block copy, each sized for the largest block (the forwarded files' blocks
     * hold a write buffer's rows, at most its record capacity, or one row too large for it, as the pair's do).
     */
    private static long probeSideBytes(JoinContext ctx, SpillFile probe, boolean shared) {
        int window = ctx.sizing.readWindowBytes();
        long reader = Math.max((long) window + ctx.sizing.bufferBytes(), probe == null ? 0 : probe.readerBytes(window));
        int maxBlock = Math.max(ctx.sizing.recordCapacity(), probe == null ? 0 : probe.maxBlockPayload());
        long lane = shared ? SharedProbePass.laneBufferBytes(ctx, maxBlock) : 0;
        return reader + ProbeRowForwarder.memoryNeeded(ctx, maxBlock) + lane;
    }

    /** A chunk of one page and one row's table, the least a chunk takes. */
    private static long smallestChunk(JoinContext ctx) {
        return ctx.sizing.pairPageSize() + UnchainedTable.bytesFor(ctx.buildLayout, 1, ctx.buildLayout.minRowLength());
    }

    /** The in-memory size of {@code pair}'s largest row when it is a block of its own, on either side; else 0. */
    static long largestRow(JoinContext ctx, SpillPair pair) {
        return Math.max(ownBlockRow(ctx, pair.build(), ctx.buildFormat),
                ownBlockRow(ctx, pair.probe(), ctx.probeFormat));
    }

    /**
     * The in-memory size (in {@code format}) of {@code file}'s largest row when it is a block of its own (too large
     * for a write buffer); else 0.
     */
    private static long ownBlockRow(JoinContext ctx, SpillFile file, SpillRowFormat format) {
        int block = file == null ? 0 : file.maxBlockPayload();
        return block > ctx.sizing.recordCapacity() ? format.expandedRowBound(block) : 0;
    }

    /**
     * Joins chunk after chunk: probes the chunk's probe files (with the helper lanes, when shared), then, once every
     * helper lane is done, runs the chunk's finish scan. Returns false when {@code out} is full, or (a worker that
     * may not wait) while helper lanes are still probing: call again.
     */
    @Override
    public boolean fill(OutputWriter out) throws IOException {
        while (true) {
            if (!chunkOpen) {
                if (lastChunk) {
                    return true;
                }
                openChunk();
            } else if (!laneDone) {
                if (!lane.fill(out)) {
                    return false;
                }
                laneDone = true;
            } else if (!probeDone) {
                if (!pass.awaitHelpers(mayWait)) {
                    return false;
                }
                endProbePass();
            } else {
                if (scan != null) {
                    OutputWriter writer = output.writer(out);
                    boolean done = scan.fill(writer);
                    writer.materialize(null);
                    if (!done) {
                        return false;
                    }
                }
                closeChunk();
            }
        }
    }

    /** Loads the next chunk of build rows and starts streaming the probe rows against it. */
    private void openChunk() throws IOException {
        ctx.checkCancelled();
        arena.clear();
        chunkRows = 0;
        long chunkBytes = 0;
        while (true) {
            if (!pendingBlock) {
                if (!buildReader.nextBlock()) {
                    buildEnded = true;
                    break;
                }
                pendingBlock = true;
            }
            long address = buildReader.blockAddress();
            int length = buildReader.blockLength();
            int rows = countAndSummarize(address, length, false);
            long expanded = buildFormat.expandedBytes(address, length);
            long need = arena.reservedBytes()
                    + ctx.sizing.pairPagesBound(expanded, rows, buildFormat.expandedRowBound(length))
                    + UnchainedTable.bytesFor(ctx.buildLayout, chunkRows + rows, chunkBytes + expanded);
            if (need > chunkLimit && chunkRows > 0) {
                break;
            }
            if (need > chunkMemory && rows == 1 && length > ctx.sizing.recordCapacity()) {
                throw RowTooLargeException.onNestedLoop(ctx, buildFormat.expandedRowBound(length),
                        phase.largestOwnBlockRow());
            }
            if (need > chunkMemory || !buildFormat.expandBlock(arena, address, length)) {
                throw new MemoryExhaustedException("hash join: a block of " + ByteSize.format(length) + " ("
                        + rows + " rows) on the nested-loop path needs " + ByteSize.format(need) + " but only "
                        + ByteSize.format(chunkMemory) + " of the budget of " + ByteSize.format(ctx.memory.limit())
                        + " is left beside its readers and writer; give it a larger budget");
            }
            countAndSummarize(address, length, true);
            chunkRows += rows;
            chunkBytes += expanded;
            pendingBlock = false;
        }
        lastChunk = buildEnded;
        counters.nestedLoopChunks++;
        table = UnchainedTable.tryBuild(memory, ctx.buildLayout, ctx.strategy.marksBuildRows(),
                ctx.strategy.keepsNullKeyBuildRows(), arena);
        if (table == null) {
            throw new MemoryExhaustedException("hash join: the nested-loop chunk's table of "
                    + ByteSize.format(UnchainedTable.bytesFor(ctx.buildLayout, chunkRows, chunkBytes))
                    + " does not fit the " + ByteSize.format(memory.headroom()) + " left of the budget");
        }
        UnchainedTable chunkTable = table;
        boolean last = lastChunk;
        pass = new SharedProbePass(ctx, memory, probeFiles, phase.sharesPasses(),
                (p, workerMemory) -> helperLane(p, workerMemory, chunkTable, last));
        probeFiles = List.of();
        ProbeRowForwarder forwarder = lastChunk || pass.maxBlockPayload() == 0 ? null
                : new ProbeRowForwarder(ctx, memory, pair, dropsMatched);
        lane = new PairProbeLane(ctx, pass, memory, decoder, newProbe(table), output, tail(lastChunk), forwarder,
                false);
        scan = new BuildRowScan(table, ctx.strategy.finish(), orientation.probeEmpty(), orientation.probeHasNullKey());
        laneDone = false;
        probeDone = false;
        chunkOpen = true;
        phase.offer(pass);
    }

    /** A probe of {@code chunkTable} (each lane has its own; the table is only read). */
    private HashProbe newProbe(UnchainedTable chunkTable) {
        return new HashProbe(chunkTable, ctx.strategy, new KeyHasher(ctx.probeKeys), ctx.probeEncoder(),
                orientation.buildEmpty(), orientation.buildHasNullKey(),
                ctx.candidatePairs(ctx.strategy.buildSide(), ctx.buildLayout));
    }

    /** Which probe rows a chunk's probe may emit as unmatched: only in the last chunk, and only if never matched. */
    private static PairProbeLane.Tail tail(boolean last) {
        return last ? PairProbeLane.Tail.UNLESS_MATCHED_BEFORE : PairProbeLane.Tail.NONE;
    }

    /**
     * The lane of another worker joining a chunk's probe pass, in its memory (its buffer and, unless this is the last
     * chunk, a forwarder of its own); null when they do not fit there.
     */
    private PairProbeLane helperLane(SharedProbePass chunkPass, MemoryReservation workerMemory,
                                     UnchainedTable chunkTable, boolean last) {
        int maxBlock = chunkPass.maxBlockPayload();
        long need = chunkPass.laneBufferBytes() + (last ? 0 : ProbeRowForwarder.memoryNeeded(ctx, maxBlock));
        if (workerMemory.headroom() < need) {
            return null;
        }
        SpilledRowDecoder helperDecoder = new SpilledRowDecoder(ctx.probeFormat, ctx.probeSchema,
                ctx.config.outputBatchRows());
        ProbeRowForwarder forwarder = last ? null : new ProbeRowForwarder(ctx, workerMemory, pair, dropsMatched);
        return new PairProbeLane(ctx, chunkPass, workerMemory, helperDecoder, newProbe(chunkTable),
                new PairOutput(ctx, orientation), tail(last), forwarder, true);
    }

    /**
     * Every lane is done with the chunk's probe files: the next chunk reads the files they forwarded rows to (the
     * own lane's and the helpers'); the pass's reader and buffers go.
     */
    private void endProbePass() throws IOException {
        List<SpillFile> next = new ArrayList<>();
        SpillFile own = lane.finishForwarding();
        if (own != null) {
            next.add(own);
        }
        next.addAll(pass.takeForwarded());
        for (SpillFile file : next) {
            counters.spilledBytesProbe += file.length();
        }
        counters.sharedPairBlocks += pass.helperBlocks();
        probeFiles = next;
        lane.close();
        pass.close();
        probeDone = true;
    }

    /** Counts the rows of a block; with {@code summarize}, feeds their hashes to the heavy-key summary. */
    private int countAndSummarize(long address, int length, boolean summarize) {
        int rows = 0;
        for (int offset = 0; offset < length; ) {
            long row = address + offset;
            if (summarize && !buildFormat.hasNullKey(row)) {
                summarize(buildFormat.hash(row));
            }
            offset += buildFormat.rowLength(row);
            rows++;
        }
        return rows;
    }

    /** Misra–Gries over stored hashes: each counter undercounts its key by at most rows / (slots + 1). */
    private void summarize(long hash) {
        int free = -1;
        for (int s = 0; s < SUMMARY_SLOTS; s++) {
            if (summaryCount[s] > 0 && summaryHash[s] == hash) {
                summaryCount[s]++;
                return;
            }
            if (summaryCount[s] == 0 && free < 0) {
                free = s;
            }
        }
        if (free >= 0) {
            summaryHash[free] = hash;
            summaryCount[free] = 1;
            return;
        }
        for (int s = 0; s < SUMMARY_SLOTS; s++) {
            summaryCount[s]--;
        }
    }

    private void closeChunk() {
        table.close();
        table = null;
        arena.clear();
        chunkOpen = false;
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            long keys = heavyKeys();
            counters.heavyHitterKeys += keys;
            if (!pair.fromSketch()) {
                counters.heavyHitterKeysFromRepartitioning += keys;
            }
            if (lane != null) {
                lane.close();
            }
            if (pass != null) {
                pass.close();
            }
            for (SpillFile file : probeFiles) {
                file.delete();
            }
            buildReader.close();
        } finally {
            if (table != null) {
                table.close();
            }
            arena.close();
            memory.close();
        }
    }

    private long heavyKeys() {
        long count = 0;
        long threshold = Math.max(2, pair.buildRows() / 10);
        for (int s = 0; s < SUMMARY_SLOTS; s++) {
            if (summaryCount[s] >= threshold) {
                count++;
            }
        }
        return count;
    }
}
