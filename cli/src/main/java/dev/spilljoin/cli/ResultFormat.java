package dev.spilljoin.cli;

import java.nio.file.Path;
import java.util.Locale;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How the result is written: CSV (compressed by the output's extension, {@link CsvCompression}) or Parquet with
 * a page codec ({@code --compression}: snappy by default, as DuckDB writes Parquet; zstd, gzip or none).
 *
 * @param parquetCodec the Parquet page codec; null for CSV
 */
record ResultFormat(DataFormat format, CsvCompression csvCompression, CompressionCodecName parquetCodec) {
    static final ResultFormat CSV = new ResultFormat(DataFormat.CSV, CsvCompression.NONE, null);

    /** The format of {@code --output} ({@code output}; null: standard output) under the format flags. */
    static ResultFormat of(JoinOptions.FormatOptions flags, Path output) {
        DataFormat format = flags.output() != null ? DataFormat.of(flags.output(), "--output-format", null)
                : output != null && DataFormat.hasParquetExtension(output) ? DataFormat.PARQUET : DataFormat.CSV;
        if (format == DataFormat.CSV) {
            if (flags.compression() != null) {
                throw new UsageException("--compression applies to Parquet output; a CSV output is compressed by its"
                        + " extension (.csv.gz, .csv.zst)");
            }
            return new ResultFormat(DataFormat.CSV, output == null ? CsvCompression.NONE : CsvCompression.of(output),
                    null);
        }
        return new ResultFormat(DataFormat.PARQUET, CsvCompression.NONE, codec(flags.compression()));
    }

    private static CompressionCodecName codec(String given) {
        if (given == null) {
            return CompressionCodecName.SNAPPY;
        }
        return switch (given.trim().toLowerCase(Locale.ROOT)) {
            case "zstd" -> CompressionCodecName.ZSTD;
            case "snappy" -> CompressionCodecName.SNAPPY;
            case "gzip" -> CompressionCodecName.GZIP;
            case "none", "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
            default -> throw new UsageException("--compression '" + given + "' is not zstd, snappy, gzip or none");
        };
    }
}
