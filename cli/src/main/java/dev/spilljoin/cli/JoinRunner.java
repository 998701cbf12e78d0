package dev.spilljoin.cli;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
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
 *   <li>opens the output ({@link ResultOutput}: a temporary file renamed on success, or standard output) and
 *       writes the header; opens a root {@link MemoryReservation} of {@code --work-mem} and the join on it with the
 *       planned key columns and types, the join type ({@link JoinKind#joinType()}) and {@code --spill-dir} as the
 *       root of its spill directory; registers with the {@link Cancellation} a signal goes through what undoes
 *       them at once (deleting the uncommitted output; cancelling the join and deleting its spill files);</li>
 *   <li>reads both files through {@link CsvBatchSource}s (chunk → batch per column, {@link ChunkConverter}); the
 *       join builds on the smaller file (size hints are the file sizes);</li>
 *   <li>pulls result batches and writes them as they come ({@link BatchCsvWriter}), then commits the output once
 *       every row is flushed; with {@code --threads} 2 or more, reading and writing run on threads of their own
 *       ({@link CsvPipeline}), with the same rows and the same failures;</li>
 *   <li>everything is opened in one try-with-resources, so a failure or an interrupt stops the pipeline's threads,
 *       closes the join (freeing its memory and deleting its spill directory) and deletes the uncommitted output;
 *       the join's own failures are mapped to exit codes here (a spill write or spill directory failing:
 *       resources; not fitting the budget at all: usage);</li>
 *   <li>writes the {@code --stats} JSON ({@link RunStatistics}).</li>
 * </ol>
 */
final class JoinRunner {
    private JoinRunner() {
    }

    /**
     * Runs the join; returns normally on success. Rows go to {@code plan.output()} or, without one, to
     * {@code stdout}; progress and notes to {@code err}. {@code startNanos} is when the command started
     * ({@link System#nanoTime()}), for {@code elapsed_ms}.
     */
    static void run(JoinPlan plan, OutputStream stdout, PrintWriter err, long startNanos, Cancellation cancellation) {
        ProgressLine progress = ProgressLine.forStderr(err, !plan.quiet());
        LeftoverSweep.Result leftovers = LeftoverSweep.sweep(plan.spillDir());
        Map<String, Object> stats;
        try (ResultOutput output = ResultOutput.open(plan.output(), stdout, plan.left().format().delimiter(),
                plan.outputNames());
             Cancellation.Registration deleteOutput = cancellation.onCancel(output::close);
             MemoryReservation memory = MemoryReservation.root("spilljoin", plan.workMemBytes());
             CsvBatchSource left = new CsvBatchSource(Side.LEFT, plan.left(), progress);
             CsvBatchSource right = new CsvBatchSource(Side.RIGHT, plan.right(), progress);
             HashJoin join = open(plan, memory);
             Cancellation.Registration deleteSpillFiles = cancellation.onCancel(join::deleteSpillFilesBeforeExit);
             CsvPipeline pipeline = CsvPipeline.open(plan.threads(), left, right, output.writer(),
                     join.outputSchema(), progress)) {
            progress.watch(join.stats());
            Iterator<Batch> results = join.iterator(pipeline.left(), pipeline.right());
            try {
                while (results.hasNext()) {
                    pipeline.write(results.next());
                }
                pipeline.finish();
            } catch (IOException e) {
                throw output.writeFailed(e);
            }
            output.commit();
            stats = RunStatistics.of(plan, join.stats(), memory, left, right, output.writer().rowsWritten(),
                    leftovers);
        } catch (MemoryExhaustedException e) {
            throw new UsageException("the join does not fit --work-mem " + ByteSize.format(plan.workMemBytes())
                    + ": " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new ResourceException("--spill-dir " + plan.spillDir() + ": " + e.getMessage(), e.getCause());
        } finally {
            progress.finish();
        }
        if (plan.stats() != null) {
            stats.put("elapsed_ms", (System.nanoTime() - startNanos) / 1_000_000);
            StatsJson.write(plan.stats(), stats);
        }
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

    /** The operator's knobs: all automatic, spill files under {@code --spill-dir}. */
    static JoinConfig config(JoinPlan plan) {
        return JoinConfig.DEFAULT.withSpillDirectory(plan.spillDir());
    }

    /** The operator's join of the plan: key pairs in {@code --on} order, every column of the returned side(s). */
    static JoinSpec spec(JoinPlan plan, MemoryReservation memory) {
        JoinSpec.Builder builder = JoinSpec.builder(ChunkConverter.schemaOf(plan.left()),
                ChunkConverter.schemaOf(plan.right()));
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
