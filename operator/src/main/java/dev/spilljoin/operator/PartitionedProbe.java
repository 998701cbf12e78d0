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
import dev.spilljoin.operator.table.FinishRanges;
import dev.spilljoin.operator.table.FinishScan;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The probe pass of the hybrid hash join, run by one or more {@link ProbeWorker}s, each taking a probe batch (a
 * morsel) at a time: each probe batch is hashed once; rows the build-key filter rules out
 * ({@link BuildKeyFilter}, while it pays) are joined at once as misses, without a table lookup or a spill; rows
 * whose level-0 partition stayed resident are probed at once against the resident table ({@link HashProbe},
 * batched, or {@link DirectIndexProbe} when the build chose the direct-index table); rows of spilled partitions are serialized in the probe side's {@link dev.spilljoin.operator.row.RowLayout} (their hash H stored
 * with variable-width rows, recomputed from a fixed-width row's key) into a staging arena and encoded from there into their partition's probe spill file
 * ({@link dev.spilljoin.operator.row.SpillRowFormat}), to be joined with the partition's build rows later ({@link SpilledPairs}). NULL-key
 * probe rows never enter a partition: the resident probe emits (pads) or drops them at once, as the join type says.
 *
 * <p>Rows whose hash is one of the build's accepted heavy keys ({@link BuildOutput#heavyKeys()}) go to the
 * heavy partition's probe file whatever their level-0 partition. While some partition spilled, every
 * {@value JoinSketches#PROBE_EVERY_KTH_BATCH}th batch's hashes feed the probe-side sample sketch; with none spilled
 * (readmission took every spilled partition back) there is no sample: its figures are only reported, and it would
 * make every probe row hashed, which the direct-index table's probe alone does not need.
 *
 * <p>After the probe input ends ({@link #endOfInput}), the FINISH pass emits the resident table's build rows by their
 * MATCHED flags ({@link #fillResident}; {@link BuildRowScan} or, for a direct-index table, {@link DirectIndexScan}) on
 * up to {@link JoinConfig#threads()} workers ({@link #finishWorkers}): the table is cut into disjoint ranges
 * ({@link FinishRanges}) and each worker takes the next range not yet taken (an atomic counter) and scans it into its
 * own result batch, keeping its own place in its range when the batch is full. The pass holds no memory of the
 * budget (result batches are on the heap), so it may run more workers than the probe's staging held. With one worker
 * there is one range: the whole table in storage order. {@link #finish} hands the spilled pairs on to
 * {@link SpilledPairs}.
 *
 * <p>Ownership: everything {@link PartitionedBuild#finish} handed over ({@link BuildOutput}): the resident table
 * (holding the resident rows; freed by {@link #finish}), the probe spill writer and its writer share, the key filter and the sketches
 * (all three closed at the end of the input, once their figures are taken for its report), plus its workers (each
 * with its staging arena in its share of the memory the build left).
 *
 * <p>Workers: the resident table, the filter and the heavy keys are read-only during the pass (MATCHED marks are
 * idempotent writes safe between workers); the spill writer is shared, each partition's file under a lock of
 * its own ({@link #spillStaged}), as is the probe sample unless each worker has one of its own ({@link #sketch},
 * {@link JoinSketches#splitProbe}); every count is a worker's own, summed at the end of the input, which
 * the caller calls only after every worker stopped. That is the FINISH pass's barrier: every probe worker has stopped
 * (its helper thread joined, or every push returned before the probe side's end) before {@link #endOfInput}, and the
 * FINISH pass's workers start after it, so every MATCHED mark is set and visible before any range is scanned; the
 * ranges only read the table.
 *
 * <p>Invariants: a deferred row is neither probed nor emitted now (the {@code deferred} mask of
 * {@link HashProbe.RowMasks}); the probe writers' memory is the share the build set aside, one writer per spilled
 * partition, each taking its share at once ({@link ReservedSpillWriter}); the staging pages were left free by the
 * build, and each worker's stay within its own share of them (a child reservation with a limit).
 */
final class PartitionedProbe implements JoinPhase {
    private final JoinContext ctx;
    private final BuildOutput build;
    private final int bits;
    private final boolean anySpilled;
    private final SpillFile[] files;
    /** Owned: the probe spill writer and its writer share (closed at the end of the input); workers lock it. */
    private final ReservedSpillWriter spill;
    /** Owned: the workers (each with its own probe, arrays and staging arena), made up front. */
    private final ProbeWorker[] workers;
    /** Owned: the build keys' filter, null once closed. */
    private BuildKeyFilter keyFilter;
    /** Workers still asking the filter; it is closed when none is left (its memory goes back at once). */
    private int filterUsers;
    /** Owned: the key sketches, null once closed. */
    private JoinSketches sketches;
    /** Whether the probe rows feed the sketches' probe sample ({@link #samples}). */
    private final boolean sampling;
    private long spilledBytes;
    private EstimatesVsActuals estimates;
    private long sampleRows;
    private long sampleDistinctKeys;
    /** The FINISH pass's ranges (made at the end of the input) and the next range no worker took yet. */
    private FinishRanges finishRanges;
    private final AtomicInteger nextRange = new AtomicInteger();
    /** Per FINISH worker: the range it is scanning (its place kept while its result batch is handed out), or null. */
    private FinishScan[] finishScans;
    /** Set when the resident rows were freed and the pairs handed on (or the phase closed). */
    private boolean released;

    /**
     * The pass over {@code build}'s output with up to {@code maxWorkers} workers: as many as the memory the build left
     * free holds staging pages for ({@link SpillSizing#stagingBytes}; the build leaves room for one at least). Each worker's
     * staging draws from its own equal share of that memory (a child reservation with a limit), so a worker can
     * never take the bytes a spill writer is about to reserve.
     */
    PartitionedProbe(JoinContext ctx, BuildOutput build, int maxWorkers) {
        this.ctx = ctx;
        this.build = build;
        this.bits = build.fanoutLog2();
        boolean anyPartitionSpilled = false;
        for (int p = 0; p < (1 << bits); p++) {
            anyPartitionSpilled |= build.spilled()[p];
        }
        this.anySpilled = anyPartitionSpilled || build.heavyKeyCount() > 0;
        this.files = new SpillFile[(1 << bits) + 1];
        this.spill = build.probeWriter();
        this.keyFilter = build.keyFilter();
        this.sketches = build.sketches();
        this.sampling = sketches != null && anySpilled;
        long free = ctx.memory.headroom();
        int count = (int) Math.max(1, Math.min(maxWorkers, free / ctx.sizing.stagingBytes()));
        if (sampling) {
            sketches.splitProbe(count, free - count * ctx.sizing.stagingBytes());
            free = ctx.memory.headroom();
        }
        this.workers = new ProbeWorker[count];
        this.filterUsers = keyFilter == null ? 0 : count;
        for (int w = 0; w < count; w++) {
            MemoryReservation share = ctx.memory.newChild("probe-worker-" + w, Math.max(1, free / count));
            this.workers[w] = new ProbeWorker(this, w, ctx, build, keyFilter, share);
        }
    }

    /** The workers: each probes one batch at a time, on one thread at a time. */
    ProbeWorker worker(int index) {
        return workers[index];
    }

    int workerCount() {
        return workers.length;
    }

    boolean anySpilled() {
        return anySpilled;
    }

    /** Whether the pass feeds a probe-side sample (with sketches, while some partition spilled). */
    boolean samples() {
        return sampling;
    }

    /**
     * Feeds worker {@code worker}'s batch of {@code n} hashes (the rows with a bit in {@code nullKeys} have a NULL key;
     * null: none) to its probe-side sample, which samples batches (its own, or the one shared: then locked per batch).
     */
    void sketch(int worker, long[] hashes, long[] nullKeys, int n) {
        if (sampling) {
            KeySketches sketch = sketches.probePart(worker);
            synchronized (sketch) { // uncontended unless the workers share it
                sketch.update(hashes, nullKeys, n, 0);
            }
        }
    }

    /**
     * Encodes a worker's staged rows ({@code m} of them: batch rows {@code rows}, at {@code addresses}) into the
     * probe files of their partitions ({@code partitionOfRow} by batch row) in the worker's {@code order}
     * ({@link ReservedSpillWriter#spillStaged}).
     */
    void spillStaged(StagedSpillOrder order, int[] partitionOfRow, int[] rows, long[] addresses, int m)
            throws IOException {
        spill.spillStaged(order, partitionOfRow, rows, addresses, m, null);
    }

    /** A new worker's order of its staged rows: worker {@code index} of the pass's workers. */
    StagedSpillOrder spillOrder(int index) {
        return spill.orderFor(index, workers.length);
    }

    /** A worker stopped asking the filter: the last one to stop gives its memory back. */
    synchronized void stoppedAskingFilter() {
        if (--filterUsers == 0) {
            closeKeyFilter();
        }
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
        int workerBuffers = spill.workerBuffers();
        int workerBuffersRefused = spill.workerBuffersRefused();
        closeWorkers();
        spill.close();
        closeKeyFilter();
        takeEstimates();
        boolean probeEmpty = probeRows() == 0;
        boolean probeHasNullKey = probeNullKeyRows() > 0;
        int threads = ctx.config.threads();
        finishRanges = build.direct() != null
                ? FinishRanges.of(build.direct(), ctx.strategy.finish(), probeEmpty, probeHasNullKey, threads)
                : FinishRanges.of(build.table(), ctx.strategy.finish(), probeEmpty, probeHasNullKey, threads);
        finishScans = new FinishScan[finishWorkers()];
        long checked = 0;
        long byRange = 0;
        long byBloom = 0;
        for (ProbeWorker w : workers) {
            checked += w.filterChecks().checked();
            byRange += w.filterChecks().excludedByRange();
            byBloom += w.filterChecks().excludedByBloom();
        }
        return new ProbeReport(probeRows(), spilledBytes, checked, byRange, byBloom, estimates, sampleRows,
                sampleDistinctKeys, workerBuffers, workerBuffersRefused);
    }

    /** What the build pass reported (handed over with its output). */
    BuildReport buildReport() {
        return build.report();
    }

    /** The join-wide input facts (after {@link #endOfInput}). */
    InputTotals totals() {
        return new InputTotals(build.rows(), build.nullKeyRows(), probeRows(), probeNullKeyRows());
    }

    private long probeRows() {
        long rows = 0;
        for (ProbeWorker w : workers) {
            rows += w.probe().probeRows();
        }
        return rows;
    }

    private long probeNullKeyRows() {
        long rows = 0;
        for (ProbeWorker w : workers) {
            rows += w.probe().probeNullKeyRows();
        }
        return rows;
    }

    private void closeWorkers() {
        for (ProbeWorker w : workers) {
            w.close();
        }
    }

    /**
     * The FINISH pass's workers (after {@link #endOfInput}): up to the join's threads, no more than there are ranges,
     * at least one.
     */
    int finishWorkers() {
        return Math.max(1, Math.min(ctx.config.threads(), finishRanges.count()));
    }

    /**
     * FINISH worker {@code worker}'s share of the pass over the resident table (after {@link #endOfInput}; one thread
     * per worker): scans ranges no worker took yet into {@code out}, emitting their build rows by their MATCHED flags;
     * true when no range is left, false when {@code out} is full (call again: the worker goes on where it stopped).
     */
    boolean fillResident(int worker, OutputWriter out) {
        FinishScan scan = finishScans[worker];
        while (true) {
            if (scan == null) {
                int range = nextRange.getAndIncrement();
                if (range >= finishRanges.count()) {
                    out.materialize(null);
                    return true;
                }
                ctx.checkCancelled();
                scan = finishRanges.scan(range);
                finishScans[worker] = scan;
            }
            boolean done = scan.fill(out);
            out.materialize(null);
            if (!done) {
                return false;
            }
            scan = null;
            finishScans[worker] = null;
        }
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
        return new SpilledPairs(ctx, pairs, totals, ctx.config.threads());
    }

    /**
     * The estimates against the build's rows and bytes as counted and, with sketches, its distinct keys (unknown
     * without); takes the sketches' figures (and stores the build's statistics in the cache) and closes them.
     */
    private void takeEstimates() {
        BuildSideChoice choice = ctx.choice;
        KeySketches b = sketches == null ? null : sketches.build;
        estimates = new EstimatesVsActuals(choice.estimateSource(), choice.hintRows(), build.rows(),
                choice.hintBytes(), build.rowBytes(), choice.estimatedDistinctKeys(),
                b == null ? EstimatesVsActuals.UNKNOWN : b.distinctEstimate());
        if (b == null) {
            return;
        }
        sketches.mergeProbeParts();
        KeySketches p = sketches.probe;
        StatisticsLookup lookup = ctx.spec.statistics();
        if (lookup != null) {
            lookup.cache().put(lookup.identity(ctx.strategy.buildSide()), b.statistics(build.heavyCandidateRows()));
        }
        sampleRows = p.sketchedRows();
        sampleDistinctKeys = p.distinctEstimate();
        sketches.close();
        sketches = null;
    }

    /** Gives the build-key filter's memory back (no worker may read it afterwards); idempotent. */
    private void closeKeyFilter() {
        if (keyFilter != null) {
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
            closeWorkers();
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
