package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.operator.table.BuildKeyFilter;
import dev.spilljoin.operator.table.DirectIndexProbe;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.spill.MemoryReservation;

import java.io.IOException;

/**
 * One worker of the probe pass ({@link PartitionedProbe}): takes a probe batch (a morsel) at a time and does for it
 * everything that needs no other worker: hashes its keys once, asks the build-key filter (while it pays, judged on
 * this worker's own rows: {@link BuildKeyFilter.Checks}) which rows surely miss, sends rows of spilled partitions
 * (and of the heavy keys) to their probe spill files, and starts probing the rest against the resident table with
 * its own {@link TableProbe}, whose {@link TableProbe#fill} the caller then drains into its result batch.
 *
 * <p>Invariants: everything here is this worker's own (hash arrays, masks, the probe's cursor, the row writer, the
 * staging arena of rows to spill); the resident table, the filter and the heavy keys are only read; the shared
 * spill writer and the probe-side sketch are reached through {@link PartitionedProbe#spillStaged} and
 * {@link PartitionedProbe#sketch}, which lock per batch (the writer per partition of a batch), never per row. Rows
 * bound for a spill file are first written in the probe side's row layout into the staging arena (in parallel with
 * the other workers), then grouped by partition ({@link StagedSpillOrder}) and encoded into each partition's file
 * under that partition's lock.
 */
final class ProbeWorker implements AutoCloseable {
    private final PartitionedProbe pass;
    private final JoinContext ctx;
    private final BuildOutput build;
    /** This worker's share of the memory the build left free (its staging pages). */
    private final MemoryReservation memory;
    private final TableProbe probe;
    private final KeyHasher hasher;
    private final RowWriter rowWriter;
    /** This worker's index among the pass's workers (0: the caller's). */
    private final int index;
    private final RowArena[] staging = new RowArena[1];
    /** The staged rows grouped by partition for the spill writer. */
    private final StagedSpillOrder spillOrder;
    /** The build keys' filter (read-only here; the pass closes it once no worker asks it), or null. */
    private final BuildKeyFilter filter;
    private final BuildKeyFilter.Checks filterChecks = new BuildKeyFilter.Checks();
    private boolean asksFilter;
    private long[] hashes = new long[0];
    private long[] nullKeys = new long[0];
    private long[] deferred = new long[0];
    /** Per partition (the heavy keys' last): 1 when it spilled, else 0. */
    private final long[] spilledBit;
    private long[] notDeferred = new long[0];
    private int[] partitionOfRow = new int[0];
    private long[] candidates = new long[0];
    private long[] sureMisses = new long[0];

    /**
     * Worker {@code index} (0: the caller's) of {@code pass}; its staging pages draw from {@code memory}, which it owns
     * (and closes).
     */
    ProbeWorker(PartitionedProbe pass, int index, JoinContext ctx, BuildOutput build, BuildKeyFilter filter,
                MemoryReservation memory) {
        this.index = index;
        this.memory = memory;
        this.pass = pass;
        this.ctx = ctx;
        this.build = build;
        this.filter = filter;
        this.asksFilter = filter != null;
        this.hasher = new KeyHasher(ctx.probeKeys);
        this.probe = build.direct() != null
                ? new DirectIndexProbe(build.direct(), ctx.strategy, ctx.probeKeys[0], build.rows() == 0,
                        build.nullKeyRows() > 0)
                : new HashProbe(build.table(), ctx.strategy, hasher, ctx.probeEncoder(), build.rows() == 0,
                        build.nullKeyRows() > 0, ctx.candidatePairs(ctx.strategy.buildSide(), ctx.buildLayout));
        this.rowWriter = new RowWriter(ctx.probeLayout);
        this.staging[0] = new RowArena(memory, ctx.sizing.pageSize());
        this.spillOrder = pass.spillOrder(index);
        boolean[] spilled = build.spilled();
        this.spilledBit = new long[spilled.length];
        for (int p = 0; p < spilled.length; p++) {
            spilledBit[p] = spilled[p] ? 1 : 0;
        }
    }

    /**
     * Starts a probe batch: spills its rows of spilled partitions, then starts probing the others. When nothing
     * spilled, no sample is taken and the key filter is not asked, only the table reads the keys, so its probe alone
     * hashes them (or, for the direct-index table, reads them as they are: no hash at all).
     */
    void start(Batch batch) throws IOException {
        ctx.checkCancelled();
        int n = batch.rowCount();
        int words = (n + 63) >>> 6;
        if (hashes.length < n) {
            hashes = new long[n];
            nullKeys = new long[words];
            deferred = new long[words];
            notDeferred = new long[words];
            partitionOfRow = new int[n];
        }
        if (!pass.anySpilled() && !pass.samples() && !asksFilter) {
            probe.start(batch);
            return;
        }
        boolean anyNull = hasher.hash(batch, hashes, nullKeys);
        pass.sketch(index, hashes, anyNull ? nullKeys : null, n);
        long[] misses = markSureMisses(batch, n, words);
        if (!pass.anySpilled()) {
            probe.start(batch, hashes, nullKeys, HashProbe.RowMasks.deferredAndSureMisses(null, misses));
            return;
        }
        boolean anyDeferred = markDeferred(n, words, misses);
        if (anyDeferred) {
            for (int w = 0; w < words; w++) {
                notDeferred[w] = ~deferred[w];
            }
            spillDeferred(batch, n);
        }
        probe.start(batch, hashes, nullKeys,
                HashProbe.RowMasks.deferredAndSureMisses(anyDeferred ? deferred : null, misses));
    }

    /**
     * Marks in {@link #deferred} the rows bound for a spill file (those of a spilled partition or a heavy key, less
     * the NULL-key rows and the sure misses) and sets their partitions in {@link #partitionOfRow}; whether any is.
     * Branch-free per row but for the heavy-key search (taken only with heavy keys, and then only for the rows
     * {@link HeavyKeyFilter} passes): a word of 64 rows' bits is
     * gathered from the partitions' spilled bits, then masked (a branch per row mispredicted on every third row
     * when most partitions spilled, and a bit set in memory per row, took a sixth of a spilling probe pass).
     */
    private boolean markDeferred(int n, int words, long[] misses) {
        long[] heavyKeys = build.heavyKeys();
        int heavyCount = build.heavyKeyCount();
        HeavyKeyFilter heavyFilter = build.heavyFilter();
        int heavy = build.heavyPartition();
        int bits = build.fanoutLog2();
        long any = 0;
        for (int w = 0; w < words; w++) {
            int base = w << 6;
            int end = Math.min(n, base + 64);
            long word = 0;
            for (int i = base; i < end; i++) {
                long hash = hashes[i];
                int p = HashFunctions.partitionOf(hash, 0, bits);
                if (heavyCount > 0 && heavyFilter.contains(hash, heavyKeys, heavyCount)) {
                    p = heavy;
                }
                partitionOfRow[i] = p;
                word |= spilledBit[p] << i;
            }
            word &= ~nullKeys[w];
            if (misses != null) {
                word &= ~misses[w];
            }
            deferred[w] = word;
            any |= word;
        }
        return any != 0;
    }

    /**
     * Asks the build-key filter (while this worker still does) which non-NULL-key rows of the batch surely have no
     * match: the mask of those rows, or null without a filter. Tells the pass once the filter stopped paying here.
     */
    private long[] markSureMisses(Batch batch, int n, int words) {
        if (!asksFilter) {
            return null;
        }
        if (candidates.length < words) {
            candidates = new long[words];
            sureMisses = new long[words];
        }
        for (int w = 0; w < words; w++) {
            candidates[w] = ~nullKeys[w];
        }
        if ((n & 63) != 0) {
            candidates[words - 1] &= -1L >>> (64 - (n & 63));
        }
        filter.markSureMisses(batch, hashes, candidates, sureMisses, filterChecks);
        if (!filterChecks.isOn()) {
            asksFilter = false;
            pass.stoppedAskingFilter();
        }
        return sureMisses;
    }

    private void spillDeferred(Batch batch, int n) throws IOException {
        int from = 0;
        while (from < n) {
            int stop = rowWriter.write(batch, from, hashes, nullKeys, notDeferred, null, staging);
            pass.spillStaged(spillOrder, partitionOfRow, rowWriter.writtenRows(), rowWriter.writtenAddresses(),
                    rowWriter.writtenCount());
            staging[0].rewind();
            if (stop == from && stop < n) {
                throw new RowTooLargeException(ctx, ctx.strategy.buildSide().other(), batch, stop,
                        rowWriter.lengthOf(stop), rowWriter.largestLength(stop, n, notDeferred));
            }
            from = stop;
        }
    }

    /** The probe of the batch last started: fill results from it until it says it is done. */
    TableProbe probe() {
        return probe;
    }

    /** This worker's filter counts. */
    BuildKeyFilter.Checks filterChecks() {
        return filterChecks;
    }

    /** Frees the staging arena and gives its share back; idempotent. */
    @Override
    public void close() {
        try {
            staging[0].close();
        } finally {
            memory.close();
        }
    }
}
