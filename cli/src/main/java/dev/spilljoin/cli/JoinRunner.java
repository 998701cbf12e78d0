package dev.spilljoin.cli;

import java.io.PrintWriter;
import java.util.Arrays;

/**
 * Runs a {@link JoinPlan}: the single place where the CLI hands over to the hybrid hash join.
 *
 * <p><b>Not wired in yet</b>: the operator module is being written. What {@link #run} must do once it exists:
 * <ol>
 *   <li>open a {@code MemoryReservation.root("spilljoin", plan.workMemBytes())} and the operator with
 *       {@code plan.kind()} (map {@link JoinKind} to the operator's join type), the key columns
 *       {@code plan.left().keyColumns()}/{@code plan.right().keyColumns()} typed {@code plan.keyTypes()}, the
 *       spill directory {@code plan.spillDir()};</li>
 *   <li>read each side with {@code plan.left().openReader()} / {@code plan.right().openReader()} into
 *       {@link CsvChunk}s and hand each chunk to the operator (a per-column loop: {@code bytes/offsets/nulls}
 *       for text and VARCHAR/VARBINARY keys, {@code longs/doubles/booleans} plus {@code nulls} for typed keys);</li>
 *   <li>write result rows through {@code ResultOutput.open(plan.output(), delimiter, plan.outputNames())}'s
 *       {@link CsvWriter}, then {@code commit()}; close everything in a try-with-resources so a failure or
 *       interrupt deletes the partial output and the spill space;</li>
 *   <li>write {@code plan.stats()} with {@link StatsJson#write} (see issue 6 for the fields; rows_skipped is the
 *       sum of both readers' {@link CsvReader#rowsSkipped()}).</li>
 * </ol>
 */
final class JoinRunner {
    private JoinRunner() {
    }

    /** Runs the join; returns normally on success. */
    static void run(JoinPlan plan, PrintWriter err) {
        throw new UnsupportedOperationException("the join itself is not wired into the command yet (JoinRunner.run);"
                + " the flags, files, key columns " + plan.left().role() + "/" + plan.right().role()
                + " and key types " + Arrays.toString(plan.keyTypes()) + " were checked");
    }
}
