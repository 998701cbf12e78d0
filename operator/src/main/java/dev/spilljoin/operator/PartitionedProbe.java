package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;
import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.operator.table.BuildKeyFilter;
import dev.spilljoin.operator.table.BuildRowScan;
import dev.spilljoin.operator.table.DirectIndexProbe;
import dev.spilljoin.operator.table.DirectIndexScan;
import dev.spilljoin.operator.table.FinishScan;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The probe pass of the hybrid hash join: each probe batch is hashed once; rows the build-key filter rules out
 * ({@link BuildKeyFilter}, while it pays) are joined at once as misses, without a table lookup or a spill; rows
 * whose level-0 partition stayed resident are probed at once against the resident table ({@link HashProbe},
 * batched, or {@link DirectIndexProbe} when the build chose the direct-index table); rows of spilled partitions are serialized in the probe side's {@link dev.spilljoin.operator.row.RowLayout} (their hash H stored
 * with them, never recomputed) into a staging arena and encoded from there into their partition's probe spill file
 * ({@link dev.spilljoin.operator.row.SpillRowFormat}), to be joined with the partition's build rows later ({@link SpilledPairs}). NULL-key
 * probe rows never enter a partition: the resident probe emits (pads) or drops them at once, as the join type says.
 *
 * <p>Rows whose hash is one of the build's accepted heavy keys ({@link BuildOutput#heavyKeys()}) go to the
 * heavy partition's probe file whatever their level-0 partition. Every {@value JoinSketches#PROBE_EVERY_KTH_BATCH}th
 * batch's hashes feed the probe-side sample sketch.
 *
 * <p>After the probe input ends ({@link #endOfInput}), the FINISH pass emits the resident table's build rows by their
 * MATCHED flags ({@link #fillResident}; {@link BuildRowScan} or, for a direct-index table, {@link DirectIndexScan}),
 * and {@link #finish} hands the spilled pairs on to {@link SpilledPairs}.
 *
 * <p>Ownership: everything {@link PartitionedBuild#finish} handed over ({@link BuildOutput}): the resident table
 * (holding the resident rows; freed by {@link #finish}), the probe spill writer and its writer share, the key filter and the sketches
 * (all three closed at the end of the input, once their figures are taken for its report), plus its own staging
 * arena.
 *
 * <p>Invariants: a deferred row is neither probed nor emitted now (the {@code deferred} mask of
 * {@link HashProbe.RowMasks}); the probe writers' memory is the share the build
 * set aside, one writer per spilled partition; the staging pages were left free by the build.
 */
final class PartitionedProbe implements JoinPhase {
    private final JoinContext ctx;
    private final BuildOutput build;
    private final int bits;
    private final TableProbe probe;
    private final KeyHasher hasher;
    private final RowWriter rowWriter;
    private final RowArena[] staging = new RowArena[1];
    private final boolean anySpilled;
    private final SpillFile[] files;
    private final KeySketches sketch;
    /** Owned: the probe spill writer and its writer share (closed at the end of the input). */
    private final ReservedSpillWriter spill;
    /** Owned: the build keys' filter, null once closed. */
    private BuildKeyFilter keyFilter;
    /** Owned: the key sketches, null once closed. */
    private JoinSketches sketches;
    private long[] hashes = new long[0];
    private long[] nullKeys = new long[0];
    private long[] deferred = new long[0];
    private long[] notDeferred = new long[0];
    private int[] partitionOfRow = new int[0];
    private long[] candidates = new long[0];
    private long[] sureMisses = new long[0];
    private long spilledBytes;
    private long filterChecked;
    private long filterExcludedByRange;
    private long filterExcludedByBloom;
    private EstimatesVsActuals estimates;
    private long sampleRows;
    private long sampleDistinctKeys;
    private FinishScan residentScan;
    /** Set when the resident rows were freed and the pairs handed on (or the phase closed). */
    private boolean released;

    PartitionedProbe(JoinContext ctx, BuildOutput build) {
        this.ctx = ctx;
        this.build = build;
        this.bits = build.fanoutLog2();
        this.hasher = new KeyHasher(ctx.probeKeys);
        this.probe = build.direct() != null
                ? new DirectIndexProbe(build.direct(), ctx.strategy, ctx.probeKeys[0], build.rows() == 0,
                        build.nullKeyRows() > 0)
                : new HashProbe(build.table(), ctx.strategy, hasher, ctx.probeEncoder(), build.rows() == 0,
                        build.nullKeyRows() > 0, ctx.candidatePairs(ctx.strategy.buildSide(), ctx.buildLayout));
        this.rowWriter = new RowWriter(ctx.probeLayout);
        this.staging[0] = new RowArena(ctx.memory, ctx.sizing.pageSize());
        boolean anyPartitionSpilled = false;
        for (int p = 0; p < (1 << bits); p++) {
            anyPartitionSpilled |= build.spilled()[p];
        }
        this.anySpilled = anyPartitionSpilled || build.heavyKeyCount() > 0;
        this.files = new SpillFile[(1 << bits) + 1];
        this.spill = build.probeWriter();
        this.keyFilter = build.keyFilter();
        this.sketches = build.sketches();
        this.sketch = sketches == null ? null : sketches.probe;
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
            probe.start(batch, hashes, nullKeys, HashProbe.RowMasks.deferredAndSureMisses(null, misses));
            return;
        }
        Arrays.fill(deferred, 0, words, 0L);
        boolean anyDeferred = false;
        long[] heavyKeys = build.heavyKeys();
        int heavyCount = build.heavyKeyCount();
        int heavy = build.heavyPartition();
        boolean[] spilled = build.spilled();
        for (int i = 0; i < n; i++) {
            if (!Bitmaps.isSet(nullKeys, i) && (misses == null || !Bitmaps.isSet(misses, i))) {
                int p = HashFunctions.partitionOf(hashes[i], 0, bits);
                if (heavyCount > 0 && Arrays.binarySearch(heavyKeys, 0, heavyCount, hashes[i]) >= 0) {
                    p = heavy;
                }
                if (spilled[p]) {
                    Bitmaps.set(deferred, i);
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
        probe.start(batch, hashes, nullKeys,
                HashProbe.RowMasks.deferredAndSureMisses(anyDeferred ? deferred : null, misses));
    }

    /**
     * Asks the build-key filter (while it is on) which non-NULL-key rows of the batch surely have no match: the mask
     * of those rows, or null without a filter. Closes the filter once it has stopped paying.
     */
    private long[] markSureMisses(Batch batch, int n, int words) {
        BuildKeyFilter filter = keyFilter;
        if (filter == null) {
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
        if (!filter.isOn()) {
            closeKeyFilter();
        }
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
                spill.spill(partitionOfRow[rows[j]], addresses[j]);
            }
            staging[0].clear();
            if (stop == from && stop < n) {
                throw new RowTooLargeException(ctx, ctx.strategy.buildSide().other(), stop, rowWriter.lengthOf(stop));
            }
            from = stop;
        }
    }

    TableProbe probe() {
        return probe;
    }


    /**
     * Ends the probe input: seals the probe spill files (the writers' memory and the writer share go back to the
     * budget), closes the key filter and the sketches (their figures taken first) and reports what the pass did.
     */
    ProbeReport endOfInput() throws IOException {
        spill.finish();
        for (int p = 0; p < files.length; p++) {
            if (spill.used(p)) {
                files[p] = spill.file(p);
                spilledBytes += files[p].length();
            }
        }
        staging[0].close();
        spill.close();
        closeKeyFilter();
        takeEstimates();
        return new ProbeReport(probe.probeRows(), spilledBytes, filterChecked, filterExcludedByRange,
                filterExcludedByBloom, estimates, sampleRows, sampleDistinctKeys);
    }

    /** What the build pass reported (handed over with its output). */
    BuildReport buildReport() {
        return build.report();
    }

    /** The join-wide input facts (after {@link #endOfInput}). */
    InputTotals totals() {
        return new InputTotals(build.rows(), build.nullKeyRows(), probe.probeRows(), probe.probeNullKeyRows());
    }

    /**
     * The FINISH pass over the resident table (after {@link #endOfInput}): emits its build rows by their MATCHED
     * flags; true when done, false when {@code out} is full (call again).
     */
    boolean fillResident(OutputWriter out) {
        if (residentScan == null) {
            residentScan = build.direct() != null
                    ? new DirectIndexScan(build.direct(), ctx.strategy.finish(), probe.probeRows() == 0,
                            probe.probeNullKeyRows() > 0)
                    : new BuildRowScan(build.table(), ctx.strategy.finish(), probe.probeRows() == 0,
                            probe.probeNullKeyRows() > 0);
        }
        boolean done = residentScan.fill(out);
        out.materialize(null);
        return done;
    }

    /**
     * Ends the phase (after the FINISH pass): frees the resident rows and table and hands the spilled partition
     * pairs, level 0's and the heavy keys' pair, to the spilled-pairs phase it returns.
     */
    SpilledPairs finish() {
        List<SpillPair> pairs = new ArrayList<>();
        SpillFile[] buildFiles = build.files();
        for (int p = 0; p < (1 << bits); p++) {
            if (build.spilled()[p]) {
                pairs.add(new SpillPair(buildFiles[p], files[p], 0, p, false, false));
            }
        }
        int heavy = build.heavyPartition();
        if (buildFiles[heavy] != null || files[heavy] != null) {
            pairs.add(new SpillPair(buildFiles[heavy], files[heavy], 0, heavy, true, true));
        }
        InputTotals totals = totals();
        close();
        return new SpilledPairs(ctx, pairs, totals);
    }

    /** Takes the sketches' figures (and stores the build's statistics in the cache) and closes them. */
    private void takeEstimates() {
        if (sketches == null) {
            return;
        }
        KeySketches b = sketches.build;
        KeySketches p = sketches.probe;
        BuildSideChoice choice = ctx.choice;
        estimates = new EstimatesVsActuals(choice.estimateSource(), choice.hintRows(), b.rows(), choice.hintBytes(),
                b.bytes(), choice.estimatedDistinctKeys(), b.distinctEstimate());
        StatisticsLookup lookup = ctx.spec.statistics();
        if (lookup != null) {
            lookup.cache().put(lookup.identity(ctx.strategy.buildSide()), b.statistics(build.heavyCandidateRows()));
        }
        sampleRows = p.sketchedRows();
        sampleDistinctKeys = p.distinctEstimate();
        sketches.close();
        sketches = null;
    }

    /** Gives the build-key filter's memory back, its counts taken first; idempotent. */
    private void closeKeyFilter() {
        if (keyFilter != null) {
            filterChecked = keyFilter.checked();
            filterExcludedByRange = keyFilter.excludedByRange();
            filterExcludedByBloom = keyFilter.excludedByBloom();
            keyFilter.close();
            keyFilter = null;
        }
    }

    /** Releases everything this phase still owns; idempotent. */
    @Override
    public void close() {
        if (released) {
            return;
        }
        released = true;
        try {
            spill.close();
            staging[0].close();
            closeKeyFilter();
        } finally {
            try {
                if (sketches != null) {
                    sketches.close();
                    sketches = null;
                }
            } finally {
                if (build.table() != null) {
                    build.table().close();
                }
                if (build.direct() != null) {
                    build.direct().close();
                }
            }
        }
    }
}
