package dev.spilljoin.bench;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * One cell of the side-by-side table: one engine on one workload under one memory setting. {@code error} is null
 * unless the engine failed (then there are no run times); {@code result} is the result of the last run;
 * {@code runReports} the engine's own JSON report of each timed run, in order (empty when it reports nothing);
 * {@code runCompileMillis} the milliseconds the bench JVM's JIT compilers spent on compile tasks that ended during each
 * timed run (empty when not measured): on this 2-core machine a compiler thread busy through a run takes one of the
 * cores the engine runs on, so a run with hundreds of milliseconds here is not a warm one.
 */
public record Measurement(Workload workload, MemorySetting setting, long budgetBytes, String engine, double[] runSeconds,
                          OptionalLong peakMemoryBytes, OptionalLong spilledBytes, JoinResult result, JoinResult expected,
                          String note, String error, List<String> runReports, long[] runCompileMillis) {

    /** A measurement without run reports or compile times. */
    public Measurement(Workload workload, MemorySetting setting, long budgetBytes, String engine, double[] runSeconds,
                       OptionalLong peakMemoryBytes, OptionalLong spilledBytes, JoinResult result, JoinResult expected,
                       String note, String error) {
        this(workload, setting, budgetBytes, engine, runSeconds, peakMemoryBytes, spilledBytes, result, expected, note,
                error, List.of(), new long[0]);
    }

    public static Measurement failed(Workload workload, MemorySetting setting, long budgetBytes, String engine,
                                     JoinResult expected, String error) {
        return new Measurement(workload, setting, budgetBytes, engine, new double[0], OptionalLong.empty(),
                OptionalLong.empty(), null, expected, "", error);
    }

    /** The median of the timed runs (the mean of the middle two for an even count). */
    public double medianSeconds() {
        if (runSeconds.length == 0) {
            return Double.NaN;
        }
        double[] sorted = runSeconds.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** The JIT's compile milliseconds over all timed runs. */
    public long compileMillis() {
        return Arrays.stream(runCompileMillis).sum();
    }

    /** Probe rows per second at the median time. */
    public double probeRowsPerSecond(Scale scale) {
        return scale.nS() / medianSeconds();
    }

    /** True when the engine ran and returned the expected count and sum. */
    public boolean agrees() {
        return error == null && expected.equals(result);
    }
}
