package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.BuildRowScan;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;
import dev.spilljoin.operator.table.JoinStrategy;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.PartitionWriter;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;

/**
 * The nested-loop path for a spilled pair that re-partitioning cannot split (a hot key, or a few, whose rows share
 * one stored hash; or the maximum depth was reached): a block nested loop over budget-sized chunks of the pair's
 * build rows against all of its probe rows (Graefe, "Query evaluation techniques for large databases", 1993, §4).
 *
 * <p>Algorithm, per chunk: load build blocks (their rows expanded from the {@link SpillRowFormat} into in-memory
 * rows) until the chunk's memory limit (pages plus the table built from them), copy the chunk into an
 * {@link UnchainedTable} (its pages freed as they are copied; equal keys share a slot, whose scan is the inner loop), stream the probe rows through the shared {@link HashProbe}, and unless this is the
 * last chunk copy each (still encoded) probe row on to the next chunk's probe file, with its MATCHED flag set if it matched in this
 * chunk or an earlier one. Then the finish pass runs over the chunk's build rows (each build row lives in exactly
 * one chunk and has met every probe row, so its MATCHED flag is final).
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
 * <p>Memory: one child reservation: the build reader, the chunk's pages and table, the probe reader, the next
 * probe file's writer and, when the probe file holds rows too large for the writer's buffer, a scratch page for one
 * of them; chunk limit = what is left after those (or the configured pair limit).
 */
final class HeavyHitterNestedLoop implements OutputTask {
    private static final int SUMMARY_SLOTS = 16;

    private final JoinContext ctx;
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
    private long[] allOnes = new long[0];
    private SpillFile probeFile;
    private UnchainedTable table;
    private HashProbe probe;
    private PartitionReader probeReader;
    private PartitionWriter nextProbe;
    private SpillFile nextProbeFile;
    private BuildRowScan scan;
    private boolean pendingBlock;
    private boolean buildEnded;
    private boolean lastChunk;
    private boolean chunkOpen;
    private boolean probing;
    private boolean probeDone;
    private long block;
    private int blockLength;
    private int blockOffset;
    private long chunkRows;
    private boolean closed;

    /** Joins {@code pair} by chunks in memory drawn from {@code parent} (its worker's share of the budget). */
    HeavyHitterNestedLoop(JoinContext ctx, MemoryReservation parent, PairCounters counters, SpillPair pair,
                          JoinContext.PairOrientation orientation, SpilledRowDecoder decoder) throws IOException {
        this.ctx = ctx;
        this.counters = counters;
        this.orientation = orientation;
        this.pair = pair;
        this.decoder = decoder;
        this.buildFormat = ctx.buildFormat;
        this.probeFile = pair.probe();
        ProbeAction action = ctx.strategy.probe();
        this.dropsMatched = action == ProbeAction.SEMI || action == ProbeAction.ANTI
                || action == ProbeAction.NULL_AWARE_ANTI;
        this.memory = parent.newChild("nested-loop L" + pair.level() + " p" + pair.index());
        try {
            this.arena = new RowArena(memory, ctx.sizing.pairPageSize());
            this.buildReader = pair.build().openReader(memory, ctx.sizing.readWindowBytes());
            long probeReaderBytes = Math.max((long) ctx.sizing.readWindowBytes() + ctx.sizing.bufferBytes(),
                    probeFile == null ? 0 : probeFile.readerBytes(ctx.sizing.readWindowBytes()));
            // a matched probe row too large for the write buffer is flagged in a scratch copy (appendLarge)
            long scratch = probeFile == null || probeFile.maxBlockPayload() <= ctx.sizing.recordCapacity() ? 0
                    : probeFile.maxBlockPayload();
            long left = memory.headroom() - probeReaderBytes - ctx.sizing.writerShare() - scratch;
            long limit = ctx.config.pairMemoryLimit() > 0 ? Math.min(left, ctx.config.pairMemoryLimit()) : left;
            long smallest = ctx.sizing.pairPageSize()
                    + UnchainedTable.bytesFor(ctx.buildLayout, 1, ctx.buildLayout.minRowLength());
            if (left < smallest) {
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

    @Override
    public boolean fill(OutputWriter out) throws IOException {
        while (true) {
            if (!chunkOpen) {
                if (lastChunk) {
                    return true;
                }
                openChunk();
            } else if (probing) {
                boolean done = probe.fill(out);
                out.materialize(decoder.batch());
                if (!done) {
                    return false;
                }
                probing = false;
                forwardProbeRows();
            } else if (!probeDone) {
                advanceProbe();
            } else {
                if (scan != null) {
                    boolean done = scan.fill(out);
                    out.materialize(null);
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
        probe = new HashProbe(table, ctx.strategy, new KeyHasher(ctx.probeKeys), ctx.probeEncoder(),
                orientation.buildEmpty(), orientation.buildHasNullKey(),
                ctx.candidatePairs(ctx.strategy.buildSide(), ctx.buildLayout));
        probeReader = probeFile == null ? null : probeFile.openReader(memory, ctx.sizing.readWindowBytes());
        if (!lastChunk && probeFile != null) {
            nextProbeFile = ctx.space().newFile("nested-loop-probe-L" + pair.level() + "-p" + pair.index());
            nextProbe = nextProbeFile.openWriter(memory, ctx.sizing.bufferBytes());
        }
        scan = new BuildRowScan(table, ctx.strategy.finish(), orientation.probeEmpty(), orientation.probeHasNullKey());
        blockOffset = 0;
        blockLength = 0;
        probeDone = false;
        chunkOpen = true;
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

    private void advanceProbe() throws IOException {
        if (blockOffset < blockLength) {
            ctx.checkCancelled();
            blockOffset = decoder.decode(block, blockLength, blockOffset);
            int n = decoder.batch().rowCount();
            long[] noTail = lastChunk ? decoder.matchedBefore() : allOnes(n);
            probe.start(decoder.batch(), decoder.hashes(), decoder.nullKeys(), HashProbe.RowMasks.noTail(noTail));
            probing = true;
        } else if (probeReader != null && probeReader.nextBlock()) {
            block = probeReader.blockAddress();
            blockLength = probeReader.blockLength();
            blockOffset = 0;
        } else {
            probeDone = true;
            if (probeReader != null) {
                probeReader.close();
                probeReader = null;
            }
            if (nextProbe != null) {
                nextProbe.finish();
                counters.spilledBytesProbe += nextProbeFile.length();
                nextProbe.close();
                nextProbe = null;
                probeFile = nextProbeFile;
                nextProbeFile = null;
            }
        }
    }

    private long[] allOnes(int n) {
        int words = (n + 63) >>> 6;
        if (allOnes.length < words) {
            allOnes = new long[words];
            java.util.Arrays.fill(allOnes, -1L);
        }
        return allOnes;
    }

    /** Copies the probe rows of the batch just probed on to the next chunk's probe file, with their flags. */
    private void forwardProbeRows() throws IOException {
        if (nextProbe == null) {
            return;
        }
        int n = decoder.batch().rowCount();
        long[] before = decoder.matchedBefore();
        int capacity = ctx.sizing.recordCapacity();
        SpillRowFormat format = decoder.format();
        for (int i = 0; i < n; i++) {
            boolean matched = probe.matched(i) || Bitmaps.isSet(before, i);
            if (matched && dropsMatched) {
                continue;
            }
            long row = decoder.rowAddress(i);
            int length = format.rowLength(row);
            if (length <= capacity) {
                long target = nextProbe.reserveRecord(length);
                NativeMemory.copy(row, target, length);
                if (matched) {
                    format.setMatched(target);
                }
            } else {
                appendLarge(format, row, length, matched);
            }
        }
    }

    /** A row larger than the write buffer: flagged in a scratch page (reserved first), then written as its own block. */
    private void appendLarge(SpillRowFormat format, long row, int length, boolean matched) throws IOException {
        if (!matched || format.isMatched(row)) {
            nextProbe.append(row, length);
            return;
        }
        if (!memory.tryGrow(length)) {
            throw new MemoryExhaustedException("hash join: a probe row of " + ByteSize.format(length)
                    + " on the nested-loop path needs a scratch copy but the budget is full");
        }
        try (NativeMemory.NativePage scratch = NativeMemory.allocate(memory, length)) {
            NativeMemory.copy(row, scratch.address(), length);
            format.setMatched(scratch.address());
            nextProbe.append(scratch.address(), length);
        } finally {
            memory.shrink(length);
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
            if (probeReader != null) {
                probeReader.close();
            }
            if (nextProbe != null) {
                nextProbe.close();
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
