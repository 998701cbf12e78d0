package dev.spilljoin.cli;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;

/**
 * The value encoders of spilljoin's Parquet output: an INT32 or INT64 column's as parquet-java's Parquet 2 writer
 * chooses them (dictionary encoding, its data pages RLE_DICTIONARY, falling back to DELTA_BINARY_PACKED), the delta
 * encoding spilljoin's own ({@link DeltaBinaryPackedValues}); any other column's parquet-java's, as its Parquet 1
 * writer does (dictionary encoding falling back to PLAIN).
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
    private final ValuesWriterFactory others = new DefaultV1ValuesWriterFactory();
    private ParquetProperties properties;

    @Override
    public void initialize(ParquetProperties properties) {
        this.properties = properties;
        others.initialize(properties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor column) {
        return switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> integers(column, true);
            case INT64 -> integers(column, false);
            default -> others.newValuesWriter(column);
        };
    }

    /** An integer column's: deltas, after a dictionary while it fits its page when the column tries one. */
    private ValuesWriter integers(ColumnDescriptor column, boolean int32) {
        DeltaBinaryPackedValues deltas = new DeltaBinaryPackedValues(int32, properties.getInitialSlabSize());
        if (!properties.isDictionaryEnabled(column)) {
            return deltas;
        }
        int dictionaryBytes = properties.getDictionaryPageSizeThreshold();
        DictionaryValuesWriter dictionary = int32
                ? new DictionaryValuesWriter.PlainIntegerDictionaryValuesWriter(dictionaryBytes,
                        Encoding.RLE_DICTIONARY, Encoding.PLAIN, properties.getAllocator())
                : new DictionaryValuesWriter.PlainLongDictionaryValuesWriter(dictionaryBytes,
                        Encoding.RLE_DICTIONARY, Encoding.PLAIN, properties.getAllocator());
        return FallbackValuesWriter.of(dictionary, deltas);
    }
}
