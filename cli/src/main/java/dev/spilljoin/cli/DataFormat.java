package dev.spilljoin.cli;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The file formats of the join's inputs and output: CSV (plain, or {@code .csv.gz}/{@code .csv.zst} compressed,
 * by extension) and Parquet. Given by {@code --left-format}/{@code --right-format}/{@code --output-format}, else
 * by the path: {@code .parquet}/{@code .parq}, a glob ending so, or a directory holding {@code .parquet} files is
 * Parquet, anything else CSV (standard input and pipes included).
 */
enum DataFormat {
    CSV,
    PARQUET;

    /** {@code flag}'s value {@code given} if not null, else the format {@code path} names. */
    static DataFormat of(String given, String flag, Path path) {
        if (given != null) {
            return switch (given.trim().toLowerCase(Locale.ROOT)) {
                case "csv" -> CSV;
                case "parquet" -> PARQUET;
                default -> throw new UsageException(flag + " '" + given + "' is not csv or parquet");
            };
        }
        return path != null && !InputStreams.isStandardInput(path) && ParquetInput.looksLikeParquet(path) ? PARQUET
                : CSV;
    }
}
