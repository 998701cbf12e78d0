package dev.spilljoin.cli;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.RowTooLargeException;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.LeftoverSweep;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;

/**
 * Runs a {@link JoinPlan}: the single place where the CLI hands over to the hash join.
 *
 * <ol>
 *   <li>sweeps the spill directory's leftovers of ended runs ({@link LeftoverSweep}; every run does, spilling or
 *       not);</li>
 *   <li>opens the {@code --output} and {@code --stats} targets ({@link OutputTargets#open()}: a temporary file
 *       renamed on success, or a device written in place; the rows go to standard output without
 *       {@code --output}), then writes the header ({@link ResultOutput}); opens a root {@link MemoryReservation}
 *       of {@code --work-mem} and the join on it with the planned key columns and types, the join type
 *       ({@link JoinKind#joinType()}) and {@code --spill-dir} as the root of its spill directory; registers with
 *       the {@link Cancellation} a signal goes through what undoes them at once (deleting the uncommitted output
 *       temporaries; cancelling the join and deleting its spill files);</li>
 *   <li>reads both files through {@link CsvBatchSource}s (chunk → batch per column, {@link ChunkConverter}); the
 *       join builds on the smaller file (size hints are the file sizes);</li>
 *   <li>pulls result batches and writes them as they come ({@link BatchCsvWriter}), then commits the output once
 *       every row is flushed; with {@code --threads} 2 or more, reading and writing run on threads of their own
 *       ({@link CsvPipeline}), with the same rows and the same failures;</li>
 *   <li>everything is opened in one try-with-resources, so a failure or an interrupt stops the pipeline's threads,
 *       closes the join (freeing its memory and deleting its spill directory) and deletes the uncommitted output;
 *       a pipe the plan opened is closed on every path, also when the run fails before the join has taken it over;
 *       the join's own failures are mapped to exit codes here (a spill write or spill directory failing:
 *       resources; not fitting the budget at all: usage);</li>
 *   <li>after the output is committed, writes the {@code --stats} JSON ({@link RunStatistics}, then what the
 *       sweep of leftover temporaries did and {@code elapsed_ms}).</li>
 * </ol>
 */
final class JoinRunner {
    private JoinRunner() {
    }

    /**
     * Runs the join; returns normally on success. Rows go to the {@code --output} target or, without one, to
     * {@code stdout}; progress and notes to {@code err}. {@code startNanos} is when the command started
     * ({@link System#nanoTime()}), for {@code elapsed_ms}.
     */
    static void run(JoinPlan plan, OutputStream stdout, PrintWriter err, long startNanos, Cancellation cancellation) {
        ProgressLine progress = ProgressLine.forStderr(err, !plan.quiet());
        LeftoverSweep.Result spillLeftovers = LeftoverSweep.sweep(plan.spillDir());
        int batchBytes = BatchSizing.batchBytes(plan);
        try (RunOutputs outputs = plan.outputs().open();
             Cancellation.Registration deleteOutputs = cancellation.onCancel(outputs::discard);
             MemoryReservation memory = MemoryReservation.root("spilljoin", plan.workMemBytes());
             InputBatches left = InputBatches.open(Side.LEFT, plan.left(), progress, batchBytes);
             InputBatches right = InputBatches.open(Side.RIGHT, plan.right(), progress, batchBytes);
             HashJoin join = open(plan, memory);
             ResultOutput output = ResultOutput.open(outputs.rows(), stdout,
                     ResultOutput.writerFor(plan, join.outputSchema()));
             Cancellation.Registration deleteSpillFiles = cancellation.onCancel(join::deleteSpillFilesBeforeExit);
             CsvPipeline pipeline = CsvPipeline.open(plan.threads(), batchBytes, left, right, output.writer(),
                     join.outputSchema(), progress)) {
            progress.watch(join::spillProgress);
            try {
                LaneSink workers = pipeline.workerSink();
                if (workers != null) {
                    try (Cancellation.Registration interrupt = cancellation.onCancel(workers::interruptWriters)) {
                        join.run(pipeline.left(), pipeline.right(), workers);
                    }
                } else {
                    Iterator<Batch> results = join.iterator(pipeline.left(), pipeline.right());
                    while (results.hasNext()) {
                        pipeline.write(results.next());
                    }
                }
                pipeline.finish();
            } catch (IOException e) {
                throw output.writeFailed(e);
            } catch (LaneSink.WriteFailure e) {
                throw output.writeFailed(e.getCause());
            } catch (RowTooLargeException e) {
                throw rowTooLarge(plan, e.batchRow() < 0 ? null
                        : pipeline.whereIs(e.side(), e.batchOrigin(), e.batchRow()), e);
            }
            output.commit();
            if (outputs.stats() != null) {
                Map<String, Object> stats = RunStatistics.of(plan, join.stats(), memory, left, right,
                        output.writer().rowsWritten(), spillLeftovers);
                stats.put("leftover_outputs_removed", outputs.leftovers().removed());
                stats.put("leftover_outputs_kept", outputs.leftovers().kept());
                stats.put("elapsed_ms", (System.nanoTime() - startNanos) / 1_000_000);
                StatsJson.write(outputs.stats(), stats);
            }
        } catch (MemoryExhaustedException e) {
            throw new UsageException("the join does not fit --work-mem " + ByteSize.format(plan.workMemBytes())
                    + ": " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new ResourceException("--spill-dir " + plan.spillDir() + ": " + e.getMessage(), e.getCause());
        } finally {
            plan.closeOpenedInputs();
            progress.finish();
        }
    }

    /**
     * A row the join cannot give a page within {@code --work-mem}: usage, naming the row's file and line
     * ({@code where}; null if no longer known, then its input) and size (or, for rows met on the nested-loop path, the
     * input whose rows of one key they are) and the smallest {@code --work-mem} that holds rows of that size, or of
     * the larger rows the join saw with it (the operator's, in a form the flag takes).
     */
    private static UsageException rowTooLarge(JoinPlan plan, String where, RowTooLargeException e) {
        long needed = e.neededBudget();
        String flag = needed % (1 << 20) == 0 ? (needed >> 20) + "MB" : (needed + 1023 >> 10) + "kB";
        String input = "the " + e.side().name().toLowerCase(java.util.Locale.ROOT) + " input";
        String rows = e.batchRow() < 0 ? "the rows of one key of " + input + " (joined by chunks; "
                : where != null ? "the row of " + where + " (" : "a row of " + input + " (";
        String larger = e.largestRowBytes() > e.rowBytes()
                ? "; the input holds rows of up to " + e.largestRowBytes() + " bytes, which" : ": rows that large";
        return new UsageException("--work-mem " + ByteSize.format(plan.workMemBytes()) + " is too small for " + rows
                + e.rowBytes() + " bytes in the join's row format)" + larger + " need --work-mem " + flag
                + " or more", e);
    }

    /** Creates the join; a budget the operator refuses (below its minimum for this budget's sizing) is usage. */
    private static HashJoin open(JoinPlan plan, MemoryReservation memory) {
        JoinSpec spec = spec(plan, memory);
        try {
            return HashJoin.create(spec);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--work-mem " + ByteSize.format(plan.workMemBytes()) + " is too small: "
                    + e.getMessage(), e);
        }
    }

    /**
     * The operator's knobs: all automatic, spill files under {@code --spill-dir}, result batches of at most
     * {@link BatchSizing#maxOutputRows} rows for the output's format, fewer when the result's rows are wide
     * ({@link BatchSizing#outputRows}, from the files' first lines) and handed out once
     * their values reach {@link BatchSizing#batchBytes} (whatever the rows further on), as the input batches; the
     * join's workers are {@code --threads} (each reads its input batches from the read-ahead for itself; CSV results
     * are written by the worker that made them, Parquet results handed to the writer on this thread).
     */
    static JoinConfig config(JoinPlan plan) {
        return JoinConfig.builder().spillDirectory(plan.spillDir()).buildSide(plan.buildSide())
                .threads(BatchSizing.joinThreads(plan.threads()))
                .outputBatchRows(BatchSizing.outputRows(plan, BatchSizing.maxOutputRows(plan.output())))
                .outputBatchBytes(BatchSizing.batchBytes(plan)).build();
    }

    /** The operator's join of the plan: key pairs in {@code --on} order, every column of the returned side(s). */
    static JoinSpec spec(JoinPlan plan, MemoryReservation memory) {
        Schema[] schemas = ChunkConverter.joinSchemas(plan.left(), plan.right(), plan.outputNames());
        JoinSpec.Builder builder = JoinSpec.builder(schemas[0], schemas[1]);
        int[] leftKeys = plan.left().keyColumns();
        int[] rightKeys = plan.right().keyColumns();
        for (int k = 0; k < leftKeys.length; k++) {
            builder.on(leftKeys[k], rightKeys[k]);
        }
        JoinSpec spec = builder.joinType(plan.kind().joinType()).reservation(memory).config(config(plan)).build();
        if (spec.projection().size() != plan.outputNames().length) {
            throw new IllegalStateException("the join returns " + spec.projection().size() + " columns but the"
                    + " output header has " + plan.outputNames().length);
        }
        return spec;
    }
}
