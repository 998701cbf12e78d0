package dev.spilljoin.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * Writes the side-by-side run as JSON (the same numbers as {@link ResultTable}, plus each cell's run times, the JIT's
 * compile milliseconds during each, {@code runCompileMillis}, and the engine's own report of each timed run,
 * {@code runReports}: spilljoin's {@code JoinStats} with its phase times), by
 * hand: the structure is small and fixed, and the bench stays free of a JSON library.
 */
public final class JsonReport {

    private JsonReport() {
    }

    /**
     * {@code warmups}, {@code runs}: the untimed and timed runs per cell; {@code skipped}: engines not run, with the
     * reason; {@code csvCases}: the CSV case's runs (empty unless it ran),
     * DuckDB's first. JSON: {@code csvCase} is DuckDB's run (null unless the case ran), {@code csvCases} all runs.
     */
    public static String format(Scale scale, int warmups, int runs, List<Measurement> measurements,
                                List<String> skipped, List<CsvCase.Outcome> csvCases) {
        StringBuilder out = new StringBuilder();
        out.append("{\n");
        out.append("  \"scale\": {\"name\": ").append(string(scale.name())).append(", \"nR\": ").append(scale.nR())
                .append(", \"nS\": ").append(scale.nS()).append("},\n");
        out.append("  \"warmups\": ").append(warmups).append(",\n");
        out.append("  \"runs\": ").append(runs).append(",\n");
        out.append("  \"machine\": {\"cores\": ").append(Runtime.getRuntime().availableProcessors())
                .append(", \"java\": ").append(string(System.getProperty("java.version"))).append("},\n");
        out.append("  \"skipped\": [");
        for (int i = 0; i < skipped.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(string(skipped.get(i)));
        }
        out.append("],\n");
        out.append("  \"results\": [\n");
        for (int i = 0; i < measurements.size(); i++) {
            out.append("    ").append(measurement(scale, measurements.get(i), measurements))
                    .append(i + 1 < measurements.size() ? ",\n" : "\n");
        }
        out.append("  ],\n");
        out.append("  \"csvCase\": ").append(csvCases.isEmpty() ? "null" : csvCase(csvCases.get(0))).append(",\n");
        out.append("  \"csvCases\": [");
        for (int i = 0; i < csvCases.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(csvCase(csvCases.get(i)));
        }
        out.append("]\n");
        out.append("}\n");
        return out.toString();
    }

    private static String measurement(Scale scale, Measurement m, List<Measurement> all) {
        StringBuilder out = new StringBuilder("{");
        out.append("\"workload\": ").append(string(m.workload().name()));
        out.append(", \"setting\": ").append(string(m.setting().label()));
        out.append(", \"budgetBytes\": ").append(m.budgetBytes());
        out.append(", \"engine\": ").append(string(m.engine()));
        out.append(", \"medianSeconds\": ").append(number(m.medianSeconds()));
        out.append(", \"runSeconds\": [");
        for (int i = 0; i < m.runSeconds().length; i++) {
            out.append(i == 0 ? "" : ", ").append(number(m.runSeconds()[i]));
        }
        out.append("]");
        out.append(", \"runCompileMillis\": ").append(Arrays.toString(m.runCompileMillis()));
        out.append(", \"probeRowsPerSecond\": ").append(number(m.probeRowsPerSecond(scale)));
        out.append(", \"peakMemoryBytes\": ").append(optional(m.peakMemoryBytes()));
        out.append(", \"spilledBytes\": ").append(optional(m.spilledBytes()));
        out.append(", \"count\": ").append(m.result() == null ? "null" : Long.toString(m.result().count()));
        out.append(", \"sum\": ").append(m.result() == null ? "null" : Long.toString(m.result().sum()));
        out.append(", \"expectedCount\": ").append(m.expected().count());
        out.append(", \"expectedSum\": ").append(m.expected().sum());
        out.append(", \"agrees\": ").append(m.agrees());
        out.append(", \"spilljoinOverEngine\": ").append(ResultTable.ratio(m, all).map(JsonReport::number).orElse("null"));
        out.append(", \"note\": ").append(string(m.note()));
        out.append(", \"error\": ").append(m.error() == null ? "null" : string(m.error()));
        out.append(", \"runReports\": ").append(m.runReports().stream().collect(Collectors.joining(", ", "[", "]")));
        return out.append("}").toString();
    }

    private static String csvCase(CsvCase.Outcome outcome) {
        return "{\"engine\": " + string(outcome.engine()) + ", \"format\": " + string(outcome.format())
                + ", \"memoryLimitBytes\": " + outcome.memoryLimitBytes()
                + ", \"seconds\": " + number(outcome.seconds()) + ", \"runSeconds\": "
                + outcome.runSeconds().stream().map(JsonReport::number).collect(Collectors.joining(",", "[", "]"))
                + ", \"count\": " + outcome.result().count()
                + ", \"sum\": " + outcome.result().sum() + ", \"agrees\": " + outcome.agrees()
                + ", \"peakRssBytes\": " + outcome.peakRssBytes() + "}";
    }

    private static String optional(OptionalLong value) {
        return value.isPresent() ? Long.toString(value.getAsLong()) : "null";
    }

    private static String number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : String.format(Locale.ROOT, "%.6g", value);
    }

    static String string(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
