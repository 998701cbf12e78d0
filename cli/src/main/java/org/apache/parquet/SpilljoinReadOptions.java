package org.apache.parquet;

import java.util.Map;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;

/**
 * spilljoin's read options for parquet-java, made without Hadoop. {@link ParquetReadOptions.Builder} always
 * creates Hadoop's codec factory first (loading Hadoop classes) even when another is given, so the options are
 * built with {@link ParquetReadOptions}' own (package-private) constructor, from this class in its package: checked
 * by the compiler against the pinned parquet-java version. No filter (the join reads every row), heap buffers,
 * the given codecs, no decryption.
 */
public final class SpilljoinReadOptions {
    /** parquet-java's default largest single allocation (8 MiB). */
    private static final int MAX_ALLOCATION_BYTES = 8 << 20;

    private SpilljoinReadOptions() {
    }

    public static ParquetReadOptions create(CompressionCodecFactory codecs) {
        return new ParquetReadOptions(false, false, false, false, false, false, false, false, false,
                FilterCompat.NOOP, ParquetMetadataConverter.NO_FILTER, codecs, new HeapByteBufferAllocator(),
                MAX_ALLOCATION_BYTES, Map.of(), null, null, new PlainParquetConfiguration());
    }
}
