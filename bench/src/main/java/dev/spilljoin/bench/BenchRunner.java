package dev.spilljoin.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The side-by-side runner: generates the workloads of docs/WORKLOADS.md, times the join in each engine on the same
 * rows under each memory setting, prints the table and optionally writes it as JSON.
 *
 * <p>Exit codes: 0 when every engine that ran returned the reference count and sum; 1 when any result differed or
 * an engine failed (said loudly on stderr); 2 for bad arguments.
 */
@Command(name = "spilljoin-bench", mixinStandardHelpOptions = true,
        description = "Times the join of the workloads W1-W4 (docs/WORKLOADS.md) side by side in DuckDB and PostgreSQL.")
public final class BenchRunner implements Callable<Integer> {

    @Option(names = "--scale", defaultValue = "small", description = "small (1M x 10M), large (10M x 100M), or NRxNS (e.g. 1000x10000); default ${DEFAULT-VALUE}")
    String scaleName;

    @Option(names = "--workloads", defaultValue = "W1,W2,W3,W3L,W4", description = "comma-separated; default ${DEFAULT-VALUE}")
    String workloads;

    @Option(names = "--engines", defaultValue = "spilljoin,duckdb,postgres", description = "comma-separated; default ${DEFAULT-VALUE}")
    String engines;

    @Option(names = "--settings", defaultValue = "generous,tight",
            description = "memory settings: generous (512 B x nR) and/or tight (32 B x nR); default ${DEFAULT-VALUE}")
    String settings;

    @Option(names = "--tight-budget", description = "override the tight budget in bytes (default 32 B x nR)")
    Long tightBudget;

    @Option(names = "--generous-budget", description = "override the generous budget in bytes (default 512 B x nR)")
    Long generousBudget;

    @Option(names = "--threads", description = "spilljoin's workers (JoinConfig.threads); default: the number of cores,"
            + " as the CLI's --threads")
    Integer threads;

    @Option(names = "--runs", defaultValue = "3", description = "timed runs after the warm-ups; the median is reported; default ${DEFAULT-VALUE}")
    int runs;

    @Option(names = "--warmups", defaultValue = "1", description = "untimed runs per engine, workload and setting "
            + "before the timed ones (the first also measures peak memory and spilled bytes); more lets a JVM engine's "
            + "JIT finish compiling before it is timed, as in a long-running process; PostgreSQL at the large scale "
            + "always gets one; default ${DEFAULT-VALUE}")
    int warmups;

    @Option(names = "--json", description = "also write the results as JSON to this file")
    Path json;

    @Option(names = "--postgres-large", description = "run PostgreSQL at the large scale too (one run, no EXPLAIN ANALYZE)")
    boolean postgresLarge;

    @Option(names = "--csv-case", description = "also time the end-to-end CSV case (W1 at this scale as CSV files, DuckDB"
            + " and the spilljoin command as fresh processes, each timed --runs times, interleaved; the median is"
            + " reported)")
    boolean csvCase;

    @Option(names = "--parquet-case", description = "also time the CSV case's twin in Parquet (W1 as two Parquet files,"
            + " DuckDB's COPY ... TO 'out.parquet' and spilljoin --output out.parquet as fresh processes, at the CSV"
            + " case's memory limits)")
    boolean parquetCase;

    @Option(names = "--spilljoin-command", defaultValue = "bin/spilljoin",
            description = "the spilljoin launcher the CSV case runs (build it first: mvn -B -q package -pl cli -am -DskipTests); default ${DEFAULT-VALUE}")
    Path spilljoinCommand;

    @Option(names = "--csv-low-memory-limit", defaultValue = "16777216",
            description = "the CSV case also runs spilljoin at this memory limit in bytes; default ${DEFAULT-VALUE} (16 MB)")
    long csvLowMemoryLimit;

    @Option(names = "--minimum-budget-case",
            description = "run only the smallest-budget case: W1 at --scale as CSV files (5000000x5000000 for the"
                    + " README's figure), the spilljoin command at the operator's minimum budget (57kB) and at 1 MB,"
                    + " times, peak RSS and stats; fails if an output is wrong, an RSS above its bound or the minimum"
                    + " budget more than 10x slower")
    boolean minimumBudgetCase;

    @Option(names = "--csv-memory-limit", defaultValue = "134217728", description = "memory limit of the CSV case in bytes; default ${DEFAULT-VALUE} (128 MB)")
    long csvMemoryLimit;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    BenchRunner(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.out).execute(args));
    }

    /** The command printing its progress and table to {@code out}; bad values (IllegalArgumentException) exit with 2. */
    static CommandLine commandLine(PrintStream out) {
        CommandLine commandLine = new CommandLine(new BenchRunner(out));
        commandLine.setExecutionExceptionHandler((e, command, parseResult) -> {
            if (e instanceof IllegalArgumentException) {
                command.getErr().println(e.getMessage());
                return 2;
            }
            throw e;
        });
        return commandLine;
    }

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--runs must be at least 1, got " + runs);
        }
        if (warmups < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--warmups must be at least 1, got "
                    + warmups);
        }
        Scale scale = Scale.named(scaleName);
        if (minimumBudgetCase) {
            return runMinimumBudgetCase(scale);
        }
        List<Workload> workloadList = Workload.parseList(workloads);
        Map<MemorySetting, Long> budgets = new LinkedHashMap<>();
        for (String name : settings.split(",")) {
            MemorySetting setting = MemorySetting.named(name);
            Long override = setting == MemorySetting.TIGHT ? tightBudget : generousBudget;
            budgets.put(setting, override != null ? override : setting.bytes(scale));
        }
        List<String> skipped = new ArrayList<>();
        List<Engine> opened = new ArrayList<>();
        List<SideBySide.Contender> contenders = new ArrayList<>();
        try {
            boolean large = scale.nR() > Scale.SMALL.nR();
            for (String name : engines.split(",")) {
                String engine = name.trim().toLowerCase(Locale.ROOT);
                switch (engine) {
                    case "duckdb" -> {
                        opened.add(new DuckDbEngine());
                        contenders.add(new SideBySide.Contender(opened.get(opened.size() - 1), warmups, runs));
                    }
                    case "postgres" -> {
                        Optional<String> unavailable = postgresUnavailable(large);
                        if (unavailable.isPresent()) {
                            skipped.add("postgres: " + unavailable.get());
                            out.println("skipping postgres: " + unavailable.get());
                        } else {
                            opened.add(new PostgresEngine(PostgresConnectionSettings.fromEnvironment(), !large));
                            contenders.add(new SideBySide.Contender(opened.get(opened.size() - 1),
                                    large ? 1 : warmups, large ? 1 : runs));
                        }
                    }
                    case ResultTable.SPILLJOIN -> {
                        opened.add(new SpillJoinEngine(threads != null ? threads
                                : Runtime.getRuntime().availableProcessors()));
                        contenders.add(new SideBySide.Contender(opened.get(opened.size() - 1), warmups, runs));
                    }
                    default -> throw new CommandLine.ParameterException(spec.commandLine(),
                            "unknown engine '" + name.trim() + "': use spilljoin, duckdb, postgres");
                }
            }
            StringBuilder budgetText = new StringBuilder();
            budgets.forEach((setting, bytes) -> budgetText.append(' ').append(setting.label()).append(' ').append(ResultTable.bytes(bytes)));
            out.printf(Locale.ROOT, "scale %s (nR %,d, nS %,d); budgets%s; %d timed runs after %d warm-up%s%n",
                    scale.name(), scale.nR(), scale.nS(), budgetText, runs, warmups, warmups == 1 ? "" : "s");
            List<Measurement> measurements = new SideBySide(scale, out).run(workloadList, contenders, budgets);
            List<CsvCase.Outcome> csv = new ArrayList<>();
            if (csvCase || parquetCase) {
                // The file cases time fresh processes: the engines of the workloads are closed first, so that
                // nothing of theirs (DuckDB's loaded tables, PostgreSQL's, which it may vacuum after a load) runs
                // or holds memory beside them: open, they slowed the CSV case by a fifth.
                closeAll(opened);
                boolean launcher = Files.isExecutable(spilljoinCommand);
                if (!launcher) {
                    skipped.add("spilljoin in the CSV/Parquet case: no executable " + spilljoinCommand
                            + " (run from the repository root after mvn -B -q package -pl cli -am -DskipTests)");
                }
                for (boolean parquet : csvCase && parquetCase ? new boolean[] {false, true}
                        : new boolean[] {parquetCase}) {
                    csv.addAll(new CsvCase(scale, out, parquet).run(runs, csvMemoryLimit,
                            launcher ? spilljoinCommand : null, csvLowMemoryLimit));
                }
            }

            out.println();
            out.print(ResultTable.format(scale, measurements));
            for (CsvCase.Outcome c : csv) {
                out.printf(Locale.ROOT, "%-7s case (W1 %s, fresh processes, median of %d): %-9s at %7s: %6.2f s, %s,"
                        + " peak RSS %s%n", c.format(), scale.name(), c.runSeconds().size(), c.engine(),
                        ResultTable.bytes(c.memoryLimitBytes()), c.seconds(), c.agrees() ? "ok" : "WRONG " + c.result(),
                        ResultTable.rss(c.peakRssBytes()));
            }
            for (String reason : skipped) {
                out.println("skipped " + reason);
            }
            if (json != null) {
                Files.writeString(json, JsonReport.format(scale, warmups, runs, measurements, skipped, csv));
                out.println("wrote " + json);
            }
            return reportDisagreements(measurements, csv);
        } finally {
            closeAll(opened);
        }
    }

    /** Closes the engines and forgets them. */
    private static void closeAll(List<Engine> engines) throws IOException, SQLException {
        try {
            for (Engine engine : engines) {
                engine.close();
            }
        } finally {
            engines.clear();
        }
    }

    private int runMinimumBudgetCase(Scale scale) throws IOException, InterruptedException {
        if (!Files.isExecutable(spilljoinCommand)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "the minimum-budget case runs "
                    + spilljoinCommand + ", which is not an executable: run from the repository root after"
                    + " mvn -B -q package -pl cli -am -DskipTests, or name it with --spilljoin-command");
        }
        MinimumBudgetCase minimumCase = new MinimumBudgetCase(scale, out);
        List<MinimumBudgetCase.Outcome> outcomes = minimumCase.run(spilljoinCommand);
        out.println();
        outcomes.forEach(o -> out.println(minimumCase.describe(o)));
        MinimumBudgetCase.Outcome first = outcomes.get(0);
        MinimumBudgetCase.Outcome last = outcomes.get(outcomes.size() - 1);
        out.printf(Locale.ROOT, "minimum budget / 1 MB: %.1fx (at most %.0fx)%n", first.seconds() / last.seconds(),
                MinimumBudgetCase.MAX_SLOWDOWN);
        if (MinimumBudgetCase.passes(outcomes)) {
            return 0;
        }
        out.println("!!!! the minimum-budget case failed (see above) !!!!");
        return 1;
    }

    private Optional<String> postgresUnavailable(boolean large) {
        if (large && !postgresLarge) {
            return Optional.of("the large scale takes 30-90 s a query in PostgreSQL; opt in with --postgres-large");
        }
        return PostgresConnectionSettings.fromEnvironment().unreachableReason();
    }

    private int reportDisagreements(List<Measurement> measurements, List<CsvCase.Outcome> csv) {
        long bad = measurements.stream().filter(m -> !m.agrees()).count();
        boolean csvBad = csv.stream().anyMatch(c -> !c.agrees());
        if (bad == 0 && !csvBad) {
            return 0;
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println();
        err.println("!!!! RESULTS DISAGREE: " + bad + " engine run(s) failed or differ from the reference"
                + (csvBad ? ", and the CSV case's output is wrong" : "") + " (see the table above) !!!!");
        err.flush();
        return 1;
    }
}
