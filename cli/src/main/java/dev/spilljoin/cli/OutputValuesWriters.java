package dev.spilljoin.cli;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.DefaultV2ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;

/**
 * The value encoders of spilljoin's Parquet output, all parquet-java's: an INT32 or INT64 column's as its Parquet 2
 * writer chooses them (dictionary encoding, its data pages RLE_DICTIONARY, falling back to DELTA_BINARY_PACKED), any
 * other column's as its Parquet 1 writer does (dictionary encoding falling back to PLAIN).
 *
 * <p>Why delta for integers: keys and ids are integers of fewer significant bytes than their width, or close to
 * their neighbours, which PLAIN stores whole for the page compressor to find again: the encoder's bit packing
 * costs less than compressing the PLAIN bytes, and the file is smaller (docs/PERFORMANCE.md). Every reader the
 * tests and the bench use reads it (DuckDB, Spark's parquet-java, spilljoin's own), as do Arrow, Trino and Polars;
 * strings keep PLAIN, whose Parquet 2 fallback (DELTA_BYTE_ARRAY) fewer readers decode.
 *
 * <p>One instance per {@link ParquetProperties} (which it is initialized with).
 */
final class OutputValuesWriters implements ValuesWriterFactory {
    private final ValuesWriterFactory integers = new DefaultV2ValuesWriterFactory();
    private final ValuesWriterFactory others = new DefaultV1ValuesWriterFactory();

    @Override
    public void initialize(ParquetProperties properties) {
        integers.initialize(properties);
        others.initialize(properties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor column) {
        return switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case INT32, INT64 -> integers.newValuesWriter(column);
            default -> others.newValuesWriter(column);
        };
    }
}
