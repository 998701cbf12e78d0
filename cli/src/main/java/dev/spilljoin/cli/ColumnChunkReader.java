package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.CorruptDeltaByteArrays;
import org.apache.parquet.VersionParser;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.RequiresPreviousReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.column.values.rle.ZeroIntegerValuesReader;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * One column chunk of a flat Parquet column decoded page by page into column vectors, with parquet-java's decoders:
 * each data page's definition levels (RLE or bit-packed in a v1 page, RLE in a v2 page) and its values (the page's
 * encoding's reader: plain, dictionary-based over the chunk's dictionary, delta, byte-stream-split...), set up from
 * the page as parquet-java's column reader sets them up, without its record-assembly bookkeeping per value (level,
 * value, consume: about twice the decoders' own work).
 *
 * <p>Algorithm: {@link #read} decodes a run of values at a time, as many as the vector needs and the page holds, in
 * a loop of one type chosen per run: a definition level below the column's maximum is a NULL, any other is followed
 * by a value read straight into the vector's array (integers as longs, FLOAT widened to DOUBLE, bytes copied into the
 * vector's byte array). A page whose values are used up is replaced by the next; a delta-byte-array reader of a file
 * whose writer had PARQUET-246 is handed the previous page's reader, as parquet-java does.
 *
 * <p>Invariants: the column is not repeated (repetition levels are all 0 and not read); the chunk holds at least as
 * many values as its row group has rows (else a {@link ParquetDecodingException}, which the caller reports naming
 * the file).
 */
final class ColumnChunkReader {
    private final ColumnDescriptor descriptor;
    private final PageReader pages;
    private final VersionParser.ParsedVersion writer;
    private final Dictionary dictionary;
    private final int defined;
    private ValuesReader levels;
    private ValuesReader values;
    private int pageValuesLeft;

    /** The chunk of {@code descriptor} whose pages {@code pages} gives, written by {@code createdBy} (may be null). */
    ColumnChunkReader(ColumnDescriptor descriptor, PageReader pages, String createdBy) {
        if (descriptor.getMaxRepetitionLevel() != 0) {
            throw new IllegalArgumentException("a repeated column: " + descriptor);
        }
        this.descriptor = descriptor;
        this.pages = pages;
        this.writer = parseVersion(createdBy);
        this.defined = descriptor.getMaxDefinitionLevel();
        DictionaryPage page = pages.readDictionaryPage();
        try {
            this.dictionary = page == null ? null : page.getEncoding().initDictionary(descriptor, page);
        } catch (IOException e) {
            throw new ParquetDecodingException("could not decode the dictionary of " + descriptor, e);
        }
    }

    private static VersionParser.ParsedVersion parseVersion(String createdBy) {
        try {
            return createdBy == null ? null : VersionParser.parse(createdBy);
        } catch (RuntimeException | VersionParser.VersionParseException e) {
            return null; // an unknown writer: no known bug to work around
        }
    }

    /** Decodes the chunk's next {@code n} values into {@code vector} rows {@code from ..}. */
    void read(ColumnVector vector, int from, int n) {
        int end = from + n;
        for (int r = from; r < end; ) {
            if (pageValuesLeft == 0) {
                nextPage();
            }
            int run = Math.min(end - r, pageValuesLeft);
            readRun(vector, r, r + run);
            pageValuesLeft -= run;
            r += run;
        }
    }

    /** Rows {@code from .. to-1} of {@code vector} from the current page, the type chosen once. */
    private void readRun(ColumnVector vector, int from, int to) {
        ValuesReader levels = this.levels;
        ValuesReader values = this.values;
        switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
            case INT64 -> {
                long[] longs = vector.longs();
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        longs[r] = values.readLong();
                    }
                }
            }
            case INT32 -> {
                long[] longs = vector.longs();
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        longs[r] = values.readInteger();
                    }
                }
            }
            case DOUBLE -> {
                double[] doubles = vector.doubles();
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        doubles[r] = values.readDouble();
                    }
                }
            }
            case FLOAT -> {
                double[] doubles = vector.doubles();
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        doubles[r] = values.readFloat();
                    }
                }
            }
            case BOOLEAN -> {
                boolean[] booleans = vector.booleans();
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        booleans[r] = values.readBoolean();
                    }
                }
            }
            case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> {
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        ByteBuffer value = values.readBytes().toByteBuffer();
                        int length = value.remaining();
                        int at = vector.reserveBytes(r, length);
                        value.get(vector.bytes(), at, length);
                    }
                }
            }
        }
    }

    /** Reads the next data page and sets up its level and value readers. */
    private void nextPage() {
        DataPage page = pages.readPage();
        if (page == null) {
            throw new ParquetDecodingException("column " + String.join(".", descriptor.getPath())
                    + " has fewer values than its row group has rows");
        }
        try {
            if (page instanceof DataPageV1 v1) {
                ByteBufferInputStream in = v1.getBytes().toInputStream();
                v1.getRlEncoding().getValuesReader(descriptor, ValuesType.REPETITION_LEVEL)
                        .initFromPage(v1.getValueCount(), in);
                levels = v1.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
                levels.initFromPage(v1.getValueCount(), in);
                values = valuesReader(v1.getValueEncoding(), v1.getValueCount(), in);
            } else if (page instanceof DataPageV2 v2) {
                levels = defined == 0 ? new ZeroIntegerValuesReader()
                        : new LevelsV2(BytesUtils.getWidthFromMaxInt(defined), v2.getDefinitionLevels());
                values = valuesReader(v2.getDataEncoding(), v2.getValueCount(), v2.getData().toInputStream());
            } else {
                throw new ParquetDecodingException("an unknown kind of data page: " + page);
            }
        } catch (IOException e) {
            throw new ParquetDecodingException("could not read a page of column " + descriptor, e);
        }
        pageValuesLeft = page.getValueCount();
    }

    /** The reader of a page's values in {@code encoding}, positioned at them in {@code in}. */
    private ValuesReader valuesReader(Encoding encoding, int count, ByteBufferInputStream in) throws IOException {
        ValuesReader previous = values;
        ValuesReader reader;
        if (encoding.usesDictionary()) {
            if (dictionary == null) {
                throw new ParquetDecodingException("a page of column " + descriptor + " is dictionary-encoded but the"
                        + " column chunk has no dictionary page");
            }
            reader = encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary);
        } else {
            reader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
        }
        if (CorruptDeltaByteArrays.requiresSequentialReads(writer, encoding)
                && previous instanceof RequiresPreviousReader && reader instanceof RequiresPreviousReader) {
            ((RequiresPreviousReader) reader).setPreviousReader(previous);
        }
        reader.initFromPage(count, in);
        return reader;
    }

    /** A v2 page's definition levels (RLE without a length prefix, stored uncompressed) as a values reader. */
    private static final class LevelsV2 extends ValuesReader {
        private final RunLengthBitPackingHybridDecoder decoder;

        LevelsV2(int bitWidth, BytesInput levels) throws IOException {
            this.decoder = new RunLengthBitPackingHybridDecoder(bitWidth, levels.toInputStream());
        }

        @Override
        public int readInteger() {
            try {
                return decoder.readInt();
            } catch (IOException e) {
                throw new ParquetDecodingException("could not read a definition level", e);
            }
        }

        @Override
        public void skip() {
            readInteger();
        }
    }
}
