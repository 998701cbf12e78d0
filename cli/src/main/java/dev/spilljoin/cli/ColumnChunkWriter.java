package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * One column chunk of a Parquet file, written page by page from column vectors with parquet-java's own encoders: the
 * value writer its {@link ParquetProperties} give ({@link OutputValuesWriters}), its definition-level writer (RLE),
 * its per-page {@link Statistics}, {@link SizeStatistics} and geospatial statistics, handed to a {@link PageWriter}
 * as data pages V1 in the layout parquet-java's V1 column writer gives them (repetition levels, definition levels,
 * values). An INT64 column's run of BIGINT values without NULLs goes to the level and value writers in a loop of its
 * own, its statistics updated once with the run's least and greatest value (in the column's order, unsigned for
 * UINT_64).
 *
 * <p>Why not parquet-java's column write store: it costs a chain of calls per value (repetition and definition
 * levels, the value, three statistics, a page-size check per record) that profiled at about twice what the encoders
 * themselves take warm, and several times that in a fresh JVM, whose compiler has far less to compile here; and
 * every C2 recompilation of it, when the dictionary writer falls back, recompiled the
 * caller's whole loop.
 *
 * <p>Invariants: the schema is flat, so the maximum repetition level is 0 (its writer holds nothing, and levels of 0
 * are not written to it) and the maximum definition level is 1 for an OPTIONAL column (0 for a NULL); a page ends
 * once its values reach {@link ParquetProperties#getPageRowCountLimit()} (a value is a row) or its buffered bytes
 * reach {@link ParquetProperties#getPageSizeThreshold()}, checked every {@value #CHECK_ROWS} values at most; the
 * dictionary page, if the chunk kept its dictionary, is handed over at {@link #finish()} (the page store writes it
 * before the data pages).
 *
 * <p>A byte-array page's statistics are handed over with short bounds ({@link PageBounds}): the file writer keeps
 * every column chunk's statistics until the footer is written.
 *
 * <p>A page whose compressor reads one array (GZIP, ZSTD: {@link ParquetCodecs#compressesOneArray}) is first
 * assembled in one array ({@link PageBytes}) and the level and value writers reset before it is handed over, so their
 * buffers go back to the allocator before the compressor runs; any other page is handed over in its pieces (SNAPPY's
 * compressor reads them 64 KB at a time, {@link SnappyFragments}; an uncompressed page the page store copies once).
 */
final class ColumnChunkWriter {
    /** Values written between two checks of the page's size. */
    static final int CHECK_ROWS = 128;

    private final PrimitiveType type;
    private final PageWriter pages;
    private final int pageRowLimit;
    private final int pageBytes;
    private final int defined;
    private final ValuesWriter repetitionLevels;
    private final ValuesWriter definitionLevels;
    private final ValuesWriter values;
    /** The column's statistics order is unsigned (UINT_64): the bias that maps it onto the signed order. */
    private final long statisticsBias;
    private final PageBounds bounds;
    /** Where a page is assembled before it is compressed; null when it is handed over in its pieces. */
    private final PageBytes assembled;
    private Statistics<?> statistics;
    private SizeStatistics.Builder sizes;
    private GeospatialStatistics.Builder geospatial;
    /** A DECIMAL in a FIXED_LEN_BYTE_ARRAY: its width (0: any other column); a value's bytes made for it. */
    private final int decimalWidth;
    private final byte[] decimalBytes;
    private int pageValues;
    private boolean keptDictionary;

    /**
     * A chunk of column {@code descriptor} written to {@code pages} with the encoders of {@code properties}, each
     * page assembled in {@code assembled} (null: handed over in pieces, for a compressor that reads them so).
     */
    ColumnChunkWriter(ColumnDescriptor descriptor, PageWriter pages, ParquetProperties properties,
                      PageBytes assembled) {
        if (descriptor.getMaxRepetitionLevel() != 0) {
            throw new IllegalArgumentException("a repeated column: " + descriptor);
        }
        this.type = descriptor.getPrimitiveType();
        this.decimalWidth = ParquetDecimal.inBytes(type)
                && type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                ? type.getTypeLength() : 0;
        this.decimalBytes = new byte[Math.max(Long.BYTES, decimalWidth)];
        this.pages = pages;
        this.pageRowLimit = properties.getPageRowCountLimit();
        this.pageBytes = properties.getPageSizeThreshold();
        this.defined = descriptor.getMaxDefinitionLevel();
        this.repetitionLevels = properties.newRepetitionLevelWriter(descriptor);
        this.definitionLevels = properties.newDefinitionLevelWriter(descriptor);
        this.values = properties.newValuesWriter(descriptor);
        this.statisticsBias = ParquetColumnType.isUnsigned(type) ? Long.MIN_VALUE : 0L;
        this.bounds = new PageBounds(type);
        this.assembled = assembled;
        newPageStatistics();
    }

    /**
     * Writes rows {@code 0 .. rows-1} of {@code v} (of {@code this} column's operator type: INTEGER values to an
     * INT32 or INT64 column, BIGINT values to either, DOUBLE to DOUBLE or FLOAT, BOOLEAN, and byte values to BINARY or
     * FIXED_LEN_BYTE_ARRAY; a DECIMAL's as {@link ParquetDecimal} holds it, a long or bytes, to any of them), NULLs as
     * definition level 0.
     */
    void write(ColumnVector v, int rows) throws IOException {
        for (int r = 0; r < rows; ) {
            int end = Math.min(rows, r + Math.min(CHECK_ROWS, pageRowLimit - pageValues));
            writeRun(v, r, end);
            pageValues += end - r;
            r = end;
            if (pageValues >= pageRowLimit
                    || definitionLevels.getBufferedSize() + values.getBufferedSize() >= pageBytes) {
                writePage();
            }
        }
    }

    /** Rows {@code from .. to-1} of {@code v} into the open page, the type chosen once. */
    private void writeRun(ColumnVector v, int from, int to) {
        switch (type.getPrimitiveTypeName()) {
            case INT64 -> {
                if (v.type() == ColumnType.BIGINT && !v.mayHaveNulls()) {
                    writeLongRun(v.longs(), from, to);
                    return;
                }
                boolean ints = v.type() == ColumnType.INTEGER;
                for (int r = from; r < to; r++) {
                    if (v.isNull(r)) {
                        writeNull();
                    } else {
                        long value = ints ? v.ints()[r] : v.longs()[r];
                        definitionLevels.writeInteger(defined);
                        values.writeLong(value);
                        statistics.updateStats(value);
                        sizes.add(0, defined);
                    }
                }
            }
            case INT32 -> {
                boolean ints = v.type() == ColumnType.INTEGER;
                for (int r = from; r < to; r++) {
                    if (v.isNull(r)) {
                        writeNull();
                    } else {
                        int value = ints ? v.ints()[r] : (int) v.longs()[r];
                        definitionLevels.writeInteger(defined);
                        values.writeInteger(value);
                        statistics.updateStats(value);
                        sizes.add(0, defined);
                    }
                }
            }
            case DOUBLE -> {
                double[] doubles = v.doubles();
                for (int r = from; r < to; r++) {
                    if (v.isNull(r)) {
                        writeNull();
                    } else {
                        definitionLevels.writeInteger(defined);
                        values.writeDouble(doubles[r]);
                        statistics.updateStats(doubles[r]);
                        sizes.add(0, defined);
                    }
                }
            }
            case FLOAT -> {
                double[] doubles = v.doubles();
                for (int r = from; r < to; r++) {
                    if (v.isNull(r)) {
                        writeNull();
                    } else {
                        float value = (float) doubles[r];
                        definitionLevels.writeInteger(defined);
                        values.writeFloat(value);
                        statistics.updateStats(value);
                        sizes.add(0, defined);
                    }
                }
            }
            case BOOLEAN -> {
                boolean[] booleans = v.booleans();
                for (int r = from; r < to; r++) {
                    if (v.isNull(r)) {
                        writeNull();
                    } else {
                        definitionLevels.writeInteger(defined);
                        values.writeBoolean(booleans[r]);
                        statistics.updateStats(booleans[r]);
                        sizes.add(0, defined);
                    }
                }
            }
            case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> {
                if (v.type() == ColumnType.BIGINT) {
                    writeDecimalLongs(v, from, to);
                } else {
                    writeBytes(v, from, to);
                }
            }
        }
    }

    /**
     * Values {@code from .. to-1} of {@code longs}, none NULL, to the level and value writers, the statistics updated
     * once for the run. The page's size statistics hold nothing for them: no level histograms at maximum levels of 0
     * and 1 (the format leaves them out there, and parquet-java's builder keeps none) and no byte count for a column
     * that is not BYTE_ARRAY.
     */
    private void writeLongRun(long[] longs, int from, int to) {
        long least = Long.MAX_VALUE;
        long greatest = Long.MIN_VALUE;
        for (int r = from; r < to; r++) {
            definitionLevels.writeInteger(defined);
            values.writeLong(longs[r]);
            long key = longs[r] ^ statisticsBias;
            least = Math.min(least, key);
            greatest = Math.max(greatest, key);
        }
        if (from < to) {
            statistics.updateStats(least ^ statisticsBias);
            statistics.updateStats(greatest ^ statisticsBias);
        }
    }

    /**
     * Byte values, as held; a DECIMAL's minimal form ({@link ParquetDecimal}) widened to a FIXED_LEN_BYTE_ARRAY's
     * width, which is at least the most bytes any value of its precision needs.
     */
    private void writeBytes(ColumnVector v, int from, int to) {
        int[] offsets = v.offsets();
        byte[] bytes = v.bytes();
        for (int r = from; r < to; r++) {
            if (v.isNull(r)) {
                writeNull();
                continue;
            }
            int length = offsets[r + 1] - offsets[r];
            // The writers copy what they keep of a reused array (the dictionary, the statistics' bounds).
            if (decimalWidth == 0 || length == decimalWidth) {
                writeBinary(Binary.fromReusedByteArray(bytes, offsets[r], length));
            } else {
                ParquetDecimal.signExtend(bytes, offsets[r], length, decimalBytes, decimalWidth);
                writeBinary(Binary.fromReusedByteArray(decimalBytes, 0, decimalWidth));
            }
        }
    }

    /**
     * A DECIMAL of at most 18 digits held as its unscaled long, into a FIXED_LEN_BYTE_ARRAY of its width or a
     * BINARY of the fewest bytes.
     */
    private void writeDecimalLongs(ColumnVector v, int from, int to) {
        long[] longs = v.longs();
        for (int r = from; r < to; r++) {
            if (v.isNull(r)) {
                writeNull();
            } else {
                writeBinary(Binary.fromReusedByteArray(decimalBytes, 0,
                        ParquetDecimal.write(longs[r], decimalBytes, decimalWidth)));
            }
        }
    }

    private void writeBinary(Binary value) {
        definitionLevels.writeInteger(defined);
        values.writeBytes(value);
        bounds.update(statistics, value);
        sizes.add(0, defined, value);
        geospatial.update(value);
    }

    private void writeNull() {
        definitionLevels.writeInteger(0);
        statistics.incrementNumNulls();
        sizes.add(0, 0);
    }

    /**
     * Hands the open page to the page writer (compressed and buffered there) and opens the next. The encodings are
     * asked for after the bytes, as parquet-java's own column writer does (a dictionary writer may fall back then).
     */
    private void writePage() throws IOException {
        BytesInput page = BytesInput.concat(repetitionLevels.getBytes(), definitionLevels.getBytes(),
                values.getBytes());
        Encoding repetitionEncoding = repetitionLevels.getEncoding();
        Encoding definitionEncoding = definitionLevels.getEncoding();
        Encoding valuesEncoding = values.getEncoding();
        if (assembled != null) {
            page = assembled.assemble(page);
            resetWriters();
        }
        pages.writePage(page, pageValues, pageValues, bounds.shortened(statistics), sizes.build(), geospatial.build(),
                repetitionEncoding, definitionEncoding, valuesEncoding);
        if (assembled != null) {
            assembled.releaseLarge();
        } else {
            resetWriters();
        }
        pageValues = 0;
        newPageStatistics();
    }

    private void resetWriters() {
        repetitionLevels.reset();
        definitionLevels.reset();
        values.reset();
    }

    private void newPageStatistics() {
        statistics = Statistics.createStats(type);
        sizes = SizeStatistics.newBuilder(type, 0, defined);
        geospatial = GeospatialStatistics.newBuilder(type);
    }

    /** Bytes held for this chunk: its pages so far (compressed) and the open page's levels and values. */
    long bufferedSize() {
        return pages.getMemSize() + definitionLevels.getBufferedSize() + values.getBufferedSize();
    }

    /** Writes the last page and, if the chunk kept dictionary encoding, its dictionary page. */
    void finish() throws IOException {
        if (pageValues > 0) {
            writePage();
        }
        DictionaryPage dictionary = values.toDictPageAndClose();
        if (dictionary != null) {
            pages.writeDictionaryPage(dictionary);
            values.resetDictionary();
            keptDictionary = true;
        }
    }

    /** Whether the chunk ended dictionary-encoded (known after {@link #finish()}). */
    boolean keptDictionary() {
        return keptDictionary;
    }

    /** Releases the writers' buffers. */
    void close() {
        repetitionLevels.close();
        definitionLevels.close();
        values.close();
    }
}
