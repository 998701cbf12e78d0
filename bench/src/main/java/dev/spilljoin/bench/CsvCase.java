package dev.spilljoin.bench;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end-to-end file case, CSV or its Parquet twin: W1 written as {@code r.csv} and {@code s.csv} (header
 * {@code k,p}; for Parquet then copied by DuckDB, in this process and untimed, into {@code r.parquet} and
 * {@code s.parquet}: two BIGINT columns), joined by each engine running as a fresh process that writes the joined
 * rows {@code s.k, s.p, r.k, r.p} in the same format, timed from process start to exit (JVM start included, as a user
 * of a command-line tool sees it), and checked by reading the output back (a Parquet output through DuckDB into CSV
 * first, untimed).
 *
 * <p>DuckDB runs in a child JVM ({@link DuckDbCsvJoin}) on this JVM's class path; spilljoin as the real command,
 * {@code bin/spilljoin join --left s.csv --right r.csv --on k=k --work-mem ... --output out.csv} (or the
 * {@code .parquet} files). The work directory and everything in it are deleted at the end.
 */
public final class CsvCase {

    /** DuckDB needs 128 MB for the small-scale case here (it runs out of memory at 64 MB). */
    public static final long DEFAULT_MEMORY_LIMIT = 128L << 20;
    private static final long TIMEOUT_MINUTES = 30;

    /**
     * One engine at one memory limit: the median wall seconds of its processes, each run's seconds in order, what the
     * output held (the first wrong one's, else the last run's) and what it should, and the highest peak resident set
     * of its runs ({@link MeasuredProcess}; -1 where unknown).
     */
    public record Outcome(String engine, String format, long memoryLimitBytes, double seconds, List<Double> runSeconds,
                          JoinResult result, JoinResult expected, long peakRssBytes) {
        public boolean agrees() {
            return result.equals(expected);
        }

        /** Whether the peak resident set is known and within the README's bound: the limit and 256 MB. */
        public boolean withinRssBound() {
            return peakRssBytes >= 0 && MinimumBudgetCase.withinRssBound(peakRssBytes, memoryLimitBytes);
        }
    }

    private final Scale scale;
    private final PrintStream log;
    /** "csv" or "parquet": the files' extension and format. */
    private final String format;
    private final String label;

    /** The case over {@code parquet} files, else CSV files. */
    public CsvCase(Scale scale, PrintStream log, boolean parquet) {
        this.scale = scale;
        this.log = log;
        this.format = parquet ? "parquet" : "csv";
        this.label = parquet ? "Parquet case" : "CSV case";
    }

    /**
     * Writes W1 as CSV once, then joins it as fresh processes: DuckDB at {@code memoryLimitBytes}, and, when
     * {@code spilljoinCommand} is given, the {@code spilljoin join} command at {@code memoryLimitBytes} and at each of
     * {@code lowerLimits}; all of them one after the other, {@code rounds} times (interleaved, so that the VM's
     * changes of speed fall on every engine alike). Returns the outcomes (each its median) in that order.
     */
    public List<Outcome> run(int rounds, long memoryLimitBytes, Path spilljoinCommand, long... lowerLimits)
            throws IOException, InterruptedException {
        WorkloadGenerator generator = new WorkloadGenerator(Workload.W1, scale);
        JoinResult expected = ReferenceJoin.compute(generator);
        Path work = TempDirectories.create("spilljoin-bench-csv-");
        try {
            Path r = work.resolve("r." + format);
            Path s = work.resolve("s." + format);
            long start = System.nanoTime();
            CsvWorkloadWriter.writeBoth(generator, work);
            if (format.equals("parquet")) {
                toParquet(work.resolve("r.csv"), r);
                toParquet(work.resolve("s.csv"), s);
            }
            log.printf(Locale.ROOT, "%s: wrote W1 %s as %s in %.1f s%n", label, scale.name(), format,
                    (System.nanoTime() - start) / 1e9);
            List<Contender> contenders = new ArrayList<>();
            contenders.add(new Contender("duckdb", memoryLimitBytes, duckDbCommand(r, s, memoryLimitBytes, work)));
            if (spilljoinCommand != null) {
                List<Long> limits = new ArrayList<>(List.of(memoryLimitBytes));
                for (long lower : lowerLimits) {
                    limits.add(lower);
                }
                for (long limit : limits) {
                    contenders.add(new Contender("spilljoin", limit, List.of(spilljoinCommand.toString(), "join",
                            "--left", s.toString(), "--right", r.toString(), "--on", "k=k", "--work-mem",
                            limit + "B", "--spill-dir", work.resolve("tmp").toString(), "--quiet",
                            "--output", work.resolve("out." + format).toString())));
                }
            }
            for (int round = 0; round < rounds; round++) {
                for (Contender contender : contenders) {
                    contender.add(timed(contender, expected, work));
                }
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (Contender contender : contenders) {
                outcomes.add(contender.outcome(format, expected));
            }
            return outcomes;
        } finally {
            TempDirectories.deleteRecursively(work);
        }
    }

    /** DuckDB in a child JVM on this JVM's class path ({@link DuckDbCsvJoin}). */
    private List<String> duckDbCommand(Path r, Path s, long memoryLimitBytes, Path work) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), DuckDbCsvJoin.class.getName(), r.toString(), s.toString(),
                work.resolve("out." + format).toString(), Long.toString(memoryLimitBytes),
                work.resolve("tmp").toString());
    }

    /** One engine at one memory limit: its command and the runs it has had. */
    private record Contender(String engine, long memoryLimitBytes, List<String> command, List<Run> runs) {
        Contender(String engine, long memoryLimitBytes, List<String> command) {
            this(engine, memoryLimitBytes, command, new ArrayList<>());
        }

        void add(Run run) {
            runs.add(run);
        }

        /** The runs' median seconds, each run's in order, and the first wrong output's result, else the last's. */
        Outcome outcome(String format, JoinResult expected) {
            List<Double> seconds = runs.stream().map(Run::seconds).toList();
            List<Double> sorted = seconds.stream().sorted().toList();
            JoinResult result = runs.stream().map(Run::result).filter(r -> !r.equals(expected)).findFirst()
                    .orElse(runs.get(runs.size() - 1).result());
            long peakRss = runs.stream().mapToLong(Run::peakRssBytes).max().orElse(-1);
            return new Outcome(engine, format, memoryLimitBytes, sorted.get(sorted.size() / 2), seconds, result,
                    expected, peakRss);
        }
    }

    /** One timed process: its wall seconds, its peak resident set (-1 if unknown) and what its output held. */
    private record Run(double seconds, long peakRssBytes, JoinResult result) {
    }

    /** Runs one engine's command (which writes {@code out.csv} in {@code work}), checks and deletes its output. */
    private Run timed(Contender contender, JoinResult expected, Path work) throws IOException, InterruptedException {
        Path out = work.resolve("out." + format);
        Files.createDirectories(work.resolve("tmp"));
        MeasuredProcess process = MeasuredProcess.run(contender.command(), TIMEOUT_MINUTES);
        double seconds = process.seconds();
        Path csv = out;
        if (format.equals("parquet")) {
            csv = work.resolve("out-parquet.csv");
            copy("SELECT * FROM read_parquet('" + out + "')", csv, "(HEADER)");
            Files.delete(out);
        }
        JoinResult result = CsvJoinOutputChecker.check(csv);
        Files.delete(csv);
        log.printf(Locale.ROOT, "%s: %s at %s: %.2f s, peak RSS %s, %s%s%n", label, contender.engine(),
                ResultTable.bytes(contender.memoryLimitBytes()), seconds, ResultTable.rss(process.peakRssBytes()),
                result, result.equals(expected) ? "" : "  !! EXPECTED " + expected);
        return new Run(seconds, process.peakRssBytes(), result);
    }

    /** Copies the CSV file {@code csv} (header {@code k,p}) into the Parquet file {@code parquet}, as BIGINTs. */
    private static void toParquet(Path csv, Path parquet) throws IOException {
        copy("SELECT k::BIGINT AS k, p::BIGINT AS p FROM read_csv('" + csv + "')", parquet, "(FORMAT parquet)");
    }

    /** DuckDB, in this process: {@code COPY (query) TO target options}. */
    private static void copy(String query, Path target, String options) throws IOException {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
             Statement statement = connection.createStatement()) {
            statement.execute("SET threads = 2");
            statement.execute("COPY (" + query + ") TO '" + target + "' " + options);
        } catch (SQLException e) {
            throw new IOException("DuckDB could not copy into " + target + ": " + e.getMessage(), e);
        }
    }
}
