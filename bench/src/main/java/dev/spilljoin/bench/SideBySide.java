package dev.spilljoin.bench;

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Runs the workloads through the engines on identical rows and collects one {@link Measurement} per
 * (workload, engine, setting).
 *
 * <p>Per workload: the reference result is computed first and, where docs/WORKLOADS.md lists one, checked against
 * it (a difference stops the run: the generator is wrong). Each engine then loads R and S (untimed; skipped when
 * the engine already holds the same rows, e.g. W3 and W3L share both tables), and per setting runs one profiled
 * warm-up (and the contender's further untimed warm-ups, if any) followed by the contender's number of timed runs. Every run's result is compared with the reference; an engine that
 * throws is recorded with its error and the run goes on with the next cell. Each timed run also records how long
 * this JVM's JIT compilers worked meanwhile (their compile tasks that ended during the run).
 */
public final class SideBySide {
    /** This JVM's JIT, if it reports its compile time (null without a JIT, e.g. under {@code -Xint}). */
    private static final CompilationMXBean JIT = timedJit();

    /**
     * An engine, how many untimed warm-up runs it gets per cell (the first one profiled: peak memory, spilled bytes)
     * and how many timed runs after them.
     */
    public record Contender(Engine engine, int warmups, int runs) {
        public Contender {
            if (warmups < 1) {
                throw new IllegalArgumentException("warm-ups must be at least 1, got " + warmups);
            }
            if (runs < 1) {
                throw new IllegalArgumentException("runs must be at least 1, got " + runs);
            }
        }
    }

    private final Scale scale;
    private final PrintStream log;

    public SideBySide(Scale scale, PrintStream log) {
        this.scale = scale;
        this.log = log;
    }

    /**
     * Runs every workload on every engine under every memory setting (with its budget in bytes); engines stay open
     * (the caller closes them).
     * The measurements come ordered by workload, then setting, then the contenders' order.
     */
    public List<Measurement> run(List<Workload> workloads, List<Contender> contenders, Map<MemorySetting, Long> budgets) {
        List<Measurement> measurements = new ArrayList<>();
        Map<String, String> loadedTables = new HashMap<>();
        for (Workload workload : workloads) {
            WorkloadGenerator generator = new WorkloadGenerator(workload, scale);
            JoinResult expected = referenceResult(generator);
            for (Contender contender : contenders) {
                Engine engine = contender.engine();
                if (!loadTables(engine, generator, loadedTables)) {
                    budgets.forEach((setting, budget) -> measurements.add(
                            Measurement.failed(workload, setting, budget, engine.name(), expected, "load failed")));
                    continue;
                }
                budgets.forEach((setting, budget) -> measurements.add(
                        measure(engine, contender, workload, setting, budget, expected)));
            }
        }
        measurements.sort(Comparator.comparing(Measurement::workload).thenComparing(Measurement::setting));
        return measurements;
    }

    private JoinResult referenceResult(WorkloadGenerator generator) {
        long start = System.nanoTime();
        JoinResult expected = ReferenceJoin.compute(generator);
        Workload workload = generator.workload();
        Optional<JoinResult> listed = ExpectedResults.listed(workload, scale);
        if (listed.isPresent() && !listed.get().equals(expected)) {
            throw new IllegalStateException("the generator is wrong: " + workload + " at the " + scale.name() + " scale gives "
                    + expected + ", docs/WORKLOADS.md lists " + listed.get());
        }
        log.printf(Locale.ROOT, "%s reference: %s%s (%.1f s)%n", workload, expected,
                listed.isPresent() ? ", as docs/WORKLOADS.md lists" : "", seconds(System.nanoTime() - start));
        return expected;
    }

    private boolean loadTables(Engine engine, WorkloadGenerator generator, Map<String, String> loadedTables) {
        for (TableSource table : List.of(generator.buildTable(), generator.probeTable())) {
            String key = engine.name() + "/" + table.role();
            if (table.id().equals(loadedTables.get(key))) {
                continue;
            }
            loadedTables.remove(key);
            long start = System.nanoTime();
            try {
                engine.load(table);
            } catch (Exception e) {
                log.printf(Locale.ROOT, "!! %s failed to load %s of %s: %s%n", engine.name(), table.role().tableName(),
                        generator.workload(), e);
                return false;
            }
            loadedTables.put(key, table.id());
            log.printf(Locale.ROOT, "%s loaded %s (%,d rows) for %s in %.1f s%n", engine.name(), table.role().tableName(),
                    table.rows(), generator.workload(), seconds(System.nanoTime() - start));
        }
        return true;
    }

    private Measurement measure(Engine engine, Contender contender, Workload workload, MemorySetting setting,
                                long budget, JoinResult expected) {
        try {
            EngineProfile profile = engine.profile(workload, budget);
            if (profile.result() != null && !profile.result().equals(expected)) {
                return new Measurement(workload, setting, budget, engine.name(), new double[0], profile.peakMemoryBytes(),
                        profile.spilledBytes(), profile.result(), expected, profile.note(), null);
            }
            for (int i = 1; i < contender.warmups(); i++) {
                JoinResult warm = engine.run(workload, budget).result();
                if (!warm.equals(expected)) {
                    return new Measurement(workload, setting, budget, engine.name(), new double[0],
                            profile.peakMemoryBytes(), profile.spilledBytes(), warm, expected, profile.note(), null);
                }
            }
            int runs = contender.runs();
            double[] seconds = new double[runs];
            long[] compileMillis = new long[JIT == null ? 0 : runs];
            List<String> reports = new ArrayList<>();
            JoinResult last = null;
            for (int i = 0; i < runs; i++) {
                long compiledBefore = JIT == null ? 0 : JIT.getTotalCompilationTime();
                Engine.TimedRun run = engine.run(workload, budget);
                if (JIT != null) {
                    compileMillis[i] = JIT.getTotalCompilationTime() - compiledBefore;
                }
                seconds[i] = seconds(run.nanos());
                if (run.reportJson() != null) {
                    reports.add(run.reportJson());
                }
                last = run.result();
                if (!last.equals(expected)) {
                    seconds = Arrays.copyOf(seconds, i + 1);
                    compileMillis = Arrays.copyOf(compileMillis, Math.min(compileMillis.length, i + 1));
                    break;
                }
            }
            Measurement measurement = new Measurement(workload, setting, budget, engine.name(), seconds,
                    profile.peakMemoryBytes(), profile.spilledBytes(), last, expected, profile.note(), null, reports,
                    compileMillis);
            log.printf(Locale.ROOT, "%s %s %s: median %.3f s, %s%s%s%n", workload, setting.label(), engine.name(),
                    measurement.medianSeconds(), last, JIT == null ? "" : ", the JIT compiling for "
                            + measurement.compileMillis() + " ms during the timed runs",
                    measurement.agrees() ? "" : "  !! EXPECTED " + expected);
            return measurement;
        } catch (Exception e) {
            log.printf(Locale.ROOT, "!! %s %s %s failed: %s%n", workload, setting.label(), engine.name(), e);
            return Measurement.failed(workload, setting, budget, engine.name(), expected, e.toString());
        }
    }

    private static CompilationMXBean timedJit() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit : null;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
