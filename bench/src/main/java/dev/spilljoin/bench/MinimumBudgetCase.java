package dev.spilljoin.bench;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The smallest-budget case: W1 at a scale (5M x 5M for the README's figure) written as {@code r.csv} and
 * {@code s.csv}, joined by the {@code spilljoin join} command as a fresh process at the operator's minimum budget
 * ({@link HashJoin#minimumBudget}, 57kB) and at 1 MB. Each run is timed from process start to exit, its peak
 * resident set read ({@link MeasuredProcess}), its output checked against {@link ReferenceJoin} and its
 * {@code --stats} read for the re-partitioning depth and the nested-loop chunks. It passes when every output is
 * right, the minimum budget takes at most {@value #MAX_SLOWDOWN} times the 1 MB time, and every peak resident set
 * stays within the README's bound, {@code --work-mem} + {@value #RSS_ALLOWANCE_MB} MB. The work directory is
 * deleted at the end.
 */
public final class MinimumBudgetCase {
    /** The larger of the two budgets, the reference time. */
    public static final long ONE_MB = 1 << 20;
    /** The most the minimum budget may take, as a multiple of the 1 MB time. */
    public static final double MAX_SLOWDOWN = 10;
    /** What a run may hold beside its budget, as the README states it: 256 MB (the launcher's heap cap). */
    public static final long RSS_ALLOWANCE_MB = 256;
    private static final long TIMEOUT_MINUTES = 60;
    private static final Pattern DEPTH = Pattern.compile("\"max_recursion_depth\":\\s*(\\d+)");
    private static final Pattern CHUNKS = Pattern.compile("\"nested_loop_chunks\":\\s*(\\d+)");

    /**
     * One run: its budget, wall seconds, peak resident bytes (-1 if unknown), the stats' deepest re-partitioning
     * level and nested-loop chunks, what its output holds and what it should.
     */
    public record Outcome(long memoryLimitBytes, double seconds, long peakRssBytes, int maxRecursionDepth,
            long nestedLoopChunks, JoinResult result, JoinResult expected) {
        public boolean agrees() {
            return result.equals(expected);
        }

        public boolean withinRssBound() {
            return MinimumBudgetCase.withinRssBound(peakRssBytes, memoryLimitBytes);
        }
    }

    /** Whether a peak resident set is within the README's bound for {@code memoryLimitBytes}: the limit and 256 MB. */
    static boolean withinRssBound(long peakRssBytes, long memoryLimitBytes) {
        return peakRssBytes <= memoryLimitBytes + (RSS_ALLOWANCE_MB << 20);
    }

    private final Scale scale;
    private final PrintStream log;

    public MinimumBudgetCase(Scale scale, PrintStream log) {
        this.scale = scale;
        this.log = log;
    }

    /** Writes W1 as CSV once, then runs {@code spilljoinCommand} at the minimum budget and at 1 MB, in that order. */
    public List<Outcome> run(Path spilljoinCommand) throws IOException, InterruptedException {
        WorkloadGenerator generator = new WorkloadGenerator(Workload.W1, scale);
        JoinResult expected = ReferenceJoin.compute(generator);
        Path work = TempDirectories.create("spilljoin-bench-minimum-budget-");
        try {
            Path r = work.resolve("r.csv");
            Path s = work.resolve("s.csv");
            CsvWorkloadWriter.writeBoth(generator, work);
            Files.createDirectories(work.resolve("tmp"));
            List<Outcome> outcomes = new ArrayList<>();
            for (long limit : new long[] {HashJoin.minimumBudget(JoinConfig.DEFAULT), ONE_MB}) {
                Path out = work.resolve("out.csv");
                Path stats = work.resolve("stats.json");
                List<String> command = List.of(spilljoinCommand.toString(), "join", "--left", s.toString(),
                        "--right", r.toString(), "--on", "k=k", "--work-mem", limit + "B", "--spill-dir",
                        work.resolve("tmp").toString(), "--quiet", "--output", out.toString(), "--stats",
                        stats.toString());
                log.println("minimum-budget case: " + String.join(" ", command));
                MeasuredProcess run = MeasuredProcess.run(command, TIMEOUT_MINUTES);
                String json = Files.readString(stats);
                Outcome outcome = new Outcome(limit, run.seconds(), run.peakRssBytes(), (int) field(json, DEPTH),
                        field(json, CHUNKS), CsvJoinOutputChecker.check(out), expected);
                Files.delete(out);
                Files.delete(stats);
                log.println(describe(outcome));
                outcomes.add(outcome);
            }
            return outcomes;
        } finally {
            TempDirectories.deleteRecursively(work);
        }
    }

    /** Whether every output is right, every RSS within the bound, and the minimum within the slowdown of 1 MB. */
    public static boolean passes(List<Outcome> outcomes) {
        Outcome minimum = outcomes.get(0);
        Outcome reference = outcomes.get(outcomes.size() - 1);
        return outcomes.stream().allMatch(o -> o.agrees() && o.withinRssBound())
                && minimum.seconds() <= MAX_SLOWDOWN * reference.seconds();
    }

    /** One line: budget, time, peak RSS against its bound, depth, nested-loop chunks, result. */
    public String describe(Outcome o) {
        return String.format(Locale.ROOT,
                "minimum-budget case (W1 %s): spilljoin at %7s: %8.2f s, peak RSS %s (bound %s)%s, depth %d,"
                        + " nested-loop chunks %d, %s%s",
                scale.name(), ResultTable.bytes(o.memoryLimitBytes()), o.seconds(),
                ResultTable.rss(o.peakRssBytes()),
                ResultTable.bytes(o.memoryLimitBytes() + (RSS_ALLOWANCE_MB << 20)),
                o.withinRssBound() ? "" : " !! ABOVE", o.maxRecursionDepth(), o.nestedLoopChunks(), o.result(),
                o.agrees() ? "" : "  !! EXPECTED " + o.expected());
    }

    private static long field(String json, Pattern pattern) throws IOException {
        Matcher m = pattern.matcher(json);
        if (!m.find()) {
            throw new IOException("the stats JSON has no " + pattern.pattern() + ": " + json);
        }
        return Long.parseLong(m.group(1));
    }
}
