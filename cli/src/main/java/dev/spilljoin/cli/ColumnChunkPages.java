package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * One column chunk's pages, read from the file one at a time as its {@link ColumnChunkReader} asks for them (it
 * decodes them: levels, dictionary and values), so a row group of any size is decoded in the memory of one page per
 * column.
 *
 * <p>Algorithm: a {@link PositionalInput} starts at the chunk's first page (its dictionary page, when it has one);
 * each page is its Thrift header ({@link Util#readPageHeader}) then its body. The first page is looked at when the
 * reader asks for the dictionary: a dictionary page is decompressed and handed over, any other page is kept for
 * {@link #readPage}. {@link #readPage} skips index pages and returns data pages (v1: the body decompressed whole;
 * v2: the levels as stored, the values decompressed when the header says so) until the chunk's value count (from the
 * footer) is reached, then null. Pages are not checked against their CRC (parquet-java's reader does not either by
 * default); statistics are not read (the join reads every row).
 *
 * <p>Memory: the input's buffer, the column's {@link PageBuffers} (one compressed page body and two decoded data
 * pages, kept from page to page and chunk to chunk) and the dictionary page (an array of its own: a dictionary of
 * byte values refers to it for the whole chunk); a page whose compressed or uncompressed size exceeds
 * {@link #MAX_PAGE_BYTES} is refused, naming the column.
 */
final class ColumnChunkPages implements PageReader {
    /** The largest page (compressed or not, dictionary pages included) spilljoin decodes. */
    static final int MAX_PAGE_BYTES = 64 << 20;

    private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

    private final Path file;
    private final ColumnDescriptor column;
    private final CompressionCodecName codec;
    private final long totalValues;
    private final PositionalInput in;
    private final Statistics<?> noStatistics;
    private PageHeader pending;
    private long valuesRead;
    private final PageBuffers buffers;

    /**
     * The pages of {@code chunk} (of {@code column}) in {@code file}, read through {@code in}, positioned at its start,
     * into the column's {@code buffers}.
     */
    ColumnChunkPages(Path file, ColumnDescriptor column, ColumnChunkMetaData chunk, PositionalInput in,
                     PageBuffers buffers) {
        this.file = file;
        this.column = column;
        this.codec = chunk.getCodec();
        this.totalValues = chunk.getValueCount();
        this.in = in;
        this.buffers = buffers;
        this.noStatistics = Statistics.noopStats(column.getPrimitiveType());
        if (!ParquetCodecs.supports(codec)) {
            throw failure("is compressed with " + codec + ", which spilljoin cannot read (only UNCOMPRESSED, SNAPPY,"
                    + " GZIP and ZSTD); rewrite the file with one of those", null);
        }
    }

    @Override
    public long getTotalValueCount() {
        return totalValues;
    }

    @Override
    public DictionaryPage readDictionaryPage() {
        try {
            PageHeader header = nextHeader();
            if (header == null || header.getType() != PageType.DICTIONARY_PAGE) {
                pending = header;
                return null;
            }
            int size = checkedSize(header.getUncompressed_page_size());
            byte[] bytes = new byte[size];
            read(checkedSize(header.getCompressed_page_size()), bytes, size, true);
            return new DictionaryPage(BytesInput.from(bytes), header.getUncompressed_page_size(),
                    header.getDictionary_page_header().getNum_values(),
                    CONVERTER.getEncoding(header.getDictionary_page_header().getEncoding()));
        } catch (IOException | RuntimeException e) {
            throw failure(e);
        }
    }

    @Override
    public DataPage readPage() {
        try {
            while (valuesRead < totalValues) {
                PageHeader header = pending != null ? pending : nextHeader();
                pending = null;
                if (header == null) {
                    throw new IOException("the column chunk ends after " + valuesRead + " of its " + totalValues
                            + " values");
                }
                switch (header.getType()) {
                    case DATA_PAGE -> {
                        DataPageHeader data = header.getData_page_header();
                        valuesRead += data.getNum_values();
                        int size = checkedSize(header.getUncompressed_page_size());
                        byte[] body = buffers.nextDecoded(size);
                        read(checkedSize(header.getCompressed_page_size()), body, size, true);
                        return new DataPageV1(BytesInput.from(body, 0, size), data.getNum_values(), size,
                                noStatistics,
                                CONVERTER.getEncoding(data.getRepetition_level_encoding()),
                                CONVERTER.getEncoding(data.getDefinition_level_encoding()),
                                CONVERTER.getEncoding(data.getEncoding()));
                    }
                    case DATA_PAGE_V2 -> {
                        DataPageHeaderV2 data = header.getData_page_header_v2();
                        valuesRead += data.getNum_values();
                        return pageV2(header, data);
                    }
                    case DICTIONARY_PAGE -> throw new IOException("a second dictionary page in one column chunk");
                    default -> in.skipFully(checkedSize(header.getCompressed_page_size()));
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            throw failure(e);
        }
    }

    /** A v2 page: repetition and definition levels stored uncompressed before the (maybe compressed) values. */
    private DataPage pageV2(PageHeader header, DataPageHeaderV2 data) throws IOException {
        int stored = checkedSize(header.getCompressed_page_size());
        int levels = data.getRepetition_levels_byte_length() + data.getDefinition_levels_byte_length();
        if (levels < 0 || levels > stored) {
            throw new IOException("a v2 page's levels (" + levels + " bytes) exceed the page (" + stored + ")");
        }
        byte[] levelBytes = new byte[levels];
        in.readFully(levelBytes, 0, levels);
        int valuesStored = stored - levels;
        int valuesSize = checkedSize(header.getUncompressed_page_size()) - levels;
        boolean valuesCompressed = !data.isSetIs_compressed() || data.isIs_compressed();
        byte[] values = buffers.nextDecoded(valuesSize);
        read(valuesStored, values, valuesSize, valuesCompressed);
        int repetition = data.getRepetition_levels_byte_length();
        return DataPageV2.uncompressed(data.getNum_rows(), data.getNum_nulls(), data.getNum_values(),
                BytesInput.from(levelBytes, 0, repetition),
                BytesInput.from(levelBytes, repetition, levels - repetition),
                CONVERTER.getEncoding(data.getEncoding()), BytesInput.from(values, 0, valuesSize), noStatistics);
    }

    /**
     * Reads the next {@code storedSize} bytes, a page body, into the first {@code size} bytes of {@code out},
     * decompressed unless the chunk or {@code isCompressed} says it is stored as it is.
     */
    private void read(int storedSize, byte[] out, int size, boolean isCompressed) throws IOException {
        if (codec == CompressionCodecName.UNCOMPRESSED || !isCompressed) {
            if (storedSize != size) {
                throw new IOException("an uncompressed page of " + storedSize + " bytes says it holds " + size);
            }
            in.readFully(out, 0, size);
            return;
        }
        byte[] compressed = buffers.compressed(storedSize);
        in.readFully(compressed, 0, storedSize);
        ParquetCodecs.decompress(codec, compressed, storedSize, out, size);
    }

    private PageHeader nextHeader() throws IOException {
        if (valuesRead >= totalValues && pending == null) {
            return null;
        }
        return Util.readPageHeader(in);
    }

    private int checkedSize(int size) throws IOException {
        if (size < 0) {
            throw new IOException("a page header gives a negative size (" + size + ")");
        }
        if (size > MAX_PAGE_BYTES) {
            throw failure("has a page of " + (size >> 20) + " MB; spilljoin decodes pages of up to "
                    + (MAX_PAGE_BYTES >> 20) + " MB (memory for decoding is bounded); rewrite the file with smaller"
                    + " pages", null);
        }
        return size;
    }

    private InputException failure(Exception e) {
        if (e instanceof InputException input) {
            return input;
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return failure("cannot be decoded: " + message.lines().findFirst().orElse("")
                + "; is it a complete Parquet file?", e);
    }

    private InputException failure(String what, Exception cause) {
        return new InputException("column '" + String.join(".", column.getPath()) + "' of Parquet file " + file
                + " " + what, cause);
    }
}
