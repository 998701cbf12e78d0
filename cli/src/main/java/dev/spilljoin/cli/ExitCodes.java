package dev.spilljoin.cli;

/**
 * The exit codes of the {@code spilljoin} command, as documented in the README's table.
 *
 * <p>0 success; 2 usage (bad flag, unknown column, bad size, budget below the minimum, mismatched key types);
 * 3 input (missing or unreadable file, malformed CSV, a value not fitting its type); 4 resources (disk full,
 * unwritable spill or output directory); 130 interrupted; 1 anything else.
 */
public final class ExitCodes {
    public static final int SUCCESS = 0;
    public static final int INTERNAL = 1;
    public static final int USAGE = 2;
    public static final int INPUT = 3;
    public static final int RESOURCES = 4;
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
