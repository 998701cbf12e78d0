package dev.spilljoin.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end-to-end CSV case: W1 written as {@code r.csv} and {@code s.csv} (header {@code k,p}), joined by each engine
 * running as a fresh process that writes the joined rows {@code s.k, s.p, r.k, r.p} as CSV, timed from process
 * start to exit (JVM start included, as a user of a command-line tool sees it), and checked by reading the output
 * back.
 *
 * <p>DuckDB runs in a child JVM ({@link DuckDbCsvJoin}) on this JVM's class path; spilljoin as the real command,
 * {@code bin/spilljoin join --left s.csv --right r.csv --on k=k --work-mem ...}. The work directory and everything
 * in it are deleted at the end.
 */
public final class CsvCase {

    /** DuckDB needs 128 MB for the small-scale case here (it runs out of memory at 64 MB). */
    public static final long DEFAULT_MEMORY_LIMIT = 128L << 20;
    private static final long TIMEOUT_MINUTES = 30;

    /** The timed run: engine, memory limit, wall seconds of the process, what the output holds, what it should. */
    public record Outcome(String engine, long memoryLimitBytes, double seconds, JoinResult result, JoinResult expected) {
        public boolean agrees() {
            return result.equals(expected);
        }
    }

    private final Scale scale;
    private final PrintStream log;

    public CsvCase(Scale scale, PrintStream log) {
        this.scale = scale;
        this.log = log;
    }

    /**
     * Writes W1 as CSV once, then joins it as fresh processes: DuckDB at {@code memoryLimitBytes}, and, when
     * {@code spilljoinCommand} is given, the {@code spilljoin join} command at {@code memoryLimitBytes} and at each of
     * {@code lowerLimits}. Returns the outcomes in that order.
     */
    public List<Outcome> run(long memoryLimitBytes, Path spilljoinCommand, long... lowerLimits)
            throws IOException, InterruptedException {
        WorkloadGenerator generator = new WorkloadGenerator(Workload.W1, scale);
        JoinResult expected = ReferenceJoin.compute(generator);
        Path work = TempDirectories.create("spilljoin-bench-csv-");
        try {
            Path r = work.resolve("r.csv");
            Path s = work.resolve("s.csv");
            long start = System.nanoTime();
            CsvWorkloadWriter.writeBoth(generator, work);
            log.printf(Locale.ROOT, "CSV case: wrote W1 %s as CSV in %.1f s%n", scale.name(), (System.nanoTime() - start) / 1e9);
            List<Outcome> outcomes = new ArrayList<>();
            outcomes.add(timed("duckdb", memoryLimitBytes, expected, work, duckDbCommand(r, s, memoryLimitBytes, work)));
            if (spilljoinCommand != null) {
                List<Long> limits = new ArrayList<>(List.of(memoryLimitBytes));
                for (long lower : lowerLimits) {
                    limits.add(lower);
                }
                for (long limit : limits) {
                    outcomes.add(timed("spilljoin", limit, expected, work, List.of(spilljoinCommand.toString(), "join",
                            "--left", s.toString(), "--right", r.toString(), "--on", "k=k", "--work-mem",
                            limit + "B", "--spill-dir", work.resolve("tmp").toString(), "--quiet",
                            "--output", work.resolve("out.csv").toString())));
                }
            }
            return outcomes;
        } finally {
            TempDirectories.deleteRecursively(work);
        }
    }

    /** DuckDB in a child JVM on this JVM's class path ({@link DuckDbCsvJoin}). */
    private static List<String> duckDbCommand(Path r, Path s, long memoryLimitBytes, Path work) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), DuckDbCsvJoin.class.getName(), r.toString(), s.toString(),
                work.resolve("out.csv").toString(), Long.toString(memoryLimitBytes), work.resolve("tmp").toString());
    }

    /** Runs one engine's command (which writes {@code out.csv} in {@code work}), checks and deletes its output. */
    private Outcome timed(String engine, long memoryLimitBytes, JoinResult expected, Path work, List<String> command)
            throws IOException, InterruptedException {
        Path out = work.resolve("out.csv");
        Files.createDirectories(work.resolve("tmp"));
        double seconds = timeProcess(command);
        JoinResult result = CsvJoinOutputChecker.check(out);
        Files.delete(out);
        Outcome outcome = new Outcome(engine, memoryLimitBytes, seconds, result, expected);
        log.printf(Locale.ROOT, "CSV case: %s at %s: %.2f s, %s%s%n", engine, ResultTable.bytes(memoryLimitBytes),
                seconds, result, outcome.agrees() ? "" : "  !! EXPECTED " + expected);
        return outcome;
    }

    private static double timeProcess(List<String> command) throws IOException, InterruptedException {
        return MeasuredProcess.run(command, TIMEOUT_MINUTES).seconds();
    }
}
