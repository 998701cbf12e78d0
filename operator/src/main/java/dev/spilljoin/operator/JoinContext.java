package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.KeyEncoder;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.table.CandidatePairs;
import dev.spilljoin.operator.table.JoinStrategy;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.ParallelTasks;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillCounters;
import dev.spilljoin.spill.SpillSpace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CancellationException;

/**
 * What every phase of one hybrid join shares, fixed before the build: the spec, the build-side choice and its
 * {@link JoinStrategy}, the memory plan ({@link SpillSizing}), the join's reservation, both sides' row layouts and
 * spill formats, the test-only fault points, cancellation, and the spill space, created at the first
 * spill (a join that fits in memory never touches the disk). Nothing here is filled in later by a phase: what a
 * phase learns travels to the next phase in its hand-over. The context owns the spill space: closing it
 * ({@link #closeSpace}, by the join) is the single cleanup path for every spill file.
 */
final class JoinContext {
    final JoinSpec spec;
    final JoinConfig config;
    /** The build side and what was known of its input before the first row. */
    final BuildSideChoice choice;
    final JoinStrategy strategy;
    final SpillSizing sizing;
    final MemoryReservation memory;
    /** The test-only fault points ({@link JoinFaults#NONE} outside tests). */
    final JoinFaults faults;
    /** Layout of build rows: build keys plus the build columns the output needs. */
    final RowLayout buildLayout;
    /** Layout of spilled probe rows: probe keys plus the probe columns the output needs. */
    final RowLayout probeLayout;
    /** How build rows and probe rows are encoded in spill files. */
    final SpillRowFormat buildFormat;
    final SpillRowFormat probeFormat;
    final Schema probeSchema;
    final int[] probeKeys;
    /** Whether equal stored hashes mean equal keys (a single fixed-width key column; see HashFunctions). */
    final boolean hashIsKey;
    /**
     * The threads of the join's parallel passes ({@link JoinConfig#threads()}): its helpers are kept from pass to
     * pass and ended by {@link #endHelpers}.
     */
    final ParallelTasks tasks;
    private volatile boolean cancelled;
    private volatile boolean deletedBeforeExit;
    private volatile SpillSpace space;

    JoinContext(JoinSpec spec, BuildSideChoice choice, SpillSizing sizing, MemoryReservation memory,
                JoinFaults faults) {
        this.spec = spec;
        this.config = spec.config();
        this.choice = choice;
        this.strategy = JoinStrategy.of(spec.joinType(), choice.side());
        this.sizing = sizing;
        this.memory = memory;
        this.faults = faults;
        Side build = strategy.buildSide();
        Side probe = build.other();
        this.buildLayout = layoutOf(spec, build);
        this.probeLayout = layoutOf(spec, probe);
        this.buildFormat = new SpillRowFormat(buildLayout);
        this.probeFormat = new SpillRowFormat(probeLayout);
        this.probeSchema = spec.schema(probe);
        this.probeKeys = spec.keys(probe);
        this.hashIsKey = probeKeys.length == 1 && !probeSchema.type(probeKeys[0]).isVariableWidth();
        this.tasks = ParallelTasks.keepingHelpers(config.threads());
    }

    /** Ends the helper threads kept for the join's passes (when none runs: the join ended or closes); idempotent. */
    void endHelpers() {
        tasks.close();
    }

    /** The layout of {@code side}'s rows: its keys plus its columns the output and the extra condition read. */
    static RowLayout layoutOf(JoinSpec spec, Side side) {
        return new RowLayout(spec.schema(side), spec.keys(side), spec.carriedColumns(side));
    }

    /** A key encoder for probe batches, or null when hashes alone decide equality. */
    KeyEncoder probeEncoder() {
        return hashIsKey ? null : new KeyEncoder(buildLayout, probeKeys);
    }

    /**
     * The extra condition's stage for a probe whose build rows are {@code buildSide}'s, of {@code buildLayout}; null
     * when the spec has no condition. Each probe gets its own (it holds the probe's collected pairs).
     */
    CandidatePairs candidatePairs(Side buildSide, RowLayout buildLayout) {
        if (spec.condition() == null) {
            return null;
        }
        OutputWriter collector = new OutputWriter(spec.conditionSchema(), spec.conditionColumns(), buildSide,
                buildLayout, config.outputBatchRows(), config.outputBatchBytes());
        return new CandidatePairs(collector, spec.condition());
    }

    /**
     * How a spilled pair is joined: the join's own orientation, or (reversed) with the probe side's rows loaded into
     * the table and the build side's rows streamed, the join type mapped to that orientation by
     * {@link JoinStrategy} and the join-wide facts ({@code totals}) swapped with the sides.
     */
    record PairOrientation(boolean reversed, JoinStrategy strategy, Side buildSide, RowLayout buildLayout,
                           RowLayout probeLayout, Schema probeSchema, int[] probeKeys, boolean buildEmpty,
                           boolean buildHasNullKey, boolean probeEmpty, boolean probeHasNullKey) {
        KeyEncoder encoder(boolean hashIsKey) {
            return hashIsKey ? null : new KeyEncoder(buildLayout, probeKeys);
        }
    }

    PairOrientation orientation(InputTotals totals, boolean reversed) {
        Side build = strategy.buildSide();
        boolean buildEmpty = totals.buildRows() == 0;
        boolean buildHasNullKey = totals.buildNullKeyRows() > 0;
        boolean probeEmpty = totals.probeRows() == 0;
        boolean probeHasNullKey = totals.probeNullKeyRows() > 0;
        if (!reversed) {
            return new PairOrientation(false, strategy, build, buildLayout, probeLayout, probeSchema, probeKeys,
                    buildEmpty, buildHasNullKey, probeEmpty, probeHasNullKey);
        }
        Side flipped = build.other();
        return new PairOrientation(true, JoinStrategy.of(spec.joinType(), flipped), flipped, probeLayout, buildLayout,
                spec.schema(build), spec.keys(build), probeEmpty, probeHasNullKey, buildEmpty, buildHasNullKey);
    }

    /**
     * The join's spill space, created on first use under the configured directory (which sweeps that directory's
     * leftovers first). After {@link #deleteSpillBeforeExit()} no space is created; one created meanwhile is deleted
     * at once. Workers may ask at once: exactly one space is created.
     */
    synchronized SpillSpace space() {
        SpillSpace s = space;
        if (s == null) {
            if (deletedBeforeExit) {
                throw new CancellationException("hash join cancelled: the process is exiting");
            }
            Path root = config.spillDirectory() != null ? config.spillDirectory()
                    : Paths.get(System.getProperty("java.io.tmpdir"));
            try {
                s = SpillSpace.create(root, sizing.windowBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("hash join: cannot create a spill directory under " + root + ": "
                        + e.getMessage(), e);
            }
            faults.spillSpaceCreated(s);
            space = s;
            if (deletedBeforeExit) {
                s.deleteBeforeExit(); // the exiting thread looked before this space was published
            }
            if (cancelled) {
                s.cancel();
            }
        }
        return s;
    }

    /**
     * The spill space's I/O counters, or null before anything spilled (any thread: never creates the space).
     */
    SpillCounters spillCountersIfSpilled() {
        SpillSpace s = space;
        return s == null ? null : s.counters();
    }

    /** Asks the join to stop at its next batch or block boundary (any thread). */
    void cancel() {
        cancelled = true;
        SpillSpace s = space;
        if (s != null) {
            s.cancel();
        }
    }

    /** Throws {@link CancellationException} if the join was cancelled or its thread interrupted. */
    void checkCancelled() {
        if (cancelled) {
            throw new CancellationException("hash join cancelled");
        }
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted();
        }
    }

    /**
     * What a join's thread found interrupted (its flag set, or cleared by the wait that threw) stops the join with; the
     * flag is set again, for the caller.
     */
    static CancellationException interrupted() {
        Thread.currentThread().interrupt();
        return new CancellationException("hash join stopped: its thread was interrupted");
    }

    /**
     * For a process about to exit on a signal (any thread): cancels the join and deletes its spill directory at
     * once ({@link SpillSpace#deleteBeforeExit()}), without waiting for the join's thread, which then fails.
     */
    void deleteSpillBeforeExit() {
        cancel();
        deletedBeforeExit = true;
        SpillSpace s = space;
        if (s != null) {
            s.deleteBeforeExit();
        }
    }

    /** Deletes every spill file and the spill directory; idempotent. */
    void closeSpace() {
        if (space != null) {
            try {
                space.close();
            } catch (IOException e) {
                throw new UncheckedIOException("hash join: could not delete its spill directory " + space.directory()
                        + ": " + e.getMessage(), e);
            }
        }
    }
}
