package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.ToIntFunction;
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
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

/**
 * One column chunk of a flat Parquet column decoded page by page into column vectors, with parquet-java's decoders:
 * each data page's definition levels (RLE or bit-packed in a v1 page, RLE in a v2 page) and its values (the page's
 * encoding's reader: plain, dictionary-based over the chunk's dictionary, delta, byte-stream-split...), set up from
 * the page as parquet-java's column reader sets them up, without its record-assembly bookkeeping per value (level,
 * value, consume: about twice the decoders' own work).
 *
 * <p>Algorithm: {@link #read} decodes a run of values at a time, as many as the vector needs and the page holds, in
 * a loop of one type chosen per run: a definition level below the column's maximum is a NULL, any other is followed
 * by a value read straight into the vector's array (integers as longs, an INT32 annotated INT(8) or INT(16) cut to
 * that width as DuckDB reads it (a value stored beyond its range: 200 in an INT(8, true) is -56), an unsigned one
 * widened as non-negative, FLOAT widened to DOUBLE, bytes copied into the vector's byte array: a dictionary-encoded
 * page's from the chunk's dictionary laid out flat, by id, with no object per value; a DECIMAL in bytes in the one
 * form {@link ParquetDecimal} holds it in: a long, or its minimal bytes; an INT96 normalized, its nanoseconds within
 * its day). A page whose values are used up is replaced by the next; a delta-byte-array reader of a file whose
 * writer had PARQUET-246 is handed the previous page's reader, as parquet-java does.
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
    /**
     * An INT32 value kept in its long: its low bits of the INT annotation's width (32 without one), extended by
     * their sign bit when signed ({@link #int32Sign} is that bit, 0 when unsigned).
     */
    private final long int32Bits;
    private final long int32Sign;
    /**
     * A DECIMAL in bytes ({@link ParquetDecimal}): read as its unscaled long (of at most 18 digits), or as its
     * minimal two's complement; for any DECIMAL, the most bytes that form may have.
     */
    private final boolean decimalLong;
    private final boolean decimalMinimal;
    private final int decimalMaxBytes;
    /**
     * A DECIMAL in INT32 or INT64 whose precision needs fewer bytes than the integer has
     * ({@link ParquetDecimal#maxBytes}): the largest value of that many bytes, beyond which (or below its complement)
     * a stored value is refused as a byte value is; 0 for any other column.
     */
    private final long integerDecimalMax;
    /** An INT96 column: each value normalized ({@link #normalizeInt96}). */
    private final boolean int96;
    private ValuesReader levels;
    private ValuesReader values;
    /** Whether the current page's values are dictionary ids. */
    private boolean pageUsesDictionary;
    /** The chunk's dictionary of byte values laid out flat, once a page needed it. */
    private FlatDictionary flatDictionary;
    /** The chunk's dictionary of a DECIMAL held as longs, once a page needed it. */
    private long[] longDictionary;
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
        PrimitiveType type = descriptor.getPrimitiveType();
        int width = type.getLogicalTypeAnnotation() instanceof IntLogicalTypeAnnotation integer
                ? Math.min(32, integer.getBitWidth()) : 32;
        this.int32Bits = (1L << width) - 1;
        this.int32Sign = ParquetColumnType.isUnsigned(type) ? 0 : 1L << (width - 1);
        boolean decimalBytes = ParquetDecimal.inBytes(type);
        this.decimalLong = decimalBytes && ParquetDecimal.heldAsLong(type);
        this.decimalMinimal = decimalBytes && !decimalLong;
        this.decimalMaxBytes = ParquetDecimal.of(type) == null ? 0
                : ParquetDecimal.maxBytes(ParquetDecimal.of(type).getPrecision());
        int integerBytes = switch (type.getPrimitiveTypeName()) {
            case INT32 -> Integer.BYTES;
            case INT64 -> Long.BYTES;
            default -> 0;
        };
        this.integerDecimalMax = decimalMaxBytes > 0 && decimalMaxBytes < integerBytes
                ? (1L << (8 * decimalMaxBytes - 1)) - 1 : 0;
        this.int96 = type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96;
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
                if (integerDecimalMax != 0) {
                    checkDecimalLongs(vector, from, to);
                }
            }
            case INT32 -> {
                long[] longs = vector.longs();
                long bits = int32Bits;
                long sign = int32Sign;
                for (int r = from; r < to; r++) {
                    if (levels.readInteger() < defined) {
                        vector.setNull(r);
                    } else {
                        longs[r] = ((values.readInteger() & bits) ^ sign) - sign;
                    }
                }
                if (integerDecimalMax != 0) {
                    checkDecimalLongs(vector, from, to);
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
                if (decimalLong) {
                    readDecimalLongs(vector, from, to);
                } else if (pageUsesDictionary) {
                    readDictionaryBytes(vector, from, to);
                } else {
                    readPlainBytes(vector, from, to);
                }
            }
        }
    }

    /**
     * A dictionary-encoded page's byte values: each id decoded by parquet-java, its bytes copied from the chunk's
     * dictionary laid out flat ({@link FlatDictionary}). No object per value, whatever buffer the page is in.
     */
    private void readDictionaryBytes(ColumnVector vector, int from, int to) {
        ValuesReader levels = this.levels;
        ValuesReader values = this.values;
        FlatDictionary flat = flatDictionary();
        byte[] entries = flat.bytes;
        int[] offsets = flat.offsets;
        for (int r = from; r < to; r++) {
            if (levels.readInteger() < defined) {
                vector.setNull(r);
            } else {
                int id = values.readValueDictionaryId();
                int start = offsets[id];
                int length = offsets[id + 1] - start;
                int at = vector.reserveBytes(r, length);
                System.arraycopy(entries, start, vector.bytes(), at, length);
            }
        }
    }

    /**
     * Any other page's byte values, through parquet-java's reader: a {@code Binary} per value (its own) and a buffer
     * view of it, since a value in a direct buffer can only be copied out through one. A DECIMAL's in its minimal
     * form (an empty value: zero, one 0x00).
     */
    private void readPlainBytes(ColumnVector vector, int from, int to) {
        ValuesReader levels = this.levels;
        ValuesReader values = this.values;
        boolean minimal = decimalMinimal;
        for (int r = from; r < to; r++) {
            if (levels.readInteger() < defined) {
                vector.setNull(r);
            } else {
                ByteBuffer value = values.readBytes().toByteBuffer();
                int start = minimal ? minimalStart(value) : value.position();
                int length = value.limit() - start;
                if (minimal && length == 0) {
                    int at = vector.reserveBytes(r, 1); // before bytes(): it may grow them
                    vector.bytes()[at] = 0;
                } else {
                    int at = vector.reserveBytes(r, length);
                    value.get(start, vector.bytes(), at, length);
                    if (int96) {
                        normalizeInt96(vector.bytes(), at);
                    }
                }
            }
        }
    }

    /**
     * A DECIMAL of at most 18 digits in bytes, as its unscaled long: a dictionary-encoded page's from the chunk's
     * dictionary decoded once ({@link #longDictionary}), any other's through a {@code Binary} per value.
     */
    private void readDecimalLongs(ColumnVector vector, int from, int to) {
        ValuesReader levels = this.levels;
        ValuesReader values = this.values;
        long[] longs = vector.longs();
        long[] dictionaryLongs = pageUsesDictionary ? longDictionary() : null;
        for (int r = from; r < to; r++) {
            if (levels.readInteger() < defined) {
                vector.setNull(r);
            } else if (dictionaryLongs != null) {
                longs[r] = dictionaryLongs[values.readValueDictionaryId()];
            } else {
                ByteBuffer value = values.readBytes().toByteBuffer();
                longs[r] = ParquetDecimal.toLong(value, minimalStart(value));
            }
        }
    }

    /**
     * Refuses a DECIMAL value in rows {@code from .. to-1} stored as an integer wider than any value of its precision
     * needs, as a stored byte value is refused: part files may store one DECIMAL as INT32, INT64 or bytes, and the
     * output writes it as the first part file's physical type, which must hold it.
     */
    private void checkDecimalLongs(ColumnVector vector, int from, int to) {
        long[] longs = vector.longs();
        long max = integerDecimalMax;
        for (int r = from; r < to; r++) {
            long value = longs[r];
            if ((value > max || value < ~max) && !vector.isNull(r)) {
                ParquetDecimal.checkLength(ParquetDecimal.minimalLength(value), decimalMaxBytes,
                        descriptor.getPrimitiveType());
            }
        }
    }

    /** Where {@code value}'s minimal two's complement starts, refused when longer than the precision allows. */
    private int minimalStart(ByteBuffer value) {
        int start = ParquetDecimal.minimalStart(value, value.position(), value.limit());
        ParquetDecimal.checkLength(value.limit() - start, decimalMaxBytes, descriptor.getPrimitiveType());
        return start;
    }

    /** The chunk's dictionary laid out flat, made at its first dictionary-encoded page of byte values. */
    private FlatDictionary flatDictionary() {
        if (flatDictionary == null) {
            flatDictionary = new FlatDictionary(dictionary, decimalMinimal ? this::minimalStart : null);
            if (int96) {
                for (int i = 0; i + 1 < flatDictionary.offsets.length; i++) {
                    normalizeInt96(flatDictionary.bytes, flatDictionary.offsets[i]);
                }
            }
        }
        return flatDictionary;
    }

    /**
     * Normalizes the INT96 timestamp at {@code at} (nanoseconds of the day, then the Julian day, little-endian):
     * nanoseconds outside 0 .. 24 h, a day carried in them or a time before midnight, which a writer may leave and
     * DuckDB reads as the instant they add up to, are moved into the day, so that one instant has one encoding and
     * equal instants are equal keys.
     */
    private static void normalizeInt96(byte[] bytes, int at) {
        long nanos = ByteWords.word(bytes, at);
        if (nanos >= 0 && nanos < ParquetValueText.NANOS_PER_DAY) {
            return;
        }
        int day = bytes[at + 8] & 0xFF | (bytes[at + 9] & 0xFF) << 8 | (bytes[at + 10] & 0xFF) << 16
                | bytes[at + 11] << 24;
        day += (int) Math.floorDiv(nanos, ParquetValueText.NANOS_PER_DAY);
        ByteWords.putWord(bytes, at, Math.floorMod(nanos, ParquetValueText.NANOS_PER_DAY));
        for (int i = 0; i < 4; i++) {
            bytes[at + 8 + i] = (byte) (day >>> 8 * i);
        }
    }

    /** The chunk's dictionary of a DECIMAL held as longs, decoded at its first dictionary-encoded page. */
    private long[] longDictionary() {
        if (longDictionary == null) {
            longDictionary = new long[dictionary.getMaxId() + 1];
            for (int i = 0; i < longDictionary.length; i++) {
                ByteBuffer value = dictionary.decodeToBinary(i).toByteBuffer();
                longDictionary[i] = ParquetDecimal.toLong(value, minimalStart(value));
            }
        }
        return longDictionary;
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
            pageUsesDictionary = true;
        } else {
            pageUsesDictionary = false;
            reader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
        }
        if (CorruptDeltaByteArrays.requiresSequentialReads(writer, encoding)
                && previous instanceof RequiresPreviousReader && reader instanceof RequiresPreviousReader) {
            ((RequiresPreviousReader) reader).setPreviousReader(previous);
        }
        reader.initFromPage(count, in);
        return reader;
    }

    /**
     * A dictionary of byte values laid out flat: entry {@code i} is {@code bytes[offsets[i] .. offsets[i + 1])}; a
     * DECIMAL's in its minimal form, from where {@code minimalStart} says (an empty value: one 0x00).
     */
    private static final class FlatDictionary {
        final byte[] bytes;
        final int[] offsets;

        FlatDictionary(Dictionary dictionary, ToIntFunction<ByteBuffer> minimalStart) {
            int entries = dictionary.getMaxId() + 1;
            ByteBuffer[] values = new ByteBuffer[entries];
            int[] starts = new int[entries];
            offsets = new int[entries + 1];
            long total = 0;
            for (int i = 0; i < entries; i++) {
                values[i] = dictionary.decodeToBinary(i).toByteBuffer();
                starts[i] = minimalStart == null ? values[i].position() : minimalStart.applyAsInt(values[i]);
                int length = values[i].limit() - starts[i];
                total += minimalStart == null ? length : Math.max(1, length);
                if (total > Integer.MAX_VALUE - 8) {
                    throw new ParquetDecodingException("a dictionary of more than 2 GB of values");
                }
                offsets[i + 1] = (int) total;
            }
            bytes = new byte[(int) total]; // zeros: an empty DECIMAL's one 0x00 is left as it is
            for (int i = 0; i < entries; i++) {
                values[i].get(starts[i], bytes, offsets[i], values[i].limit() - starts[i]);
            }
        }
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
