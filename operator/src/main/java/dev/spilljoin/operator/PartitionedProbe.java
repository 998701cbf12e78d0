package dev.spilljoin.operator;

import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.Arrays;

/**
 * The probe pass of the hybrid hash join: each probe batch is hashed once; rows the build-key filter rules out
 * ({@link BuildKeyFilter}, while it pays) are joined at once as misses, without a table lookup or a spill; rows
 * whose level-0 partition stayed resident are probed at once against the resident table ({@link HashProbe},
 * batched); rows of spilled partitions are serialized in the probe side's {@link RowLayout} (their hash H stored
 * with them, never recomputed) into a staging arena and encoded from there into their partition's probe spill file
 * ({@link SpillRowFormat}), to be joined with the partition's build rows later ({@link SpilledPairs}). NULL-key
 * probe rows never enter a partition: the resident probe emits (pads) or drops them at once, as the join type says.
 *
 * <p>Rows whose hash is one of the build's accepted heavy keys ({@link PartitionedBuild#heavyKeys()}) go to the
 * heavy partition's probe file whatever their level-0 partition. Every {@value JoinSketches#PROBE_EVERY_KTH_BATCH}th
 * batch's hashes feed the probe-side sample sketch.
 *
 * <p>Invariants: a deferred row is neither probed nor emitted now (the {@code deferred} mask of
 * {@link HashProbe#start(Batch, long[], long[], long[], long[], long[])}); the probe writers' memory is the share the build
 * set aside, one writer per spilled partition; the staging pages were left free by the build.
 */
final class PartitionedProbe implements AutoCloseable {
    private final JoinContext ctx;
    private final PartitionedBuild build;
    private final HashProbe probe;
    private final KeyHasher hasher;
    private final RowWriter rowWriter;
    private final RowArena[] staging = new RowArena[1];
    private final boolean anySpilled;
    private final int bits;
    private ReservedSpillWriter spill;
    private long[] hashes = new long[0];
    private long[] nullKeys = new long[0];
    private long[] deferred = new long[0];
    private long[] notDeferred = new long[0];
    private int[] partitionOfRow = new int[0];
    private long[] candidates = new long[0];
    private long[] sureMisses = new long[0];
    private final SpillFile[] files;
    private final KeySketches sketch;

    PartitionedProbe(JoinContext ctx, PartitionedBuild build) {
        this.ctx = ctx;
        this.build = build;
        this.hasher = new KeyHasher(ctx.probeKeys);
        this.probe = new HashProbe(build.table(), ctx.strategy, hasher, ctx.probeEncoder(), ctx.buildLayout,
                build.rowsIn() == 0, build.nullKeyRows() > 0);
        this.rowWriter = new RowWriter(ctx.probeLayout);
        this.staging[0] = new RowArena(ctx.memory, ctx.sizing.pageSize());
        this.anySpilled = build.residentPartitions() < (1 << build.fanoutLog2()) || build.heavyKeyCount() > 0;
        this.bits = build.fanoutLog2();
        this.files = new SpillFile[(1 << bits) + 1];
        this.sketch = ctx.sketches == null ? null : ctx.sketches.probe;
    }

    /** Pages the probe pass's staging arena may need (the build leaves them free). */
    static long stagingBytes(SpillSizing sizing) {
        return 2L * sizing.pageSize();
    }

    /** Starts a probe batch: spills its rows of spilled partitions, then starts probing the others. */
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
        hasher.hash(batch, hashes, nullKeys);
        if (sketch != null) {
            sketch.update(hashes, n, 0);
        }
        long[] misses = markSureMisses(batch, n, words);
        if (!anySpilled) {
            probe.start(batch, hashes, nullKeys, null, null, misses);
            return;
        }
        Arrays.fill(deferred, 0, words, 0L);
        boolean anyDeferred = false;
        long[] heavyKeys = build.heavyKeys();
        int heavyCount = build.heavyKeyCount();
        int heavy = build.heavyPartition();
        for (int i = 0; i < n; i++) {
            if (((nullKeys[i >>> 6] | (misses == null ? 0L : misses[i >>> 6])) & (1L << i)) == 0) {
                int p = HashFunctions.partitionOf(hashes[i], 0, bits);
                if (heavyCount > 0 && Arrays.binarySearch(heavyKeys, 0, heavyCount, hashes[i]) >= 0) {
                    p = heavy;
                }
                if (build.isSpilled(p)) {
                    deferred[i >>> 6] |= 1L << i;
                    partitionOfRow[i] = p;
                    anyDeferred = true;
                }
            }
        }
        if (anyDeferred) {
            for (int w = 0; w < words; w++) {
                notDeferred[w] = ~deferred[w];
            }
            spillDeferred(batch, n);
        }
        probe.start(batch, hashes, nullKeys, anyDeferred ? deferred : null, null, misses);
    }

    /**
     * Asks the build-key filter (while it is on) which non-NULL-key rows of the batch surely have no match: the mask
     * of those rows, or null without a filter.
     */
    private long[] markSureMisses(Batch batch, int n, int words) {
        BuildKeyFilter filter = ctx.keyFilter;
        if (filter == null || !filter.isOn()) {
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
        filter.markSureMisses(batch, hashes, candidates, sureMisses);
        return sureMisses;
    }

    private void spillDeferred(Batch batch, int n) throws IOException {
        int from = 0;
        while (from < n) {
            int stop = rowWriter.write(batch, from, hashes, nullKeys, notDeferred, null, staging);
            int m = rowWriter.writtenCount();
            int[] rows = rowWriter.writtenRows();
            long[] addresses = rowWriter.writtenAddresses();
            for (int j = 0; j < m; j++) {
                spillWriter().spill(partitionOfRow[rows[j]], addresses[j]);
            }
            staging[0].clear();
            if (stop == from && stop < n) {
                throw new RowTooLargeException(ctx, ctx.strategy.buildSide().other(), stop, rowWriter.lengthOf(stop));
            }
            from = stop;
        }
    }

    private ReservedSpillWriter spillWriter() {
        if (spill == null) {
            spill = new ReservedSpillWriter(ctx, "probe-L0", (1 << bits) + 1, build.writerShare(), ctx.probeFormat);
        }
        return spill;
    }

    HashProbe probe() {
        return probe;
    }

    /** Ends the probe pass: seals the probe spill files; the writers' memory goes back to the budget. */
    void finish() throws IOException {
        if (spill != null) {
            spill.finish();
            for (int p = 0; p < files.length; p++) {
                if (spill.used(p)) {
                    files[p] = spill.file(p);
                    ctx.stats.spilledBytesProbe += files[p].length();
                }
            }
        }
        staging[0].close();
        build.writerShare().close();
        ctx.closeKeyFilter();
    }

    /** The sealed probe spill file of partition {@code p}, or null if none of its probe rows came. */
    SpillFile file(int p) {
        return files[p];
    }

    @Override
    public void close() {
        if (spill != null) {
            spill.close();
        }
        staging[0].close();
    }
}
