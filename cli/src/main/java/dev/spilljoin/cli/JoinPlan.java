package dev.spilljoin.cli;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.ColumnType;
import java.nio.file.Path;

/**
 * A join checked and ready to run: flags validated, both files opened and their headers read, key columns
 * resolved and typed, output columns named. Everything the join itself needs, and nothing it has to check
 * again.
 *
 * @param keyTypes     the comparison type of each key pair, in {@code --on} order (both sides are read as it)
 * @param outputNames  the output header (see {@link OutputColumns})
 * @param workMemBytes the memory budget for the join
 * @param outputs      the {@code --output} (null: standard output) and {@code --stats} (null: none) targets
 * @param spillDir     an existing, writable directory for spill files
 * @param threads      {@code --threads}, at least 1: the threads of the {@link CsvPipeline}
 * @param output       the format the rows are written in
 * @param buildSide    the build side forced by {@code --build-side} or by a pipe; null: the operator's choice
 */
public record JoinPlan(JoinKind kind, InputSide left, InputSide right, ColumnType[] keyTypes, String[] outputNames,
                       long workMemBytes, OutputTargets outputs, Path spillDir, boolean quiet, int threads,
                       ResultFormat output, Side buildSide) {
    /**
     * Closes the pipes the plan opened to read their headers (a pipe cannot be opened twice, so the join takes over
     * the open reader): called when a run ends, however it ends, so that a pipe is closed even when the run fails
     * before the join has taken it over (the output failing to open, say). Closing a reader the join has closed
     * already does nothing.
     */
    void closeOpenedInputs() {
        for (InputSide side : new InputSide[] {left, right}) {
            if (side.opened() != null) {
                side.opened().close();
            }
        }
    }
}
