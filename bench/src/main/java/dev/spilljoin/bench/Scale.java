package dev.spilljoin.bench;

/**
 * The row counts of a benchmark run: build side R has {@code nR} rows, probe side S has {@code nS} rows.
 * The standard scales of docs/WORKLOADS.md are {@link #SMALL} and {@link #LARGE}; tests use smaller ones.
 */
public record Scale(String name, int nR, int nS) {

    public static final Scale SMALL = new Scale("small", 1_000_000, 10_000_000);
    public static final Scale LARGE = new Scale("large", 10_000_000, 100_000_000);

    public Scale {
        if (nR < 1 || nS < 1) {
            throw new IllegalArgumentException("scale " + name + ": nR and nS must be positive, got nR=" + nR + " nS=" + nS);
        }
        // W4's probe keys are uniform in [0, 10 nR) and its build keys reach 10 (nR - 1): both must fit an int index.
        if (nR > Integer.MAX_VALUE / 10) {
            throw new IllegalArgumentException("scale " + name + ": nR must be at most " + Integer.MAX_VALUE / 10 + ", got " + nR);
        }
    }

    /** The standard scale named {@code small} or {@code large}, or a custom {@code NRxNS} such as {@code 1000x10000}. */
    public static Scale named(String name) {
        return switch (name) {
            case "small" -> SMALL;
            case "large" -> LARGE;
            default -> {
                String[] counts = name.split("x");
                try {
                    if (counts.length == 2) {
                        yield new Scale(name, Integer.parseInt(counts[0]), Integer.parseInt(counts[1]));
                    }
                } catch (NumberFormatException e) {
                    // falls through to the error below
                }
                throw new IllegalArgumentException("unknown scale '" + name
                        + "': use small (1M x 10M), large (10M x 100M) or NRxNS such as 1000x10000");
            }
        };
    }
}
