package dev.spilljoin.operator;

import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.operator.table.ThreadCpu;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillCounters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;

/**
 * The hybrid (Grace) hash join of two inputs of any size under a memory budget, for every {@link JoinType}; the
 * in-memory join is simply the case where nothing spills.
 *
 * <p>Phases ({@link Phase}):
 * <pre>
 * CREATED ─ choose build side ─▶ BUILD ─▶ PROBE ─▶ FINISH ─▶ JOIN_SPILLED ─▶ DONE      (CLOSED from any phase)
 * </pre>
 * BUILD ({@link PartitionedBuild}) partitions the build side by h1 into 2^k partitions (k from the estimator's
 * partition planner, fed the size hints or cached statistics: {@link SpillSizing}); partitions stay resident until
 * a reservation is refused, then the largest spills (partition 0 last). PROBE ({@link PartitionedProbe}) probes
 * rows of resident partitions at once and spills the others' beside their build rows. FINISH emits the resident
 * build rows by their MATCHED flags ({@link dev.spilljoin.operator.table.FinishRanges}) and frees them. JOIN_SPILLED ({@link SpilledPairs}) joins
 * each spilled pair with its own table (on the smaller of its two files: role reversal), re-partitioning with the
 * next level's h1 what does not fit and sending what will not split to the nested-loop path
 * ({@link HeavyHitterNestedLoop}). The build side is chosen by {@link BuildSideChoice}; the join type is mapped to
 * that orientation by {@link dev.spilljoin.operator.table.JoinStrategy}.
 *
 * <p>Ownership: each phase is an object ({@link JoinPhase}) that owns what it creates and what it is handed, and
 * hands what outlives it to the next phase in one call ({@code PartitionedBuild.finish} returns the
 * {@code PartitionedProbe}, which owns the table, the key filter, the sketches and the writer share from then on;
 * {@code PartitionedProbe.finish} returns the {@code SpilledPairs}). The join holds only the current phase, the
 * shared {@link JoinContext} (which owns the spill space) and its result batch.
 *
 * <p>Estimates ({@link JoinSketches}): when the budget holds them beside the minimum, key sketches are
 * reserved first and fed the hashes each pass computes anyway: every build batch, every 8th probe batch. While
 * partitioning, keys the sketch finds heavy and the partition planner expects to overflow their partition go to
 * their own pair (see {@link PartitionedBuild}), which never re-partitions. With a {@link StatisticsLookup} in the
 * spec, each input's statistics are looked up first: a hit replaces the size hints (build side, the planner's
 * fanout) and the known heavy keys the planner routes go to that pair from the first row; after the probe pass the
 * build side's measured statistics are stored. The stats show the estimates beside the actuals, and the planner's
 * fanout per level and resident partitions beside what ran.
 *
 * <p>Three ways to drive it: {@link #run} pushes results to a sink; {@link #iterator} pulls result batches; and
 * engines that drive their operators call {@link #start} (which says the side to push first), {@link #push} and
 * {@link #endOfInput}.
 *
 * <p>Workers ({@link JoinConfig#threads()}, morsel-driven): with N ≥ 2 the build pass, the probe pass, the FINISH
 * scan and the spilled pairs run on N workers, a batch (a range of the resident table, a spilled pair) at a time.
 * Pulled, the caller's thread is worker 0 and reads the sources; N − 1 helper threads ({@link WorkerRun}) take copies
 * of the batches it offers them, or read for themselves from sources that hand out
 * {@linkplain BatchSource#concurrentReader() concurrent readers}, and hand their result batches back through a bounded
 * queue, or, given a thread-safe sink ({@link #run}), call it themselves; given both, the caller works as the helpers
 * do, the probe pass in their loop and its share of a later phase in one step, its full batches to the sink (no pull
 * step per result batch). Pushed, up to N threads may call
 * {@link #push} at once, each on a worker of its own; the FINISH scan and the spilled pairs run within the probe
 * side's {@link #endOfInput}, its thread worker 0 and helper threads handing it their result batches (or calling a
 * thread-safe sink themselves), as pulled. The sink is called one thread at a time unless it is
 * {@link BatchSink#isThreadSafe()}. The FINISH scan starts only after every probe worker stopped (helpers joined;
 * every push returned before the probe side's end), so it reads every MATCHED mark. Result rows come in no particular order. Every worker draws from the one budget
 * (build workers fill pages of their own; probe workers stage in their share of what the build left; pair workers
 * join in an even share); the join runs fewer workers when the budget holds fewer
 * ({@link #minimumBudget(JoinConfig, int)}, {@link JoinStats#threadsUsed()}), and the build and probe passes of a
 * pulled join over inputs expected small run one per {@link JoinConfig#rowsPerWorker()} rows. The first failure of any worker is
 * rethrown on the calling thread after every helper ended; {@link #close()} from any thread first stops them.
 *
 * <p>Memory: every off-heap byte (row pages, tables, spill buffers, reader windows) is reserved
 * from the join's reservation before it exists; peak reserved ≤ budget, always. A budget below the join's minimum
 * ({@link SpillSizing}) fails at construction naming the minimum. Cancellation ({@link #cancel()} or a thread
 * interrupt) is checked at every batch and spill block boundary and ends in a
 * {@link java.util.concurrent.CancellationException}. On any failure, as on {@link #close()}, the join releases
 * every byte and deletes its spill directory; close is idempotent and valid in any phase.
 */
public final class HashJoin implements AutoCloseable {
    /** How long the caller's thread, idle in a shared phase, waits for a helper's result batch before looking again. */
    private static final long IDLE_WAIT_MILLIS = 2;


    /** The join's phases, in order. */
    enum Phase {
        /** Nothing read yet; the build side is not chosen. */
        CREATED,
        /** Reading the build side into partitions, resident or spilled. */
        BUILD,
        /** The resident table is built; streaming the probe side (spilling rows of spilled partitions). */
        PROBE,
        /** The probe side ended; emitting resident build rows by their flags. */
        FINISH,
        /** Joining the spilled partition pairs. */
        JOIN_SPILLED,
        /** Every result row was handed out. */
        DONE,
        /** Closed: every byte released, every spill file deleted. */
        CLOSED
    }

    private final JoinSpec spec;
    /** The result batches' schema ({@link JoinSpec#outputSchema}), made once: every result batch writer takes it. */
    private final Schema outputSchema;
    /** The test-only fault points ({@link JoinFaults#NONE} outside tests). */
    private final JoinFaults faults;
    private final MemoryReservation memory;
    /** The report: the join folds each phase's figures into it when the phase ends (see {@link JoinStats}). */
    private final JoinStats stats = new JoinStats();
    // The join's own counts, folded into the stats whenever they are asked for (added to by concurrent pushes).
    private final PhaseTimes times = new PhaseTimes();
    // Added to once a result batch, by every worker that calls a thread-safe sink: an atomic add is one locked
    // instruction, where a LongAdder's first contention takes a branch its compiled callers never saw, so the
    // JIT threw away and recompiled the workers' hand-off in whichever join two workers first collided.
    private final AtomicLong outputRows = new AtomicLong();
    private final AtomicLong outputBatches = new AtomicLong();
    /** Whether the spilled-pairs phase's counters are in the stats (folded once, when that phase ends). */
    private boolean pairsRecorded;
    private long cacheHits;
    private long cacheMisses;
    private int buildThreads = 1;
    private int probeThreads = 1;
    private int finishThreads = 1;
    private int pairsThreads = 1;
    private volatile Phase phase = Phase.CREATED;
    /**
     * What the phases share; owns the spill space (closed last). Null before the build side is chosen. Volatile:
     * {@link #cancel()} and {@link #deleteSpillFilesBeforeExit()} read it from other threads.
     */
    private volatile JoinContext ctx;
    /**
     * The current phase object, sole owner of every other byte the join holds: a {@link PartitionedBuild} in BUILD,
     * a {@link PartitionedProbe} in PROBE and FINISH, {@link SpilledPairs} in JOIN_SPILLED (and DONE).
     */
    private volatile JoinPhase current;
    /** The result batch being filled (on-heap; the join's own, handed out until the next call). */
    private OutputWriter output;
    private boolean probeInProgress;
    /**
     * With probe helpers: the caller's own copy of the probe batch it works on, so that it can read the source for
     * the helpers meanwhile ({@link #feedProbeHelpers}; a source's batch is valid only until its next call).
     */
    private Batch ownProbeBatch;
    /** The calling thread's CPU time at the last phase change it ran (see {@link #markCallerCpu}). */
    private long callerCpuMark;
    /** Whether the probe source returned its end (it is not asked again). */
    private boolean probeInputEnded;
    /** Whether worker 0 (the caller) found no work left in the current {@link #sharedStep} phase. */
    private boolean callerDone;
    private boolean outputHandedOut;
    /** The workers of the parallel phase a pulled join is in, or null (see {@link WorkerRun}). */
    private volatile WorkerRun run;
    private BatchSink pushSink;
    /** The probe input's rows as hinted or cached (-1: unknown, or pushed), which size the probe pass's workers. */
    private long expectedProbeRows = -1;
    /**
     * A thread-safe sink (run's or push's) that helper threads call with their result batches themselves, or null:
     * they hand them to the caller's thread.
     */
    private BatchSink helperSink;
    /** Pushed batches: each pushing thread takes a worker of the phase (and, probing, its result batch) from here. */
    private volatile ArrayBlockingQueue<Integer> freePushWorkers;
    private OutputWriter[] pushWriters;
    /** Serializes sink calls when the sink is not thread-safe. */
    private final Object sinkLock = new Object();
    private final Object closeLock = new Object();
    /** Threads inside a call of this join: {@link #close()} from another thread waits for them to leave. */
    private final Set<Thread> activeCallers = ConcurrentHashMap.newKeySet();
    /**
     * Set by {@link #close()} before it looks for running calls; a call that registered itself in
     * {@link #activeCallers} and then finds it set refuses to run. (Each side writes its own mark before reading the
     * other's, so a call either is seen and waited for, or sees the close.)
     */
    private volatile boolean closing;
    private volatile boolean cancelRequested;
    private volatile boolean deleteSpillBeforeExitRequested;

    private HashJoin(JoinSpec spec, JoinFaults faults) {
        this.spec = spec;
        this.outputSchema = spec.outputSchema();
        this.faults = faults;
        this.memory = spec.reservation() != null
                ? spec.reservation().newChild("hash-join")
                : MemoryReservation.root("hash-join", spec.budgetBytes());
        stats.recordStart(spec.joinType().name(), memory.limit());
        long minimum = SpillSizing.absoluteMinimum(spec.config());
        if (memory.limit() < minimum) {
            memory.close();
            throw new IllegalArgumentException("hash join: the memory budget of " + ByteSize.format(memory.limit())
                    + " (" + memory.limit() + " bytes) is below this join's minimum of " + ByteSize.format(minimum)
                    + " (" + minimum + " bytes: spill writers for its partitions, a row page and a table); give it at"
                    + " least " + ByteSize.format(minimum));
        }
    }

    public static HashJoin create(JoinSpec spec) {
        return new HashJoin(spec, JoinFaults.NONE);
    }

    /** A join with the test-only fault points {@code faults} bound (tests only). */
    static HashJoin create(JoinSpec spec, JoinFaults faults) {
        return new HashJoin(spec, faults);
    }

    /**
     * The smallest budget a join with {@code config} accepts (automatic sizing at its smallest); it then runs every
     * phase on one worker whatever {@link JoinConfig#threads()} says.
     */
    public static long minimumBudget(JoinConfig config) {
        return SpillSizing.absoluteMinimum(config);
    }

    /**
     * The smallest budget at which a join with {@code config} runs {@code threads} workers in every parallel phase:
     * the budget is split evenly between the spilled-pairs workers, each of which needs a pair worker's minimum
     * ({@link SpillSizing#pairWorkerMinimum}: readers, writers, a page and a table for one block), and the build leaves
     * two row pages of staging per probe worker beside the join's layout; so the minimum grows about linearly with
     * {@code threads}. Tried upwards from {@link #minimumBudget(JoinConfig)} in steps of 1/64. Below it the join still
     * runs, with fewer workers ({@link JoinStats#threadsUsed()}).
     */
    public static long minimumBudget(JoinConfig config, int threads) {
        long minimum = SpillSizing.absoluteMinimum(config);
        if (threads <= 1) {
            return minimum;
        }
        JoinConfig withThreads = config.toBuilder().threads(threads).build();
        return smallestBudget(minimum, budget -> {
            SpillSizing layout = SpillSizing.choose(withThreads, budget, budget, null, 8);
            return layout.pairWorkerMinimum(withThreads) * threads <= budget
                    && layout.minimumBudget() + layout.stagingBytes() * threads <= budget;
        });
    }

    /** The first budget from {@code minimum} up, in steps of 1/64 (whole kilobytes), that {@code holds}. */
    private static long smallestBudget(long minimum, LongPredicate holds) {
        long budget = minimum;
        while (!holds.test(budget)) {
            budget += Math.max(1024, budget / 64) & ~1023L;
        }
        return budget;
    }

    /**
     * The smallest budget whose sizing holds rows of {@code rowBytes} (in the join's row format) in every phase, as
     * {@link RowTooLargeException} names it. Per budget {@code B} (tried upwards from the minimum in steps of 1/64):
     * the sketches and the key filter (at most an eighth of what is left beside them and the minimum) as the join
     * reserves them, the partitioning's layout for the rest ({@link SpillSizing#choose}, nothing known of the
     * input) and its minimum {@code M}; then while partitioning and probing, {@code sketches + filter + M} beside two
     * such rows per worker ({@link JoinConfig#threads()}: each may hold a resident build row and a probe row staged
     * for spilling at once), and in the pair phase {@code M} beside five (the block buffers of its two readers, the
     * row's page in the pair's or nested-loop chunk's pages and its compact copy in their table, and the nested
     * loop's scratch copy of a probe row: fewer workers take pairs when their shares cannot hold that).
     */
    public static long budgetForRow(JoinConfig config, long rowBytes) {
        long minimum = SpillSizing.absoluteMinimum(config);
        long row = rowBytes + 64; // with a spill block's header and the encoding's alignment
        return smallestBudget(minimum, budget -> {
            long sketches = budget - minimum >= JoinSketches.memoryBytes() ? JoinSketches.memoryBytes() : 0;
            long filter = Long.highestOneBit(Math.max(1, (budget - minimum - sketches) / 8));
            long partitioning = budget - sketches - filter;
            if (partitioning < minimum) {
                return false;
            }
            long layout = SpillSizing.choose(config, partitioning, budget, null, 8).minimumBudget();
            return sketches + filter + layout + 2 * row * config.threads() <= budget && layout + 5 * row <= budget;
        });
    }

    public Schema outputSchema() {
        return outputSchema;
    }

    public JoinStats stats() {
        recordRun();
        return stats;
    }

    private void recordRun() {
        stats.recordRun(outputRows.get(), outputBatches.get(), times, memory.peakReserved());
        stats.recordThreads(spec.config().threads(), buildThreads, probeThreads, finishThreads, pairsThreads);
    }

    /**
     * Bytes written to spill files so far (block headers included) and spill files created so far, read live from
     * the join's spill space (any thread, while the join runs; 0 and 0 before anything spilled). For progress
     * displays: {@link #stats()} is the report, assembled as each phase ends.
     */
    public SpillProgress spillProgress() {
        JoinContext c = ctx;
        SpillCounters counters = c == null ? null : c.spillCountersIfSpilled();
        return counters == null ? SpillProgress.NONE
                : new SpillProgress(counters.bytesWritten(), counters.filesCreated());
    }

    /** What {@link #spillProgress()} reads: bytes written to spill files and files created so far. */
    public record SpillProgress(long bytesWritten, long filesCreated) {
        static final SpillProgress NONE = new SpillProgress(0, 0);
    }

    /** The reservation the join draws from (for callers that watch memory). */
    public MemoryReservation memory() {
        return memory;
    }

    /**
     * Asks the join to stop (any thread): the running call throws a {@link java.util.concurrent.CancellationException}
     * at its next batch or block boundary (an input batch, a spill block, or a result batch, so also within one batch
     * whose rows match many times over), after releasing the join's memory and files.
     */
    public void cancel() {
        cancelRequested = true;
        JoinContext c = ctx;
        if (c != null) {
            c.cancel();
        }
    }

    /**
     * For a process about to exit on a signal (any thread): cancels the join and deletes its spill files at once,
     * without waiting for the running call to stop; files still mapped or open are unlinked, their disk space goes
     * when the process exits. The running call then fails; the process must exit.
     */
    public void deleteSpillFilesBeforeExit() {
        cancel();
        deleteSpillBeforeExitRequested = true;
        JoinContext c = ctx;
        if (c != null) {
            c.deleteSpillBeforeExit();
        }
    }

    // ------------------------------------------------------------------ pull and push over sources

    /**
     * Joins {@code left} and {@code right}, pushing every result batch to {@code sink}. With several workers, a
     * thread-safe sink is called by every worker with the batches it makes; any other sink on the calling thread
     * only. Sources that hand out {@linkplain BatchSource#concurrentReader() concurrent readers} are read by every
     * worker; any other source on the calling thread only.
     */
    public void run(BatchSource left, BatchSource right, BatchSink sink) {
        helperSink = helperSinkOf(sink);
        Iterator<Batch> results = iterator(left, right);
        while (results.hasNext()) {
            sink.accept(results.next());
        }
    }

    /**
     * Result batches, pulled: reads the build side at the first {@code hasNext()}, then the probe side batch by batch
     * as results are pulled, then the spilled pairs. A returned batch is valid until the next call. With several
     * workers, sources that hand out {@linkplain BatchSource#concurrentReader() concurrent readers} are read by
     * every worker; the result batches all come out through the iterator. A source batch without its side's column
     * types ({@link JoinSpec#schema}) fails the join ({@link IllegalArgumentException}).
     */
    public Iterator<Batch> iterator(BatchSource left, BatchSource right) {
        callerCpuMark = ThreadCpu.now();
        Side build = guarded(() -> beginJoin(left.sizeHintBytes(), left.sizeHintRows(), right.sizeHintBytes(),
                right.sizeHintRows()));
        BatchSource checkedLeft = InputBatchCheck.checked(left, Side.LEFT, spec.schema(Side.LEFT));
        BatchSource checkedRight = InputBatchCheck.checked(right, Side.RIGHT, spec.schema(Side.RIGHT));
        BatchSource buildSource = build == Side.LEFT ? checkedLeft : checkedRight;
        BatchSource probeSource = build == Side.LEFT ? checkedRight : checkedLeft;
        return new Iterator<>() {
            private Batch next;
            private boolean fetched;

            @Override
            public boolean hasNext() {
                if (!fetched) {
                    next = guarded(() -> nextOutput(buildSource, probeSource));
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

    private Batch nextOutput(BatchSource buildSource, BatchSource probeSource) throws IOException {
        recycleHandedOut();
        while (true) {
            switch (phase) {
                case BUILD -> {
                    long t = System.nanoTime();
                    buildFrom(buildSource);
                    finishBuild();
                    times.build.addWallSince(t);
                    markCallerCpu(times.build);
                }
                case PROBE -> {
                    long t = System.nanoTime();
                    try {
                        Batch out = probeStep(probeSource);
                        if (out != null) {
                            return out;
                        }
                    } finally {
                        times.probe.addWallSince(t);
                    }
                }
                case FINISH, JOIN_SPILLED -> {
                    Batch out = nextAfterProbe();
                    if (out != null) {
                        return out;
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

    /**
     * The build pass over {@code buildSource}: the caller is worker 0 and, with more than one worker, offers batches
     * to helper threads while they would wait (as the probe pass does); the helpers have ended when it returns.
     */
    private void buildFrom(BatchSource buildSource) throws IOException {
        PartitionedBuild build = building();
        BuildWorker caller = build.worker(0);
        if (build.workerCount() > 1) {
            run = new WorkerRun(ctx, "build", build.workerCount() - 1,
                    helperInput(buildSource, build.workerCount() - 1, spec.schema(ctx.strategy.buildSide())),
                    WorkerRun.Output.NONE, (w, r) -> buildWorker(w, build.worker(w), r));
        }
        for (Batch b = buildSource.next(); b != null; b = buildSource.next()) {
            if (run == null || run.helpersReadOwnInput() || !run.offer(b)) {
                caller.add(b);
            }
            if (run != null) {
                run.pollFull(); // rethrows a helper's failure
            }
        }
        if (run != null) {
            run.endInput();
            run.next(); // waits for the helpers to end
            endRun(times.build);
        }
    }

    /** A build helper's thread: routes its input batches until the input ends. */
    private static void buildWorker(int w, BuildWorker worker, WorkerRun run) throws IOException,
            InterruptedException {
        for (Batch b = run.nextInput(w); b != null; b = run.nextInput(w)) {
            worker.add(b);
            run.recycle(b);
        }
    }

    /**
     * The input of {@code helpers} helper threads reading {@code source}: readers of their own when the source hands
     * them out (the caller's being {@code source} itself), else copies of the batches the caller offers
     * ({@code schema}'s).
     */
    private static WorkerRun.Input helperInput(BatchSource source, int helpers, Schema schema) {
        BatchSource[] readers = new BatchSource[helpers + 1];
        readers[0] = source;
        for (int i = 1; i <= helpers; i++) {
            readers[i] = source.concurrentReader();
            if (readers[i] == null) {
                return WorkerRun.Input.offered(schema); // the readers made so far have read nothing
            }
        }
        return WorkerRun.Input.read(readers);
    }

    /** Clears the result batch handed out at the previous call (a worker run recycles its own). */
    private void recycleHandedOut() {
        if (outputHandedOut) {
            output.clear();
            outputHandedOut = false;
        }
    }

    /**
     * One step of the probe pass on the caller's thread, worker 0: a full result batch, or null (call again). With
     * helper threads (more than one worker), every step first tops up the helpers' input from the source, then hands
     * out a helper's full batch if one is ready, and only then works on a batch of its own (a copy, so that the
     * source can be read for the helpers meanwhile).
     */
    private Batch probeStep(BatchSource probeSource) throws IOException {
        ProbeWorker worker = probing().worker(0);
        WorkerRun helpers = probeHelpers(probeSource);
        if (helpers != null && helperSink != null && helpers.helpersReadOwnInput()) {
            return probeAsWorker(worker, helpers);
        }
        if (helpers != null) {
            feedProbeHelpers(probeSource, helpers); // first, so that no helper waits for input
            OutputWriter full = helpers.pollFull(); // then, so that no helper waits for a free result batch
            if (full != null) {
                return handOut(full);
            }
        }
        if (probeInProgress) {
            TableProbe p = worker.probe();
            boolean done = p.fill(output);
            output.materialize(p.batch());
            probeInProgress = !done;
            return output.isFull() ? handOut() : null;
        }
        Batch b = probeInputEnded ? null : probeSource.next();
        if (b == null) {
            probeInputEnded = true;
            return helpers == null ? finishProbe() : drainProbeHelpers(helpers);
        }
        if (helpers == null || helpers.helpersReadOwnInput()) {
            worker.start(b);
            probeInProgress = true;
        } else if (!helpers.offer(b)) {
            if (ownProbeBatch == null) {
                ownProbeBatch = new Batch(ctx.probeSchema, b.rowCount());
            }
            ownProbeBatch.copyFrom(b);
            worker.start(ownProbeBatch);
            probeInProgress = true;
        }
        return null;
    }

    /**
     * Tops up the probe helpers' input from the source while they want more, before the caller works on a batch of
     * its own: a result batch of its own takes a call of {@link #probeStep} each, and helpers left without input
     * meanwhile sat idle, waiting for input.
     */
    private void feedProbeHelpers(BatchSource probeSource, WorkerRun helpers) {
        while (!probeInputEnded && helpers.wantInput()) {
            Batch b = probeSource.next();
            if (b == null) {
                probeInputEnded = true;
            } else if (!helpers.offer(b)) {
                throw new IllegalStateException("probe helpers refused a batch they asked for");
            }
        }
    }

    /**
     * The probe pass's helper threads (workers 1..) reading {@code probeSource}, started at the first probe step;
     * null with one worker.
     */
    private WorkerRun probeHelpers(BatchSource probeSource) {
        PartitionedProbe probe = probing();
        if (probe.workerCount() > 1 && run == null) {
            int helpers = probe.workerCount() - 1;
            run = new WorkerRun(ctx, "probe", helpers, helperInput(probeSource, helpers, ctx.probeSchema),
                    helperOutput(), (w, r) -> probeWorker(w, probe.worker(w), r));
        }
        return run;
    }

    /** Where helper threads' result batches go: to {@link #helperSink} if there is one, else to the caller. */
    private WorkerRun.Output helperOutput() {
        return new WorkerRun.Output(this::newOutputWriter, helperSink);
    }

    /**
     * The sink helper threads may call themselves: {@code sink} if it is thread-safe (counting the rows and batches
     * it is given), else null.
     */
    private BatchSink helperSinkOf(BatchSink sink) {
        if (!sink.isThreadSafe()) {
            return null;
        }
        return batch -> {
            outputRows.addAndGet(batch.rowCount());
            outputBatches.incrementAndGet();
            sink.accept(batch);
        };
    }

    /** The probe input ended: the helpers' last batches, then (null) the end of the pass once they all stopped. */
    private Batch drainProbeHelpers(WorkerRun helpers) throws IOException {
        helpers.endInput();
        OutputWriter full = helpers.next();
        if (full != null) {
            return handOut(full);
        }
        endRun(times.probe);
        return finishProbe();
    }

    /**
     * The whole probe pass of {@link #run} when every worker reads its own input and calls the thread-safe sink
     * itself: the caller probes as worker 0 with the helpers' loop ({@link #probeBatches}), its last rows left in
     * {@link #output}, then waits for the helpers. So no result batch takes the pull path, whose per-batch step the
     * JIT compiles as one large unit with all it calls, and compiles again whenever a branch it saw once a join (its
     * first or last batch) is first taken in compiled code; the loop the workers share is compiled once for all.
     */
    private Batch probeAsWorker(ProbeWorker worker, WorkerRun helpers) throws IOException {
        try {
            probeBatches(0, worker, helpers, output); // with a sink, its writer stays output
        } catch (InterruptedException e) {
            throw JoinContext.interrupted();
        }
        probeInputEnded = true;
        return drainProbeHelpers(helpers);
    }

    /** A probe helper's thread: probes its input batches until the input ends. */
    private static void probeWorker(int w, ProbeWorker worker, WorkerRun run) throws IOException,
            InterruptedException {
        run.finishWith(probeBatches(w, worker, run, run.firstWriter()));
    }

    /**
     * Worker {@code w}'s probe loop: probes its input batches into {@code out} until the input ends, handing each full
     * result batch off; returns the writer that holds its last rows.
     */
    private static OutputWriter probeBatches(int w, ProbeWorker worker, WorkerRun run, OutputWriter out)
            throws IOException, InterruptedException {
        for (Batch b = run.nextInput(w); b != null; b = run.nextInput(w)) {
            worker.start(b);
            TableProbe p = worker.probe();
            while (!p.fill(out)) {
                out.materialize(b);
                out = run.handOff(out);
            }
            out.materialize(b);
            if (out.isFull()) {
                out = run.handOff(out);
            }
            run.recycle(b);
        }
        return out;
    }

    /**
     * FINISH then JOIN_SPILLED: the next full result batch, or null (call again until the phase is DONE; the rows
     * left in {@link #output} then go out). Each is a {@link #sharedStep}: the FINISH scan's workers take ranges of the
     * resident table, the spilled pairs' workers take pairs.
     */
    private Batch nextAfterProbe() throws IOException {
        if (phase == Phase.FINISH) {
            long t = System.nanoTime();
            try {
                PartitionedProbe probe = probing();
                Batch out = sharedStep("finish", probe.finishWorkers(), w -> o -> probe.fillResident(w, o),
                        times.probe);
                if (out != null) {
                    return out;
                }
                SpilledPairs pairs = probe.finish();
                current = pairs;
                pairsThreads = pairs.workerCount();
                phase = Phase.JOIN_SPILLED;
                markCallerCpu(times.probe);
            } finally {
                times.probe.addWallSince(t);
            }
        }
        long t = System.nanoTime();
        try {
            SpilledPairs pairs = (SpilledPairs) current;
            Batch out = sharedStep("pairs", pairs.workerCount(), w -> pairs.worker(w)::fill, times.pairs);
            if (out != null) {
                return out;
            }
            recordPairs();
            phase = Phase.DONE;
            ctx.endHelpers();
            markCallerCpu(times.pairs);
            return null;
        } finally {
            times.pairs.addWallSince(t);
        }
    }

    /**
     * A worker's share of a phase after the probe pass: fills a result batch; true when it found no work left, false
     * when the batch is full or, left empty, when the worker has nothing to do until other workers offer it work.
     */
    private interface WorkerShare {
        boolean fill(OutputWriter out) throws IOException;
    }

    /**
     * One step of a phase whose work {@code workers} workers share: worker 0 is the caller, filling {@link #output};
     * workers 1.. are helper threads (a {@link WorkerRun} started at the first step) filling result batches of their
     * own, which go out first while the caller still works and are drained once it found no work left. A caller with
     * nothing to do for now (its share returned an empty batch) waits up to {@link #IDLE_WAIT_MILLIS} for a helper's
     * batch to hand out, then asks its share again. In {@link #run} with a thread-safe sink, which the helpers call,
     * the caller does its whole share in one step instead, as the probe pass does ({@link #fillShareAsWorker}).
     * Returns the next full result batch, or null once every worker found no work left and every helper ended (their
     * CPU time then goes to {@code clock}).
     */
    private Batch sharedStep(String name, int workers, IntFunction<WorkerShare> shareOf, PhaseTimes.Clock clock)
            throws IOException {
        if (workers > 1 && run == null && !callerDone) {
            run = new WorkerRun(ctx, name, workers - 1, WorkerRun.Input.NONE, helperOutput(),
                    (w, r) -> fillShare(shareOf.apply(w), r));
        }
        if (run != null && helperSink != null && !callerDone) {
            fillShareAsWorker(shareOf.apply(0), run);
            callerDone = true;
        }
        while (!callerDone) {
            OutputWriter full = run == null ? null : run.pollFull();
            if (full != null) {
                return handOut(full);
            }
            if (shareOf.apply(0).fill(output)) {
                callerDone = true;
            } else if (output.rowCount() > 0 || run == null) {
                return handOut();
            } else {
                full = run.awaitFull(IDLE_WAIT_MILLIS);
                if (full != null) {
                    return handOut(full);
                }
            }
        }
        if (run != null) {
            OutputWriter full = run.next();
            if (full != null) {
                return handOut(full);
            }
            endRun(clock);
        }
        callerDone = false;
        return null;
    }

    /**
     * The caller's whole share of a {@link #sharedStep} when the helpers call the thread-safe sink: its full batches go
     * to the sink as theirs do; with nothing to do for now, it waits for the helpers a moment (no batch of theirs
     * comes: a failure of theirs is rethrown) and asks again. Its last rows stay in {@link #output}.
     */
    private void fillShareAsWorker(WorkerShare share, WorkerRun helpers) throws IOException {
        try {
            while (!share.fill(output)) {
                if (output.rowCount() > 0) {
                    helpers.handOff(output); // with a sink, returns output, cleared
                } else {
                    helpers.awaitFull(IDLE_WAIT_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            throw JoinContext.interrupted();
        }
    }

    /** A helper's thread in a {@link #sharedStep}: fills result batches from its share until it found no work left. */
    private static void fillShare(WorkerShare share, WorkerRun run) throws IOException, InterruptedException {
        OutputWriter out = run.firstWriter();
        while (!share.fill(out)) {
            out = run.handOff(out);
        }
        run.finishWith(out);
    }

    /**
     * Adds the calling thread's CPU time since the last mark to {@code clock} (at the end of the phase it measures;
     * pulled, the mark is set when the iterator is made, so a phase's figure includes what the caller did with the
     * result batches between calls) and sets the mark anew.
     */
    private void markCallerCpu(PhaseTimes.Clock clock) {
        long now = ThreadCpu.now();
        clock.addCpu(now - callerCpuMark);
        callerCpuMark = now;
    }

    /** Ends the current worker run: every worker thread has ended; their CPU time goes to {@code clock}. */
    private void endRun(PhaseTimes.Clock clock) {
        WorkerRun r = run;
        r.stop();
        clock.addCpu(r.workerCpuNanos());
        run = null;
    }

    /** Folds the spilled-pairs phase's counters into the stats, once (when the phase ends or the join closes). */
    private void recordPairs() {
        if (!pairsRecorded && current instanceof SpilledPairs pairs) {
            pairsRecorded = true;
            stats.recordPairs(pairs.counters());
        }
    }

    /** A result batch of the join's output (the join's own, or a worker's). */
    private OutputWriter newOutputWriter() {
        return new OutputWriter(outputSchema, spec.projection(), ctx.choice.side(), ctx.buildLayout,
                spec.config().outputBatchRows(), spec.config().outputBatchBytes());
    }

    private PartitionedBuild building() {
        return (PartitionedBuild) current;
    }

    private PartitionedProbe probing() {
        return (PartitionedProbe) current;
    }

    private Batch handOut() {
        outputHandedOut = true;
        return handOut(output);
    }

    /**
     * Counts {@code full}'s rows out and returns its batch; first throws if the join was cancelled or the caller
     * interrupted: every result batch the caller hands on is a batch boundary, also within one probe batch or block
     * whose rows match many times over.
     */
    private Batch handOut(OutputWriter full) {
        ctx.checkCancelled();
        outputRows.addAndGet(full.rowCount());
        outputBatches.incrementAndGet();
        return full.batch();
    }

    // ------------------------------------------------------------------ push form for engines

    /**
     * Starts a join that an engine drives: chooses the build side from the size hints (bytes, -1 = unknown) and
     * returns it; push that side first. Results go to {@code sink}.
     */
    public Side start(long leftSizeHintBytes, long rightSizeHintBytes, BatchSink sink) {
        this.pushSink = sink;
        this.helperSink = helperSinkOf(sink);
        return guarded(() -> beginJoin(leftSizeHintBytes, -1, rightSizeHintBytes, -1));
    }

    /**
     * Pushes one batch of {@code side}; the build side must be complete ({@link #endOfInput}) before the other. Up to
     * {@link JoinConfig#threads()} threads may push at once (more wait for a free worker): each batch is routed
     * (build side) or probed (probe side) by a worker of its own on its pushing thread. Every push of a side must have
     * returned before that side's {@link #endOfInput}. A batch must have its side's column types
     * ({@link JoinSpec#schema}); one that has not is refused ({@link IllegalArgumentException}) and the join is left
     * as it was.
     */
    public void push(Side side, Batch batch) {
        requirePushMode();
        Objects.requireNonNull(side, "push: the side is null");
        InputBatchCheck.requireMatches(side, spec.schema(side), batch);
        if (side == ctx.strategy.buildSide()) {
            requirePhase(Phase.BUILD, "push a build-side (" + side + ") batch");
            guarded(() -> {
                long t = System.nanoTime();
                long c = ThreadCpu.now();
                int w = takePushWorker();
                try {
                    building().worker(w).add(batch);
                } finally {
                    freePushWorkers.add(w);
                    times.build.addSince(t, c);
                }
                return null;
            });
            return;
        }
        if (phase != Phase.PROBE) {
            requirePhase(Phase.PROBE, "push a probe-side (" + side + ") batch"
                    + (phase == Phase.BUILD ? "; end the build side (" + ctx.strategy.buildSide() + ") first" : ""));
        }
        guarded(() -> {
            long t = System.nanoTime();
            long c = ThreadCpu.now();
            int w = takePushWorker();
            try {
                ProbeWorker worker = probing().worker(w);
                OutputWriter out = pushWriters[w];
                worker.start(batch);
                TableProbe p = worker.probe();
                while (!p.fill(out)) {
                    out.materialize(batch);
                    emitToSink(out);
                }
                out.materialize(batch);
                if (out.isFull()) {
                    emitToSink(out);
                }
            } finally {
                freePushWorkers.add(w);
                times.probe.addSince(t, c);
            }
            return null;
        });
    }

    /** The indexes of {@code workers} workers, for pushing threads to take one each. */
    private static ArrayBlockingQueue<Integer> workerPool(int workers) {
        ArrayBlockingQueue<Integer> pool = new ArrayBlockingQueue<>(workers);
        for (int w = 0; w < workers; w++) {
            pool.add(w);
        }
        return pool;
    }

    private int takePushWorker() {
        try {
            return freePushWorkers.take();
        } catch (InterruptedException e) {
            throw JoinContext.interrupted();
        }
    }

    /**
     * Ends the input of {@code side}: the build side builds the table; the probe side finishes the join, on the calling
     * thread as worker 0 of the FINISH scan and the spilled pairs (with helper threads when the join has more than one
     * worker; the calling thread alone calls the sink with every batch they make).
     */
    public void endOfInput(Side side) {
        requirePushMode();
        if (side == ctx.strategy.buildSide()) {
            requirePhase(Phase.BUILD, "end the build side (" + side + ")");
            guarded(() -> {
                long t = System.nanoTime();
                long c = ThreadCpu.now();
                finishBuild();
                times.build.addSince(t, c);
                return null;
            });
            return;
        }
        requirePhase(Phase.PROBE, "end the probe side (" + side + ")");
        guarded(() -> {
            long t = System.nanoTime();
            callerCpuMark = ThreadCpu.now();
            for (OutputWriter w : pushWriters) {
                if (w != output && w.rowCount() > 0) {
                    emitToSink(w);
                }
            }
            finishProbe();
            times.probe.addWallSince(t);
            while (phase != Phase.DONE) {
                Batch b = nextAfterProbe();
                if (b != null) {
                    sinkAccept(b);
                    recycleHandedOut();
                }
            }
            if (output.rowCount() > 0) {
                emitToSink(output);
            }
            return null;
        });
    }

    /** Hands {@code full}'s batch to the sink and clears it. */
    private void emitToSink(OutputWriter full) {
        sinkAccept(handOut(full));
        full.clear();
    }

    /** Calls the sink: concurrently if it is thread-safe, else one thread at a time. */
    private void sinkAccept(Batch batch) {
        if (pushSink.isThreadSafe()) {
            pushSink.accept(batch);
        } else {
            synchronized (sinkLock) {
                pushSink.accept(batch);
            }
        }
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

    /** A step of the join that may fail. */
    private interface Step<T> {
        T run() throws IOException;
    }

    /** Runs a step; on any failure the join closes itself (memory released, spill files deleted) and rethrows. */
    private <T> T guarded(Step<T> step) {
        Thread me = Thread.currentThread();
        activeCallers.add(me);
        if (closing) {
            activeCallers.remove(me);
            throw new IllegalStateException("the join is closed");
        }
        try {
            return step.run();
        } catch (IOException | RuntimeException | Error e) {
            Throwable first = firstFailure(e);
            closeAfterFailure(first);
            throw WorkerRun.unchecked(first);
        } finally {
            activeCallers.remove(me);
        }
    }

    /**
     * The failure a call reports when it failed with {@code callers}: a helper thread's, if one failed first (the
     * caller then only met the cancellation that failure caused), else its own.
     */
    private Throwable firstFailure(Throwable callers) {
        WorkerRun r = run;
        if (r == null) {
            return callers;
        }
        Throwable first = r.firstFailure(callers);
        if (first != callers) {
            first.addSuppressed(callers);
        }
        return first;
    }

    private void closeAfterFailure(Throwable failure) {
        try {
            close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    // ------------------------------------------------------------------ phases

    /**
     * Starts the join: chooses the build side from the size hints (-1 = unknown), replaced by the inputs' cached
     * statistics where known ({@link BuildSideChoice}), reserves and plans ({@link BuildPlan}) and begins the build
     * phase ({@link #beginBuild}); returns the build side.
     */
    private Side beginJoin(long leftBytes, long leftRows, long rightBytes, long rightRows) {
        if (phase != Phase.CREATED) {
            throw new IllegalStateException("a HashJoin runs once; it is in phase " + phase);
        }
        BuildSideChoice.InputSize left = BuildSideChoice.InputSize.of(leftBytes, leftRows, known(Side.LEFT));
        BuildSideChoice.InputSize right = BuildSideChoice.InputSize.of(rightBytes, rightRows, known(Side.RIGHT));
        BuildSideChoice choice = BuildSideChoice.choose(spec.config().buildSide(), left, right);
        expectedProbeRows = rowsSizingWorkers((choice.side() == Side.LEFT ? right : left).rows());
        BuildPlan plan = BuildPlan.make(spec, memory, choice);
        stats.recordPlan(choice.side(), cacheHits, cacheMisses, plan.sketches(), plan.keyFilter(), plan.sizing());
        beginBuild(choice, plan);
        return choice.side();
    }

    /**
     * The rows that size a pass's workers ({@link JoinConfig#workersFor}) for an input expected to hold {@code rows}:
     * those, unless the join is pushed, whose inputs take a worker per pushing thread whatever their size (-1).
     */
    private long rowsSizingWorkers(long rows) {
        return pushSink != null ? -1 : rows;
    }

    /** The cached statistics of {@code side}'s input (counted as a hit or a miss), or null. */
    private InputStatistics known(Side side) {
        StatisticsLookup lookup = spec.statistics();
        if (lookup == null) {
            return null;
        }
        InputStatistics s = lookup.known(side);
        if (s == null) {
            cacheMisses++;
        } else {
            cacheHits++;
        }
        return s;
    }

    /**
     * Makes the shared context, the result batch and the build phase, which takes over the plan's sketches and key
     * filter and routes the heavy keys the level-0 plan already knows.
     */
    private void beginBuild(BuildSideChoice choice, BuildPlan plan) {
        ctx = new JoinContext(spec, choice, plan.sizing(), memory, faults);
        if (cancelRequested) {
            ctx.cancel();
        }
        if (deleteSpillBeforeExitRequested) {
            ctx.deleteSpillBeforeExit();
        }
        output = newOutputWriter();
        int workers = buildWorkers(plan.sizing(), rowsSizingWorkers(choice.hintRows()));
        PartitionedBuild build = new PartitionedBuild(ctx, plan.sketches().value(), plan.keyFilter().value(),
                plan.sizing().plan().nestedLoopKeys(), workers);
        current = build;
        buildThreads = build.workerCount();
        freePushWorkers = workerPool(build.workerCount());
        phase = Phase.BUILD;
    }

    /**
     * The build pass's workers: up to the join's threads for an input expected to hold {@code expectedRows} rows
     * ({@link JoinConfig#workersFor}), as many as the memory beside the plan's reservations and the layout's minimum
     * holds a staging page and a partly filled row page for, beyond the first worker's (which the minimum covers), so
     * that every worker can still write once every partition has spilled.
     */
    private int buildWorkers(SpillSizing sizing, long expectedRows) {
        long spare = memory.headroom() - sizing.minimumBudget();
        return (int) Math.max(1, Math.min(spec.config().workersFor(expectedRows), 1 + spare / sizing.stagingBytes()));
    }

    /**
     * Ends the build: the table is built with room left for the staging pages of every probe worker the join may run
     * (up to the join's threads, fewer for a probe input expected small: {@link JoinConfig#workersFor}), and the probe
     * pass gets as many workers as that room holds.
     */
    private void finishBuild() throws IOException {
        int threads = spec.config().workersFor(expectedProbeRows);
        PartitionedProbe probe = building().finish(ctx.sizing.stagingBytes() * threads, threads);
        times.build.addCpu(ctx.tasks.takeHelperCpuNanos()); // the table's passes on helper threads
        current = probe;
        probeThreads = probe.workerCount();
        pushWriters = new OutputWriter[probeThreads];
        for (int w = 0; w < probeThreads; w++) {
            pushWriters[w] = w == 0 ? output : newOutputWriter();
        }
        freePushWorkers = workerPool(probeThreads);
        stats.recordBuild(probe.buildReport());
        phase = Phase.PROBE;
    }

    /** Ends the probe input (timed by the caller, as part of the probe phase); null: no result batch. */
    private Batch finishProbe() throws IOException {
        stats.recordProbe(probing().endOfInput());
        finishThreads = probing().finishWorkers();
        phase = Phase.FINISH;
        return null;
    }

    /**
     * Releases every off-heap byte the join holds and deletes its spill files; idempotent, valid in any phase and
     * from any thread: a call of this join running on another thread is cancelled and waited for first (it stops at
     * its next batch or block boundary; one blocked inside a source or a sink holds close until it returns), and the
     * workers of a parallel phase are stopped and joined, so nothing frees memory a live thread still reads. A call
     * that begins on another thread once close has begun is refused ({@link IllegalStateException}).
     */
    @Override
    public void close() {
        Thread me = Thread.currentThread();
        activeCallers.remove(me);
        closing = true;
        if (!activeCallers.isEmpty()) {
            cancel();
            while (!activeCallers.isEmpty()) {
                LockSupport.parkNanos(100_000); // they stop at their next batch or block boundary
            }
        }
        faults.closeFoundNoCall();
        synchronized (closeLock) {
            if (phase == Phase.CLOSED) {
                return;
            }
            phase = Phase.CLOSED;
            WorkerRun r = run;
            if (r != null) {
                r.stop();
                run = null;
            }
            if (ctx != null) {
                ctx.endHelpers();
            }
            recordPairs();
            recordRun();
            try {
                if (current != null) {
                    try {
                        current.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException("hash join: closing its " + current.getClass().getSimpleName()
                                + " phase failed: " + e.getMessage(), e);
                    }
                }
            } finally {
                try {
                    if (ctx != null) {
                        ctx.closeSpace();
                    }
                } finally {
                    memory.close();
                }
            }
        }
    }
}
