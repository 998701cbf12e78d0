package dev.spilljoin.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The end-to-end CSV case: W1 written as {@code r.csv} and {@code s.csv} (header {@code k,p}), joined by an engine
 * running as a fresh process that writes the joined rows as CSV, timed from process start to exit (JVM start
 * included, as a user of a command-line tool sees it), and checked by reading the output back.
 *
 * <p>DuckDB runs in a child JVM ({@link DuckDbCsvJoin}) on this JVM's class path. The work directory and
 * everything in it are deleted at the end.
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

    public Outcome runDuckDb(long memoryLimitBytes) throws IOException, InterruptedException {
        WorkloadGenerator generator = new WorkloadGenerator(Workload.W1, scale);
        JoinResult expected = ReferenceJoin.compute(generator);
        Path work = TempDirectories.create("spilljoin-bench-csv-");
        try {
            Path r = work.resolve("r.csv");
            Path s = work.resolve("s.csv");
            Path out = work.resolve("out.csv");
            long start = System.nanoTime();
            CsvWorkloadWriter.write(generator.buildTable(), r);
            CsvWorkloadWriter.write(generator.probeTable(), s);
            log.printf(Locale.ROOT, "CSV case: wrote W1 %s as CSV in %.1f s%n", scale.name(), (System.nanoTime() - start) / 1e9);

            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx256m");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(DuckDbCsvJoin.class.getName());
            command.add(r.toString());
            command.add(s.toString());
            command.add(out.toString());
            command.add(Long.toString(memoryLimitBytes));
            command.add(work.resolve("tmp").toString());
            double seconds = timeProcess(command);
            JoinResult result = CsvJoinOutputChecker.check(out);
            Outcome outcome = new Outcome("duckdb", memoryLimitBytes, seconds, result, expected);
            log.printf(Locale.ROOT, "CSV case: duckdb at memory_limit %s: %.2f s, %s%s%n", ResultTable.bytes(memoryLimitBytes),
                    seconds, result, outcome.agrees() ? "" : "  !! EXPECTED " + expected);
            return outcome;
        } finally {
            TempDirectories.deleteRecursively(work);
        }
    }

    private static double timeProcess(List<String> command) throws IOException, InterruptedException {
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).inheritIO().start();
        if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IOException("no exit within " + TIMEOUT_MINUTES + " minutes: " + String.join(" ", command));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (process.exitValue() != 0) {
            throw new IOException("exit code " + process.exitValue() + " from " + String.join(" ", command));
        }
        return seconds;
    }
}
