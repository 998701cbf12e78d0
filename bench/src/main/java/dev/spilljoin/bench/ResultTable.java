package dev.spilljoin.bench;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Formats the measurements as the side-by-side text table: per (workload, setting, engine) the median seconds,
 * probe rows/s, peak memory, bytes spilled, the result check and, when a {@code spilljoin} row exists for the same
 * workload and setting, the ratio spilljoin time / this engine's time (below 1: spilljoin is faster).
 */
public final class ResultTable {

    /** The engine name whose time is the numerator of the ratios. */
    public static final String SPILLJOIN = "spilljoin";

    private ResultTable() {
    }

    public static String format(Scale scale, List<Measurement> measurements) {
        boolean ratios = measurements.stream().anyMatch(m -> m.engine().equals(SPILLJOIN));
        StringBuilder out = new StringBuilder();
        String header = String.format(Locale.ROOT, "%-4s %-9s %9s %-10s %9s %12s %10s %10s %-8s%s",
                "load", "setting", "budget", "engine", "median s", "probe rows/s", "peak mem", "spilled", "result",
                ratios ? "  spilljoin/engine" : "");
        out.append(header.replaceFirst("load", "work")).append('\n');
        out.append("-".repeat(header.length())).append('\n');
        for (Measurement m : measurements) {
            String result = m.error() != null ? "ERROR" : m.agrees() ? "ok" : "WRONG";
            out.append(String.format(Locale.ROOT, "%-4s %-9s %9s %-10s %9s %12s %10s %10s %-8s",
                    m.workload(), m.setting().label(), bytes(m.budgetBytes()), m.engine(),
                    Double.isNaN(m.medianSeconds()) ? "-" : String.format(Locale.ROOT, "%.3f", m.medianSeconds()),
                    Double.isNaN(m.medianSeconds()) ? "-" : String.format(Locale.ROOT, "%.3gM", m.probeRowsPerSecond(scale) / 1e6),
                    bytes(m.peakMemoryBytes()), bytes(m.spilledBytes()), result));
            if (ratios) {
                out.append(ratio(m, measurements).map(r -> String.format(Locale.ROOT, "  %.2f", r)).orElse("  -"));
            }
            out.append('\n');
            if (m.error() != null) {
                out.append("     ").append(m.error()).append('\n');
            } else if (!m.agrees()) {
                out.append("     got ").append(m.result()).append(", expected ").append(m.expected()).append('\n');
            }
        }
        return out.toString();
    }

    /** spilljoin's median over this measurement's median, for the same workload and setting. */
    static Optional<Double> ratio(Measurement m, List<Measurement> all) {
        if (m.engine().equals(SPILLJOIN) || Double.isNaN(m.medianSeconds())) {
            return Optional.empty();
        }
        return all.stream()
                .filter(o -> o.engine().equals(SPILLJOIN) && o.workload() == m.workload() && o.setting() == m.setting()
                        && !Double.isNaN(o.medianSeconds()))
                .findFirst()
                .map(o -> o.medianSeconds() / m.medianSeconds());
    }

    static String bytes(OptionalLong bytes) {
        return bytes.isPresent() ? bytes(bytes.getAsLong()) : "-";
    }

    /** A peak resident set read by {@link MeasuredProcess}: as {@link #bytes(long)}, or "unknown" (-1). */
    static String rss(long bytes) {
        return bytes < 0 ? "unknown" : bytes(bytes);
    }

    /** Binary units with about three significant digits: 32.0MB, 512MB, 1000KB, 1.50GB. */
    static String bytes(long bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        if (unit == 0) {
            return bytes + "B";
        }
        String pattern = value >= 100 ? "%.0f%s" : value >= 10 ? "%.1f%s" : "%.2f%s";
        return String.format(Locale.ROOT, pattern, value, units[unit]);
    }
}
