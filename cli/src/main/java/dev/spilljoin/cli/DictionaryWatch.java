package dev.spilljoin.cli;

import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriteStore;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;

/**
 * One column chunk's page writer, passed through to parquet-java's own ({@code target}), that notes whether the
 * chunk ended with a dictionary page: parquet-java's column writer tries dictionary encoding on every chunk and
 * falls back to plain encoding once the dictionary outgrows its page, which for a column of mostly distinct values
 * costs a hash lookup per value up to that point in every row group. {@link ParquetResultWriter} asks
 * {@link #keptDictionary()} after each row group and writes a column that fell back without a dictionary from then
 * on. Every call is forwarded unchanged, so the pages written are parquet-java's.
 *
 * <p>It is the page write store of a one-column {@link org.apache.parquet.column.ColumnWriteStore} as well (its only
 * page writer is itself).
 */
final class DictionaryWatch implements PageWriteStore, PageWriter {
    private final PageWriter target;
    private boolean keptDictionary;

    DictionaryWatch(PageWriter target) {
        this.target = target;
    }

    /** True once the chunk has written its dictionary page (at its end: it kept dictionary encoding). */
    boolean keptDictionary() {
        return keptDictionary;
    }

    @Override
    public PageWriter getPageWriter(ColumnDescriptor path) {
        return this;
    }

    @Override
    public void writeDictionaryPage(DictionaryPage dictionaryPage) throws IOException {
        keptDictionary = true;
        target.writeDictionaryPage(dictionaryPage);
    }

    @Override
    @Deprecated
    public void writePage(BytesInput bytes, int valueCount, Statistics<?> statistics, Encoding rlEncoding,
                          Encoding dlEncoding, Encoding valuesEncoding) throws IOException {
        target.writePage(bytes, valueCount, statistics, rlEncoding, dlEncoding, valuesEncoding);
    }

    @Override
    public void writePage(BytesInput bytes, int valueCount, int rowCount, Statistics<?> statistics,
                          Encoding rlEncoding, Encoding dlEncoding, Encoding valuesEncoding) throws IOException {
        target.writePage(bytes, valueCount, rowCount, statistics, rlEncoding, dlEncoding, valuesEncoding);
    }

    @Override
    public void writePage(BytesInput bytes, int valueCount, int rowCount, Statistics<?> statistics,
                          SizeStatistics sizeStatistics, Encoding rlEncoding, Encoding dlEncoding,
                          Encoding valuesEncoding) throws IOException {
        target.writePage(bytes, valueCount, rowCount, statistics, sizeStatistics, rlEncoding, dlEncoding,
                valuesEncoding);
    }

    @Override
    public void writePage(BytesInput bytes, int valueCount, int rowCount, Statistics<?> statistics,
                          SizeStatistics sizeStatistics, GeospatialStatistics geospatialStatistics,
                          Encoding rlEncoding, Encoding dlEncoding, Encoding valuesEncoding) throws IOException {
        target.writePage(bytes, valueCount, rowCount, statistics, sizeStatistics, geospatialStatistics, rlEncoding,
                dlEncoding, valuesEncoding);
    }

    @Override
    public void writePageV2(int rowCount, int nullCount, int valueCount, BytesInput repetitionLevels,
                            BytesInput definitionLevels, Encoding dataEncoding, BytesInput data,
                            Statistics<?> statistics) throws IOException {
        target.writePageV2(rowCount, nullCount, valueCount, repetitionLevels, definitionLevels, dataEncoding, data,
                statistics);
    }

    @Override
    public void writePageV2(int rowCount, int nullCount, int valueCount, BytesInput repetitionLevels,
                            BytesInput definitionLevels, Encoding dataEncoding, BytesInput data,
                            Statistics<?> statistics, SizeStatistics sizeStatistics) throws IOException {
        target.writePageV2(rowCount, nullCount, valueCount, repetitionLevels, definitionLevels, dataEncoding, data,
                statistics, sizeStatistics);
    }

    @Override
    public void writePageV2(int rowCount, int nullCount, int valueCount, BytesInput repetitionLevels,
                            BytesInput definitionLevels, Encoding dataEncoding, BytesInput data,
                            Statistics<?> statistics, SizeStatistics sizeStatistics,
                            GeospatialStatistics geospatialStatistics) throws IOException {
        target.writePageV2(rowCount, nullCount, valueCount, repetitionLevels, definitionLevels, dataEncoding, data,
                statistics, sizeStatistics, geospatialStatistics);
    }

    @Override
    public long getMemSize() {
        return target.getMemSize();
    }

    @Override
    public long allocatedSize() {
        return target.allocatedSize();
    }

    @Override
    public String memUsageString(String prefix) {
        return target.memUsageString(prefix);
    }

    /** Closing the page writer is its store's part ({@code ColumnChunkPageWriteStore#close}), after the flush. */
    @Override
    public void close() {
    }
}
