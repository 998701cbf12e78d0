package dev.spilljoin.cli;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The file formats of the join's inputs and output: CSV (plain, or {@code .csv.gz}/{@code .csv.zst} compressed,
 * by extension) and Parquet. Given by {@code --left-format}/{@code --right-format}/{@code --output-format}, else
 * by the path: {@code .parquet}/{@code .parq} (in any case), a glob ending so, or a directory holding such files is
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

    /** Whether {@code path}'s file name ends in {@code .parquet} or {@code .parq}, in any case. */
    static boolean hasParquetExtension(Path path) {
        String name = lowerCaseName(path);
        return name.endsWith(".parquet") || name.endsWith(".parq");
    }

    /** {@code path}'s file name in lower case ("" for a root), for extensions in any case ({@code .CSV.GZ}). */
    static String lowerCaseName(Path path) {
        return path.getFileName() == null ? "" : path.getFileName().toString().toLowerCase(Locale.ROOT);
    }
}
