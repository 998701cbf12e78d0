package dev.spilljoin.cli;

import java.nio.file.Path;

/**
 * The {@code join} command's flags as given, before any checking ({@link JoinPlanner} checks them).
 * Null means "not given" for the optional ones.
 */
public record JoinOptions(Path left, Path right, String on, JoinKind type, String workMem, Path output, Path stats,
                          Path spillDir, String delimiter, boolean noHeader, String schemaLeft, String schemaRight,
                          OnError onError, boolean quiet, Integer threads, FormatOptions formats,
                          String buildSide) {
    /**
     * The format flags: {@code --left-format}, {@code --right-format}, {@code --output-format} (csv or parquet; null:
     * by extension) and {@code --compression} (Parquet output; null: snappy).
     */
    public record FormatOptions(String left, String right, String output, String compression) {
        public static final FormatOptions BY_EXTENSION = new FormatOptions(null, null, null, null);
    }

    public static final String DEFAULT_WORK_MEM = "256MB";
}
