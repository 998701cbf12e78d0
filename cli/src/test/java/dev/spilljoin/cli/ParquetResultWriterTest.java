package dev.spilljoin.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Parquet writer's encodings across row groups: a column of distinct values falls back to plain in its first
 * row group and is not tried with a dictionary again, while a column of few values keeps its dictionary in every
 * row group (the choice is per column); the footer's counts, NULL counts and minimum and maximum are the ones
 * written, and so are every page's. Columns encoded on several threads make the same file, and a failure on one of them reaches the writer.
 */
class ParquetResultWriterTest {
    private static final Schema KEY_VALUE = new Schema(List.of(Column.of("k", ColumnType.BIGINT),
            Column.of("v", ColumnType.VARCHAR)));

    @TempDir
    Path dir;

    /**
     * A column of distinct values falls back from dictionary encoding and stays without one in the next row groups
     * (integers to DELTA_BINARY_PACKED, strings to PLAIN), while a column of few values keeps its dictionary.
     */
    @Test
    void aColumnThatFellBackIsWrittenWithoutDictionaryWhileOthersKeepTheirs() throws Exception {
        int rows = 5_000_000;
        int batchRows = 4096;
        Schema schema = new Schema(List.of(Column.of("id", ColumnType.BIGINT), Column.of("tag", ColumnType.BIGINT),
                Column.of("name", ColumnType.VARCHAR)));
        Batch batch = new Batch(schema, batchRows);
        Path file = dir.resolve("out.parquet");
        ParquetResultWriter writer;
        long expectedMin = Long.MAX_VALUE;
        long expectedMax = Long.MIN_VALUE;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            writer = new ParquetResultWriter(out, new String[] {"id", "tag", "name"},
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.BIGINT, ColumnType.VARCHAR}, new PrimitiveType[3],
                    CompressionCodecName.UNCOMPRESSED);
            for (int from = 0; from < rows; from += batchRows) {
                int n = Math.min(batchRows, rows - from);
                batch.reset();
                for (int r = 0; r < n; r++) {
                    long i = from + r;
                    long mixed = i * 0x9E3779B97F4A7C15L;
                    batch.column(0).setLong(r, mixed);
                    expectedMin = Math.min(expectedMin, mixed);
                    expectedMax = Math.max(expectedMax, mixed);
                    if (i % 1000 == 0) {
                        batch.column(1).setNull(r);
                    } else {
                        batch.column(1).setLong(r, i % 10);
                    }
                    byte[] name = Long.toHexString(mixed).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    batch.column(2).setBytes(r, name, 0, name.length);
                }
                batch.setRowCount(n);
                writer.write(batch);
            }
            writer.finish();
        }
        assertThat(writer.triesDictionary(0)).as("the distinct column tries no dictionary any more").isFalse();
        assertThat(writer.triesDictionary(1)).as("the column of ten values still does").isTrue();
        assertThat(writer.triesDictionary(2)).as("the distinct strings try no dictionary any more").isFalse();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<BlockMetaData> groups = reader.getFooter().getBlocks();
            assertThat(groups).as("row groups").hasSizeGreaterThan(2);
            long total = 0;
            long nulls = 0;
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (BlockMetaData group : groups) {
                ColumnChunkMetaData id = group.getColumns().get(0);
                ColumnChunkMetaData tag = group.getColumns().get(1);
                ColumnChunkMetaData name = group.getColumns().get(2);
                assertThat(id.getEncodings()).as("id").doesNotContain(Encoding.PLAIN_DICTIONARY,
                        Encoding.RLE_DICTIONARY, Encoding.PLAIN).contains(Encoding.DELTA_BINARY_PACKED);
                assertThat(tag.getEncodings()).as("tag").containsAnyOf(Encoding.PLAIN_DICTIONARY,
                        Encoding.RLE_DICTIONARY);
                assertThat(name.getEncodings()).as("name").doesNotContain(Encoding.PLAIN_DICTIONARY,
                        Encoding.RLE_DICTIONARY, Encoding.DELTA_BYTE_ARRAY).contains(Encoding.PLAIN);
                nulls += tag.getStatistics().getNumNulls();
                min = Math.min(min, (Long) id.getStatistics().genericGetMin());
                max = Math.max(max, (Long) id.getStatistics().genericGetMax());
                total += group.getRowCount();
            }
            assertThat(total).isEqualTo(rows);
            assertThat(nulls).isEqualTo(rows / 1000);
            assertThat(min).isEqualTo(expectedMin);
            assertThat(max).isEqualTo(expectedMax);
        }
    }

    /**
     * With a codec asked for (Snappy, whose pages are compressed from their pieces, or zstd and gzip, whose pages are
     * first assembled in one array), the chunks of a delta-encoded column of distinct BIGINTs (bit-packed deltas,
     * nothing left to compress) are stored and named UNCOMPRESSED in the footer, while a column of repetitive texts is
     * compressed and named by the codec, in every row group, on two encoder threads; every value reads back as
     * written.
     */
    @ParameterizedTest
    @EnumSource(value = CompressionCodecName.class, names = {"SNAPPY", "ZSTD", "GZIP"})
    void chunksTheCodecCannotShrinkAreStoredUncompressedAndReadBack(CompressionCodecName codec) throws Exception {
        int rows = 2_500_000;
        Schema schema = new Schema(List.of(Column.of("id", ColumnType.BIGINT), Column.of("name", ColumnType.VARCHAR)));
        Path file = dir.resolve("mixed.parquet");
        Batch batch = new Batch(schema, 4096);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, new String[] {"id", "name"},
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.VARCHAR}, new PrimitiveType[2], codec, 2);
            for (int from = 0; from < rows; from += 4096) {
                int n = Math.min(4096, rows - from);
                batch.reset();
                for (int r = 0; r < n; r++) {
                    batch.column(0).setLong(r, idOf(from + r));
                    byte[] name = nameOf(from + r);
                    batch.column(1).setBytes(r, name, 0, name.length);
                }
                batch.setRowCount(n);
                writer.write(batch);
            }
            writer.finish();
        }
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<BlockMetaData> groups = reader.getFooter().getBlocks();
            assertThat(groups).as("row groups").hasSizeGreaterThan(1);
            for (BlockMetaData group : groups) {
                assertThat(group.getColumns().get(0).getCodec()).as("id").isEqualTo(CompressionCodecName.UNCOMPRESSED);
                assertThat(group.getColumns().get(0).getEncodings()).contains(Encoding.DELTA_BINARY_PACKED);
                assertThat(group.getColumns().get(1).getCodec()).as("name").isEqualTo(codec);
            }
        }
        long read = readBack(file, new int[] {0, 1}, new ColumnType[] {ColumnType.BIGINT, ColumnType.VARCHAR}, 4096,
                (first, n, vectors) -> {
                    for (int r = 0; r < n; r++) {
                        assertThat(vectors[0].getLong(r)).as("id of row %d", first + r).isEqualTo(idOf(first + r));
                        assertThat(vectors[1].getBytes(r)).as("name of row %d", first + r).isEqualTo(nameOf(first + r));
                    }
                });
        assertThat(read).isEqualTo(rows);
    }

    /** What a test checks of a batch {@link #readBack} read: its rows from row {@code first} on, a vector a column. */
    @FunctionalInterface
    private interface ReadBatch {
        void check(long first, int rows, ColumnVector[] vectors);
    }

    /**
     * Reads {@code file}'s columns {@code columns} (of {@code types}) back through {@link ColumnChunkReader}, row group
     * by row group, in batches of up to {@code batchRows} rows, each handed to {@code check}; returns the rows read.
     */
    private static long readBack(Path file, int[] columns, ColumnType[] types, int batchRows, ReadBatch check)
            throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            List<ColumnDescriptor> descriptors = reader.getFileMetaData().getSchema().getColumns();
            ColumnVector[] vectors = new ColumnVector[columns.length];
            for (int c = 0; c < columns.length; c++) {
                vectors[c] = new ColumnVector(types[c], batchRows);
            }
            long row = 0;
            for (PageReadStore group; (group = reader.readNextRowGroup()) != null; ) {
                ColumnChunkReader[] readers = new ColumnChunkReader[columns.length];
                for (int c = 0; c < columns.length; c++) {
                    ColumnDescriptor descriptor = descriptors.get(columns[c]);
                    readers[c] = new ColumnChunkReader(descriptor, group.getPageReader(descriptor), createdBy);
                }
                for (long left = group.getRowCount(); left > 0; ) {
                    int n = (int) Math.min(batchRows, left);
                    for (int c = 0; c < columns.length; c++) {
                        vectors[c].reset(n);
                        readers[c].read(vectors[c], 0, n);
                    }
                    check.check(row, n, vectors);
                    row += n;
                    left -= n;
                }
            }
            return row;
        }
    }

    /** Distinct BIGINTs in no order (a bijective mix of the row number): their deltas are as wide as the values. */
    private static long idOf(long row) {
        long x = row * 0x9E3779B97F4A7C15L;
        x = (x ^ (x >>> 32)) * 0xD6E8FEB86659FD93L;
        return x ^ (x >>> 32);
    }

    private static byte[] nameOf(long row) {
        return ("customer-" + row % 100_000).getBytes(UTF_8);
    }

    /**
     * Columns encoded on three threads (five columns of every kind, NULLs, several row groups) make the very file one
     * thread makes, also when the lanes start at the second row group ({@link LanePolicy}: the first written with
     * every core idle), and the threads are gone once the writer has finished; a policy that never sees a core idle
     * starts no lane.
     */
    @Test
    void encodedOnThreeThreadsTheFileIsTheSameByteForByte() throws Exception {
        String[] names = {"id", "name", "score", "flag", "count"};
        ColumnType[] types = {ColumnType.BIGINT, ColumnType.VARCHAR, ColumnType.DOUBLE, ColumnType.BOOLEAN,
            ColumnType.INTEGER};
        Path one = dir.resolve("one.parquet");
        Path three = dir.resolve("three.parquet");
        Path switched = dir.resolve("switched.parquet");
        Path busy = dir.resolve("busy.parquet");
        long[] wall = {0};
        for (Path file : List.of(one, three, switched, busy)) {
            // a second of wall time per question; no CPU used (every core idle), or every core's second used
            LanePolicy policy = file == three ? LanePolicy.always()
                    : LanePolicy.onceACoreIdles(3, () -> file == busy ? 3 * wall[0] : 0, () -> wall[0] += 1_000_000_000L);
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
                ParquetResultWriter writer = new ParquetResultWriter(out, names, types, new PrimitiveType[5], null,
                        CompressionCodecName.SNAPPY, file == one ? 1 : 3, policy);
                writeMixedRows(writer, names, types, 1_500_000);
                assertThat(encoderThreads()).as("encoder threads of " + file.getFileName() + " before finish")
                        .hasSize(file == one || file == busy ? 0 : 2);
                writer.finish();
                assertThat(encoderThreads()).as("encoder threads left after finish").isEmpty();
            }
        }
        assertThat(Files.size(one)).isGreaterThan(ParquetResultWriter.ROW_GROUP_BYTES);
        assertThat(Files.mismatch(one, three)).as("first differing byte").isEqualTo(-1L);
        assertThat(Files.mismatch(one, switched)).as("first differing byte, lanes from the second row group")
                .isEqualTo(-1L);
        assertThat(Files.mismatch(one, busy)).as("first differing byte, no lane").isEqualTo(-1L);
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(three), ParquetInput.readOptions())) {
            assertThat(reader.getFooter().getBlocks()).as("row groups").hasSizeGreaterThan(1);
            assertThat(reader.getRecordCount()).isEqualTo(1_500_000);
        }
    }

    /**
     * The stream beneath (a file channel's, where each write is a system call) gets the file in large pieces, not
     * page headers a field at a time (46,000 writes for W1's 135 MB before it was buffered).
     */
    @Test
    void theStreamBeneathIsWrittenInLargePieces() throws Exception {
        String[] names = {"id", "name", "score", "flag", "count"};
        ColumnType[] types = {ColumnType.BIGINT, ColumnType.VARCHAR, ColumnType.DOUBLE, ColumnType.BOOLEAN,
            ColumnType.INTEGER};
        long[] writesAndBytes = new long[2];
        OutputStream counting = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writesAndBytes[0]++;
                writesAndBytes[1] += len;
            }
        };
        ParquetResultWriter writer = new ParquetResultWriter(counting, names, types, new PrimitiveType[5],
                CompressionCodecName.UNCOMPRESSED, 1);
        writeMixedRows(writer, names, types, 300_000);
        writer.finish();
        assertThat(writesAndBytes[1]).as("bytes").isGreaterThan(4L << 20);
        assertThat(writesAndBytes[0]).as("writes of %d bytes", writesAndBytes[1])
                .isLessThanOrEqualTo(writesAndBytes[1] / (64 << 10) + 2);
    }

    /**
     * Every page states its rows, NULLs and bounds exactly (what readers skip pages by): a page holds at most the
     * page row limit (20,480 rows: whole blocks of the delta encoding, which the delta-encoded column's pages but the
     * last fill), its offset-index entry gives its first row, its column-index entry the NULL count and the minimum
     * and maximum of its own rows, for a delta-encoded column (distinct BIGINTs) and a dictionary-encoded one
     * (INTEGERs of 1,000 values) alike; each chunk counts its NULLs, and the string column's size statistics its
     * bytes.
     */
    @Test
    void everyPageStatesItsRowsNullsAndBoundsExactly() throws Exception {
        String[] names = {"id", "name", "score", "flag", "count"};
        ColumnType[] types = {ColumnType.BIGINT, ColumnType.VARCHAR, ColumnType.DOUBLE, ColumnType.BOOLEAN,
            ColumnType.INTEGER};
        int rows = 70_000;
        Path file = dir.resolve("pages.parquet");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, names, types, new PrimitiveType[5],
                    CompressionCodecName.SNAPPY);
            writeMixedRows(writer, names, types, rows);
            writer.finish();
        }
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<BlockMetaData> groups = reader.getFooter().getBlocks();
            assertThat(groups).as("row groups").hasSize(1);
            List<ColumnChunkMetaData> chunks = groups.get(0).getColumns();
            assertThat(chunks.get(0).getEncodings()).as("id").contains(Encoding.DELTA_BINARY_PACKED)
                    .doesNotContain(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
            assertThat(chunks.get(4).getEncodings()).as("count").containsAnyOf(Encoding.PLAIN_DICTIONARY,
                    Encoding.RLE_DICTIONARY);
            long nulls = (rows + 96) / 97;
            long nameBytes = 0;
            for (long i = 0; i < rows; i++) {
                nameBytes += i % 97 == 0 ? 0 : ("name-" + ((i * 0x9E3779B97F4A7C15L) >>> 40)).length();
            }
            assertThat(chunks.get(1).getSizeStatistics().getUnencodedByteArrayDataBytes()).as("name bytes")
                    .contains(nameBytes);
            for (int c = 0; c < names.length; c++) {
                ColumnChunkMetaData chunk = chunks.get(c);
                assertThat(chunk.getStatistics().getNumNulls()).as(names[c] + " NULLs").isEqualTo(nulls);
                OffsetIndex pages = reader.readOffsetIndex(chunk);
                ColumnIndex bounds = reader.readColumnIndex(chunk);
                assertThat(pages.getPageCount()).as(names[c] + " pages").isGreaterThanOrEqualTo(4);
                for (int p = 0; p < pages.getPageCount(); p++) {
                    long first = pages.getFirstRowIndex(p);
                    long last = pages.getLastRowIndex(p, rows);
                    assertThat(last - first + 1).as(names[c] + " page " + p + " rows").isLessThanOrEqualTo(20_480);
                    if (c == 0 && p < pages.getPageCount() - 1) {
                        assertThat(last - first + 1).as("id page " + p + " rows: whole blocks of 128 deltas")
                                .isEqualTo(20_480);
                    }
                    assertThat(first).as(names[c] + " page " + p + " first row")
                            .isEqualTo(p == 0 ? 0 : pages.getLastRowIndex(p - 1, rows) + 1);
                    long pageNulls = 0;
                    long min = Long.MAX_VALUE;
                    long max = Long.MIN_VALUE;
                    for (long i = first; i <= last; i++) {
                        if (i % 97 == 0) {
                            pageNulls++;
                        } else {
                            long value = c == 0 ? i * 0x9E3779B97F4A7C15L : i % 1000;
                            min = Math.min(min, value);
                            max = Math.max(max, value);
                        }
                    }
                    assertThat(bounds.getNullCounts().get(p)).as(names[c] + " page " + p + " NULLs")
                            .isEqualTo(pageNulls);
                    if (c == 0) {
                        assertThat(littleEndianLong(bounds.getMinValues().get(p))).as("id page min").isEqualTo(min);
                        assertThat(littleEndianLong(bounds.getMaxValues().get(p))).as("id page max").isEqualTo(max);
                    } else if (c == 4) {
                        assertThat(bounds.getMinValues().get(p).order(ByteOrder.LITTLE_ENDIAN).getInt(0))
                                .as("count page min").isEqualTo(min);
                        assertThat(bounds.getMaxValues().get(p).order(ByteOrder.LITTLE_ENDIAN).getInt(0))
                                .as("count page max").isEqualTo(max);
                    }
                }
                assertThat(pages.getLastRowIndex(pages.getPageCount() - 1, rows)).isEqualTo(rows - 1);
            }
        }
    }

    /**
     * BIGINT runs without NULLs, written without a dictionary, go to the encoders a run at a time: every value reads
     * back, and every page's bounds are its least and greatest value in the column's order, signed for an INT64 and
     * unsigned for a UINT_64 (where -1 is the greatest), with no NULL counted.
     */
    @Test
    void runsOfLongsWithoutNullsBoundEachPageInTheColumnsOrder() throws Exception {
        SplittableRandom random = SeededRandom.create("runsOfLongsWithoutNullsBoundEachPageInTheColumnsOrder");
        int rows = 50_000;
        long[] values = new long[rows];
        for (int i = 0; i < rows; i++) {
            values[i] = random.nextInt(3) == 0 ? random.nextLong() : random.nextLong(-1000, 1000);
        }
        String[] names = {"signed", "unsigned"};
        PrimitiveType unsigned = Types.optional(PrimitiveType.PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.intType(64, false)).named("unsigned");
        Path file = dir.resolve("longs.parquet");
        Batch batch = new Batch(new Schema(List.of(Column.of("signed", ColumnType.BIGINT),
                Column.of("unsigned", ColumnType.BIGINT))), 4096);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, names,
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.BIGINT}, new PrimitiveType[] {null, unsigned},
                    new boolean[] {false, false}, CompressionCodecName.SNAPPY, 1, LanePolicy.always());
            for (int from = 0; from < rows; from += 4096) {
                int n = Math.min(4096, rows - from);
                batch.reset();
                for (int r = 0; r < n; r++) {
                    batch.column(0).setLong(r, values[from + r]);
                    batch.column(1).setLong(r, values[from + r]);
                }
                batch.setRowCount(n);
                writer.write(batch);
            }
            writer.finish();
        }
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<ColumnChunkMetaData> chunks = reader.getFooter().getBlocks().get(0).getColumns();
            for (int c = 0; c < 2; c++) {
                assertThat(chunks.get(c).getEncodings()).as(names[c]).contains(Encoding.DELTA_BINARY_PACKED);
                OffsetIndex pages = reader.readOffsetIndex(chunks.get(c));
                ColumnIndex bounds = reader.readColumnIndex(chunks.get(c));
                assertThat(pages.getPageCount()).as(names[c] + " pages").isGreaterThanOrEqualTo(3);
                long bias = c == 0 ? 0 : Long.MIN_VALUE;
                for (int p = 0; p < pages.getPageCount(); p++) {
                    long least = Long.MAX_VALUE;
                    long greatest = Long.MIN_VALUE;
                    for (long i = pages.getFirstRowIndex(p); i <= pages.getLastRowIndex(p, rows); i++) {
                        least = Math.min(least, values[(int) i] ^ bias);
                        greatest = Math.max(greatest, values[(int) i] ^ bias);
                    }
                    assertThat(bounds.getNullCounts().get(p)).as(names[c] + " page " + p + " NULLs").isZero();
                    assertThat(littleEndianLong(bounds.getMinValues().get(p))).as(names[c] + " page " + p + " min")
                            .isEqualTo(least ^ bias);
                    assertThat(littleEndianLong(bounds.getMaxValues().get(p))).as(names[c] + " page " + p + " max")
                            .isEqualTo(greatest ^ bias);
                }
            }
        }
        long read = readBack(file, new int[] {0, 1}, new ColumnType[] {ColumnType.BIGINT, ColumnType.BIGINT}, 4096,
                (first, n, vectors) -> {
                    for (int r = 0; r < n; r++) {
                        assertThat(vectors[0].getLong(r)).as("signed of row %d", first + r)
                                .isEqualTo(values[(int) first + r]);
                        assertThat(vectors[1].getLong(r)).as("unsigned of row %d", first + r)
                                .isEqualTo(values[(int) first + r]);
                    }
                });
        assertThat(read).isEqualTo(rows);
    }

    private static long littleEndianLong(ByteBuffer bytes) {
        return bytes.order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    /**
     * A failure on an encoder lane reaches the writing thread as it was raised, at its next write or at the finish,
     * and at every call after that, and never leaves it waiting for a lane that has stopped; closing the writer then
     * leaves no encoder thread.
     */
    @Test
    void aFailureOnAnEncoderLaneIsThrownToTheWriterAndCloseEndsTheThreads() throws Exception {
        Schema wrong = new Schema(List.of(Column.of("a", ColumnType.BIGINT), Column.of("b", ColumnType.VARCHAR)));
        Batch batch = new Batch(wrong, 16);
        batch.column(0).setLong(0, 1);
        batch.column(1).setBytes(0, new byte[] {'x'}, 0, 1);
        batch.setRowCount(1);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dir.resolve("failed.parquet")))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, new String[] {"a", "b"},
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.BIGINT}, new PrimitiveType[2],
                    CompressionCodecName.SNAPPY, 2);
            NullPointerException failure = assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> assertThrows(NullPointerException.class, () -> {
                        for (int i = 0; i < 4 * EncoderLane.COPIES; i++) {
                            writer.write(batch);
                        }
                        writer.finish();
                    }), "a writer left waiting for a stopped lane");
            assertThat(failure.getStackTrace()[0].getClassName()).as("column b (a string vector written as BIGINT)"
                    + " failed in the column writer").startsWith("dev.spilljoin.cli.ColumnChunkWriter");
            assertThat(assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> assertThrows(NullPointerException.class, writer::finish), "a second wait for the lane"))
                    .as("every later call gets the lane's failure").isSameAs(failure);
            writer.close();
            assertThat(encoderThreads()).as("encoder threads left after close").isEmpty();
        }
    }

    /**
     * A column whose Parquet input was not dictionary-encoded is written without a dictionary from its first row
     * group, however few its values; the same values in a column without that hint keep their dictionary; and
     * {@link ParquetInput#dictionaryEncoded} reads that choice back from the file's first row group.
     */
    @Test
    void aColumnWhoseInputWasNotDictionaryEncodedStartsWithout() throws Exception {
        Schema schema = new Schema(List.of(Column.of("tried", ColumnType.BIGINT), Column.of("plain",
                ColumnType.BIGINT)));
        Batch batch = new Batch(schema, 4096);
        Path file = dir.resolve("hinted.parquet");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, new String[] {"tried", "plain"},
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.BIGINT}, new PrimitiveType[2],
                    new boolean[] {true, false}, CompressionCodecName.SNAPPY, 1, LanePolicy.always());
            for (int r = 0; r < 4096; r++) {
                batch.column(0).setLong(r, r % 10);
                batch.column(1).setLong(r, r % 10);
            }
            batch.setRowCount(4096);
            writer.write(batch);
            writer.finish();
        }
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<ColumnChunkMetaData> chunks = reader.getFooter().getBlocks().get(0).getColumns();
            assertThat(chunks.get(0).getEncodings()).as("tried").containsAnyOf(Encoding.PLAIN_DICTIONARY,
                    Encoding.RLE_DICTIONARY);
            assertThat(chunks.get(1).getEncodings()).as("plain").contains(Encoding.DELTA_BINARY_PACKED)
                    .doesNotContain(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
        }
        ParquetInput input = ParquetInput.open("left", file);
        assertThat(input.dictionaryEncoded(0)).isTrue();
        assertThat(input.dictionaryEncoded(1)).isFalse();
    }

    /**
     * Values longer than {@value PageBounds#BOUND_BYTES} bytes (text of several kilobytes, bytes
     * that are not UTF-8, a value of 0xFF bytes that no shorter value bounds from above) have short minimum and maximum
     * bounds in the footer and the column index, which still bound every value of their row group and page; a
     * column of short values keeps its exact minimum and maximum. (The file writer keeps every row group's footer
     * statistics to the end: whole values of megabytes there once filled the heap.)
     */
    @Test
    void longValuesHaveShortBoundsThatStillBoundEveryValue() throws Exception {
        Schema schema = new Schema(List.of(Column.of("text", ColumnType.VARCHAR), Column.of("bytes",
                ColumnType.VARBINARY), Column.of("short", ColumnType.VARCHAR)));
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("longValuesHaveShortBoundsThatStillBoundEveryValue seed " + seed);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        int rows = 3000;
        byte[][][] values = new byte[3][rows][];
        for (int r = 0; r < rows; r++) {
            values[0][r] = ("ä" + "abcdefghij".repeat(1 + random.nextInt(800)) + r).getBytes(UTF_8);
            values[1][r] = new byte[random.nextInt(8000)];
            random.nextBytes(values[1][r]);
            values[2][r] = Integer.toString(random.nextInt(1_000_000)).getBytes(UTF_8);
        }
        values[1][rows / 2] = new byte[5000];
        java.util.Arrays.fill(values[1][rows / 2], (byte) 0xFF);
        Path file = dir.resolve("long.parquet");
        Batch batch = new Batch(schema, 100);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, new String[] {"text", "bytes", "short"},
                    new ColumnType[] {ColumnType.VARCHAR, ColumnType.VARBINARY, ColumnType.VARCHAR},
                    new PrimitiveType[3], CompressionCodecName.UNCOMPRESSED);
            for (int from = 0; from < rows; from += 100) {
                batch.reset();
                for (int r = 0; r < 100; r++) {
                    for (int c = 0; c < 3; c++) {
                        batch.column(c).setBytes(r, values[c][from + r], 0, values[c][from + r].length);
                    }
                }
                batch.setRowCount(100);
                writer.write(batch);
            }
            writer.finish();
        }
        java.util.Comparator<byte[]> order = java.util.Arrays::compareUnsigned;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            int first = 0;
            assertThat(reader.getFooter().getBlocks()).as("row groups").hasSizeGreaterThan(1);
            for (BlockMetaData group : reader.getFooter().getBlocks()) {
                int end = first + (int) group.getRowCount();
                for (int c = 0; c < 3; c++) {
                    ColumnChunkMetaData chunk = group.getColumns().get(c);
                    byte[] actualMin = java.util.Arrays.stream(values[c], first, end).min(order).orElseThrow();
                    byte[] actualMax = java.util.Arrays.stream(values[c], first, end).max(order).orElseThrow();
                    String what = "column " + c + ", rows " + first + ".." + end;
                    boolean allOnes = java.util.Arrays.equals(actualMax, values[1][rows / 2]);
                    if (allOnes) {
                        // no shorter value bounds it from above: parquet-java leaves out a chunk's statistics whose
                        // minimum and maximum take 4 kB or more
                        assertThat(chunk.getStatistics().hasNonNullValue()).as(what).isFalse();
                    } else {
                        byte[] min = chunk.getStatistics().getMinBytes();
                        byte[] max = chunk.getStatistics().getMaxBytes();
                        if (c == 2) {
                            assertThat(min).as(what).isEqualTo(actualMin);
                            assertThat(max).as(what).isEqualTo(actualMax);
                            continue;
                        }
                        assertThat(min.length).as(what).isLessThanOrEqualTo(PageBounds.BOUND_BYTES);
                        assertThat(max.length).as(what).isLessThanOrEqualTo(PageBounds.BOUND_BYTES);
                        assertThat(order.compare(min, actualMin)).as(what + ": minimum bound").isLessThanOrEqualTo(0);
                        assertThat(order.compare(max, actualMax)).as(what + ": maximum bound")
                                .isGreaterThanOrEqualTo(0);
                    }
                    ColumnIndex index = reader.readColumnIndex(chunk);
                    OffsetIndex pages = reader.readOffsetIndex(chunk);
                    for (int p = 0; p < pages.getPageCount(); p++) {
                        int pageFirst = first + (int) pages.getFirstRowIndex(p);
                        int pageEnd = first + (int) pages.getLastRowIndex(p, group.getRowCount()) + 1;
                        byte[] pageMin = java.util.Arrays.stream(values[c], pageFirst, pageEnd).min(order)
                                .orElseThrow();
                        byte[] pageMax = java.util.Arrays.stream(values[c], pageFirst, pageEnd).max(order)
                                .orElseThrow();
                        assertThat(order.compare(bytes(index.getMinValues().get(p)), pageMin)).as(what + " page " + p)
                                .isLessThanOrEqualTo(0);
                        assertThat(order.compare(bytes(index.getMaxValues().get(p)), pageMax)).as(what + " page " + p)
                                .isGreaterThanOrEqualTo(0);
                    }
                }
                first = end;
            }
        }
    }

    /**
     * Values of megabytes (compressible and not, beside short values and NULLs, one row a batch as the join hands such
     * rows over), encoded on two threads, read back as written; and once the file is written no column group keeps
     * a buffer past {@link ParquetResultWriter#MAX_KEPT_BUFFER_BYTES} for its next pages (free arrays, compressor
     * output, page array), each of which such a value grew.
     */
    @Test
    void valuesOfMegabytesReadBackAndNoBufferPastTheKeptSizeIsKept() throws Exception {
        int rows = 24;
        Schema schema = new Schema(List.of(Column.of("k", ColumnType.BIGINT), Column.of("a", ColumnType.VARCHAR),
                Column.of("b", ColumnType.VARCHAR)));
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        byte[][][] values = new byte[2][rows][];
        for (int r = 0; r < rows; r++) {
            values[0][r] = r % 5 == 4 ? null : ("row " + r + " ").repeat(350_000).getBytes(UTF_8);
            values[1][r] = r % 3 == 0 ? ("short " + r).getBytes(UTF_8) : new byte[3_000_000 + r];
            if (r % 3 != 0) {
                for (int i = 0; i < values[1][r].length; i++) {
                    values[1][r][i] = (byte) ('a' + random.nextInt(26));
                }
            }
        }
        Path file = dir.resolve("megabytes.parquet");
        Batch batch = new Batch(schema, 1);
        ParquetResultWriter writer;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            writer = new ParquetResultWriter(out, new String[] {"k", "a", "b"},
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.VARCHAR, ColumnType.VARCHAR}, new PrimitiveType[3],
                    CompressionCodecName.SNAPPY, 2);
            for (int r = 0; r < rows; r++) {
                batch.reset();
                batch.column(0).setLong(0, r);
                for (int c = 0; c < 2; c++) {
                    if (values[c][r] == null) {
                        batch.column(c + 1).setNull(0);
                    } else {
                        batch.column(c + 1).setBytes(0, values[c][r], 0, values[c][r].length);
                    }
                }
                batch.setRowCount(1);
                writer.write(batch);
            }
            writer.finish();
        }
        assertThat(writer.largestKeptBuffer()).as("the largest buffer kept")
                .isLessThanOrEqualTo(ParquetResultWriter.MAX_KEPT_BUFFER_BYTES);
        long read = readBack(file, new int[] {1, 2}, new ColumnType[] {ColumnType.VARCHAR, ColumnType.VARCHAR}, 1,
                (row, n, vectors) -> {
                    for (int c = 0; c < 2; c++) {
                        byte[] value = vectors[c].isNull(0) ? null : vectors[c].getBytes(0);
                        assertThat(value).as("column %d row %d", c, row).isEqualTo(values[c][(int) row]);
                    }
                });
        assertThat(read).isEqualTo(rows);
    }

    /**
     * Rows of megabytes that do not compress end their row group within {@link ParquetResultWriter#ROW_GROUP_BYTES}
     * and one batch, on two threads as on one (the rule counts the data bytes of the batches a lane may still be
     * encoding), where {@value EncoderLane#LAG} such batches beyond the bytes known used to be buffered too.
     */
    @Test
    void aRowGroupOfRowsOfMegabytesEndsWithinItsBytesAndOneBatch() throws Exception {
        int rows = 24;
        int valueBytes = 3_000_000;
        byte[] value = new byte[valueBytes];
        new java.util.SplittableRandom(7).nextBytes(value);
        Batch batch = new Batch(KEY_VALUE, 1);
        for (int threads = 1; threads <= 2; threads++) {
            Path file = dir.resolve("large-rows-" + threads + ".parquet");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
                ParquetResultWriter writer = keyValueWriter(out, CompressionCodecName.UNCOMPRESSED, threads);
                for (int r = 0; r < rows; r++) {
                    batch.reset();
                    batch.column(0).setLong(0, r);
                    value[0] = (byte) r;
                    batch.column(1).setBytes(0, value, 0, valueBytes);
                    batch.setRowCount(1);
                    writer.write(batch);
                }
                writer.finish();
            }
            try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file),
                    ParquetInput.readOptions())) {
                List<BlockMetaData> groups = reader.getFooter().getBlocks();
                assertThat(groups).as("row groups").hasSizeGreaterThan(1);
                for (BlockMetaData group : groups) {
                    assertThat(group.getCompressedSize()).as(threads + " threads: a row group's bytes")
                            .isLessThanOrEqualTo(ParquetResultWriter.ROW_GROUP_BYTES + valueBytes + (64 << 10));
                }
            }
        }
    }

    /**
     * A batch holding rows of megabytes ends its row group, however well they compress (three batches of 3 MB that
     * compress to a few kB stay far below {@link ParquetResultWriter#ROW_GROUP_BYTES}), on one thread as on two; the
     * batches of ordinary rows around them share row groups.
     */
    @Test
    void aBatchOfRowsOfMegabytesEndsItsRowGroup() throws Exception {
        byte[] large = "x".repeat(3_000_000).getBytes(UTF_8);
        for (int threads = 1; threads <= 2; threads++) {
            Path file = dir.resolve("large-batches-" + threads + ".parquet");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
                ParquetResultWriter writer = keyValueWriter(out, CompressionCodecName.SNAPPY, threads);
                long k = 0;
                for (int round = 0; round < 3; round++) {
                    for (int b = 0; b < 5; b++) {
                        Batch small = new Batch(KEY_VALUE, 10);
                        for (int r = 0; r < 10; r++, k++) {
                            small.column(0).setLong(r, k);
                            byte[] value = ("row " + k).getBytes(UTF_8);
                            small.column(1).setBytes(r, value, 0, value.length);
                        }
                        small.setRowCount(10);
                        writer.write(small);
                    }
                    if (round < 2) {
                        Batch batch = new Batch(KEY_VALUE, 1);
                        batch.column(0).setLong(0, k++);
                        batch.column(1).setBytes(0, large, 0, large.length);
                        batch.setRowCount(1);
                        writer.write(batch);
                    }
                }
                writer.finish();
            }
            try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file),
                    ParquetInput.readOptions())) {
                assertThat(reader.getFooter().getBlocks().stream().map(BlockMetaData::getRowCount))
                        .as(threads + " threads: the rows of each row group").containsExactly(51L, 51L, 50L);
            }
        }
    }

    /**
     * A batch of rows of megabytes lent to the encoder lanes is not held by them once written: the caller drops such
     * a batch rather than reuse it, and a lane that kept its last lent batch kept one such batch alive.
     */
    @Test
    void aLentBatchIsNotHeldOnceWritten() throws Exception {
        Path file = dir.resolve("lent.parquet");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = keyValueWriter(out, CompressionCodecName.SNAPPY, 2);
            Batch batch = new Batch(KEY_VALUE, 1);
            byte[] large = "x".repeat(3_000_000).getBytes(UTF_8);
            batch.column(0).setLong(0, 1);
            batch.column(1).setBytes(0, large, 0, large.length);
            batch.setRowCount(1);
            assertThat(BatchSizing.holdsLargeValues(batch)).as("a batch the writer lends").isTrue();
            writer.write(batch);
            java.lang.ref.WeakReference<Batch> written = new java.lang.ref.WeakReference<>(batch);
            batch = null;
            for (int i = 0; i < 10 && written.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertThat(written.get()).as("the lent batch, once written and dropped").isNull();
            writer.finish();
        }
    }

    /** A writer of {@link #KEY_VALUE}'s rows (a BIGINT {@code k} and a VARCHAR {@code v}). */
    private static ParquetResultWriter keyValueWriter(OutputStream out, CompressionCodecName codec, int threads)
            throws java.io.IOException {
        return new ParquetResultWriter(out, new String[] {"k", "v"},
                new ColumnType[] {ColumnType.BIGINT, ColumnType.VARCHAR}, new PrimitiveType[2], codec, threads);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private static List<Thread> encoderThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("spilljoin-parquet-") && t.isAlive()).toList();
    }

    /** Writes {@code rows} rows of every type (each column NULL now and then) in batches of 4,096. */
    private static void writeMixedRows(ParquetResultWriter writer, String[] names, ColumnType[] types, int rows)
            throws Exception {
        List<Column> columns = new java.util.ArrayList<>();
        for (int c = 0; c < names.length; c++) {
            columns.add(Column.of(names[c], types[c]));
        }
        Batch batch = new Batch(new Schema(columns), 4096);
        for (int from = 0; from < rows; from += 4096) {
            int n = Math.min(4096, rows - from);
            batch.reset();
            for (int r = 0; r < n; r++) {
                long i = from + r;
                long mixed = i * 0x9E3779B97F4A7C15L;
                if (i % 97 == 0) {
                    for (int c = 0; c < names.length; c++) {
                        batch.column(c).setNull(r);
                    }
                    continue;
                }
                batch.column(0).setLong(r, mixed);
                byte[] name = ("name-" + (mixed >>> 40)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                batch.column(1).setBytes(r, name, 0, name.length);
                batch.column(2).setDouble(r, (mixed >>> 11) * 0x1.0p-53);
                batch.column(3).setBoolean(r, (mixed & 1) == 0);
                batch.column(4).setInt(r, (int) (i % 1000));
            }
            batch.setRowCount(n);
            writer.write(batch);
        }
    }
}
