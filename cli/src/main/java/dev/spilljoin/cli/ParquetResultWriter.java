package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Writes the join's result as one Parquet file into the output's stream, through parquet-column's encoders (the
 * pages compressed by {@link ParquetCodecs}; a column chunk the codec does not shrink stored uncompressed,
 * {@link ColumnCompressor}).
 *
 * <p>Schema: every column OPTIONAL (outer joins give NULLs), named as the output header; a column from a Parquet
 * input keeps its physical and logical type (INT32 DATE stays INT32 DATE, FLOAT stays FLOAT, a DECIMAL stays that
 * DECIMAL), any other takes its operator type's (BIGINT: INT64, DOUBLE, BOOLEAN, VARCHAR: BINARY STRING,
 * VARBINARY: BINARY) — so a CSV side's non-key columns are strings.
 *
 * <p>Algorithm: each column has a chunk writer of its own ({@link ColumnChunkWriter}: parquet-java's value, level and
 * statistics writers, page by page, into the column's own page store), so a batch is written a column at a time, in
 * one tight loop per column with the type chosen once per run of values: each value straight from its vector's array
 * to the encoders (a Parquet record is a row, so a page's row count is its value count). Encodings are
 * parquet-java's: a chunk tries dictionary encoding and falls back to plain when the dictionary outgrows its page; a
 * column that fell back in one row group is written plain in the next ones (the attempt costs a hash lookup per
 * value, for nothing when the values are mostly distinct), and a column whose Parquet input's writer did not
 * dictionary-encode it is written plain from the start. A row group ends after a batch when the bytes it held
 * after the batch {@value EncoderLane#LAG} before (in the same row group), plus the data bytes of the batches since,
 * reached {@link #ROW_GROUP_BYTES}, or when the batch holds rows of megabytes ({@link #write}): its column chunks go
 * to the file in schema order; {@link #finish()} flushes the last one and writes the footer.
 *
 * <p>Threads: the columns are dealt into up to {@code encoders} groups of about equal weight (a byte column weighs
 * two fixed-width ones), each with its own buffers and compressor. Group 0 is encoded on the caller's thread, each
 * other one on a lane of its own ({@link EncoderLane}) from a copy of its columns, up to {@value EncoderLane#LAG}
 * batches behind: the row-group rule above needs a lane's bytes after an earlier batch, not after this one, so the
 * caller waits for a lane only when it is further behind, and at a row group's end, whose last pages every group
 * encodes at once (with the bytes after this very batch, the caller and its helper met at every batch, and a lag of
 * one batch instead of three still made them wait: docs/PERFORMANCE.md). The lanes run only in the row groups a
 * {@link LanePolicy} chooses (the CLI's: once a row group was written with a core idle; on busy cores a lane only
 * adds a copy of its columns); in the others the caller encodes every group itself. The row group is written to the
 * file on the caller's thread alone. A column's values, pages and row groups do not depend on the group it is in or
 * the thread that encodes it, so the file is the same byte for byte on any number of threads and lanes.
 *
 * <p>Memory: one row group's compressed pages, at most about {@link #ROW_GROUP_BYTES} and one batch (one batch's alone
 * when it holds rows of megabytes), plus one open page
 * per column, each group's page array and compressor output array ({@link PageBytes}, {@link ParquetCodecs}), and each
 * lane's {@value EncoderLane#COPIES} batch copies (fewer out at once when they hold long rows: the copies a lane has
 * not encoded yet are bounded by twice the largest result batch's target, {@link BatchSizing#ringWaitingBytes}; a
 * batch of rows of megabytes is lent to the lanes one at a time, not copied). The page and row-group buffers are reused
 * ({@link RecyclingAllocator}s, which keep at most twice {@link #ROW_GROUP_BYTES} free between them), so the heap holds
 * about the same buffers from the first row group to the last; but none larger than {@link #MAX_KEPT_BUFFER_BYTES},
 * which only a page of a value of megabytes grows (a slab, a page array, a compressed page, an output array): it is let
 * go once its page is out, so that such values leave no buffers of their size behind. A page's statistics hold no copy
 * of such a value either ({@link PageBounds#update}). The stream is written front to back (no seek), so it may be a
 * pipe.
 */
final class ParquetResultWriter implements ResultWriter {
    /** The buffered row group's size at which it is written out (compressed pages plus the open ones). */
    static final long ROW_GROUP_BYTES = 16L << 20;
    private static final int PAGE_BYTES = 1 << 20;
    /**
     * A page's most values: parquet-java's 20,000 rounded up to whole blocks of DELTA_BINARY_PACKED (128 values). An
     * integer column's page ends at this count (20,480 values of at most 8 bytes, with their blocks' headers, stay
     * far below {@link #PAGE_BYTES}), so its encoder packs whole blocks only, but at a chunk's end, instead of a block
     * of 32 deltas padded to 128 at every page's end: W1's Parquet case 3 % faster (docs/PERFORMANCE.md, twenty-ninth
     * session).
     */
    private static final int PAGE_ROWS = 160 * 128;
    /**
     * The largest buffer (a page's slab or compressed bytes, a compressor's array) kept for the next page: twice a
     * page's target, above what ordinary pages grow theirs to, so that only pages of values of megabytes give theirs
     * back to the garbage collector.
     */
    static final int MAX_KEPT_BUFFER_BYTES = 2 * PAGE_BYTES;
    private static final int COLUMN_INDEX_TRUNCATE_BYTES = 64;

    private final ColumnChunk[] columns;
    /** The columns of each group, in schema order. */
    private final int[][] groupColumns;
    /** The lanes of groups 1.. (group 0 is encoded on the writing thread). */
    private final EncoderLane[] lanes;
    private final ParquetFileWriter file;
    private final PositionCountingStream out;
    private long groupRows;
    private long rowsWritten;
    /** Batches written into the row group so far. */
    private int groupBatches;
    /** When the lanes run (decided at each row group's first batch), and whether they run in the current one. */
    private final LanePolicy lanePolicy;
    private boolean lanesOn;
    /**
     * The bytes of the groups this thread encodes (group 0's; with the lanes off, every group's) after each of the
     * last {@code LAG + 1} batches of the row group, by batch index; the lanes report their own.
     */
    private final long[] ownBytesAfter = new long[EncoderLane.LAG + 1];
    /** The data bytes ({@link Batch#dataBytes()}) of each of the last {@code LAG + 1} batches, by batch index. */
    private final long[] dataBytesOf = new long[EncoderLane.LAG + 1];

    /** A writer that encodes on the caller's thread alone (see the next constructor). */
    ParquetResultWriter(OutputStream out, String[] names, ColumnType[] operatorTypes, PrimitiveType[] parquetTypes,
                        CompressionCodecName codec) throws IOException {
        this(out, names, operatorTypes, parquetTypes, codec, 1);
    }

    /**
     * A writer into {@code out} of rows with columns {@code names} of operator types {@code operatorTypes}; a
     * column's Parquet type is {@code parquetTypes[c]} when not null (a Parquet input's), else its operator type's.
     * The columns are encoded on up to {@code encoders} threads (the caller's included).
     */
    ParquetResultWriter(OutputStream out, String[] names, ColumnType[] operatorTypes, PrimitiveType[] parquetTypes,
                        CompressionCodecName codec, int encoders) throws IOException {
        this(out, names, operatorTypes, parquetTypes, null, codec, encoders, LanePolicy.always());
    }

    /**
     * As the constructor before, column {@code c} starting without dictionary encoding when {@code dictionaryFirst}
     * is given and {@code dictionaryFirst[c]} is false (a column whose Parquet input was written without one: its
     * values are mostly distinct, and the attempt, every value hashed into a dictionary that then falls back, is
     * wasted), and the groups beyond the first on their lanes in the row groups {@code lanePolicy} says.
     */
    ParquetResultWriter(OutputStream out, String[] names, ColumnType[] operatorTypes, PrimitiveType[] parquetTypes,
                        boolean[] dictionaryFirst, CompressionCodecName codec, int encoders, LanePolicy lanePolicy)
            throws IOException {
        List<Type> fields = new ArrayList<>(names.length);
        for (int c = 0; c < names.length; c++) {
            fields.add(columnType(names[c], operatorTypes[c], parquetTypes[c]));
        }
        MessageType schema = new MessageType("spilljoin", fields);
        this.groupColumns = groupColumns(fields, Math.max(1, Math.min(encoders, names.length)));
        this.lanePolicy = lanePolicy;
        this.columns = new ColumnChunk[names.length];
        for (int[] group : groupColumns) {
            EncoderBuffers buffers = new EncoderBuffers(codec, 2 * ROW_GROUP_BYTES / groupColumns.length);
            for (int c : group) {
                columns[c] = new ColumnChunk(new MessageType("spilljoin", fields.get(c)), buffers,
                        dictionaryFirst == null || dictionaryFirst[c]);
            }
        }
        this.lanes = new EncoderLane[groupColumns.length - 1];
        for (int g = 1; g < groupColumns.length; g++) {
            int group = g;
            lanes[g - 1] = new EncoderLane("spilljoin-parquet-" + g, new EncoderLane.Group() {
                @Override
                public long write(Batch batch) throws IOException {
                    return writeGroup(group, batch);
                }

                @Override
                public void finishRowGroup() throws IOException {
                    finishGroup(group);
                }
            }, groupColumns[g], BatchSizing.ringWaitingBytes(BatchSizing.TARGET_BYTES));
        }
        this.out = new PositionCountingStream(out);
        this.file = new ParquetFileWriter(new StreamOutputFile(this.out), schema, ParquetFileWriter.Mode.OVERWRITE,
                ROW_GROUP_BYTES, 0);
        file.start();
        newRowGroup();
    }

    /**
     * The columns of {@code fields} dealt into {@code groups} groups of about equal weight (a BINARY or fixed-length
     * byte column weighs 2, any other 1): the heaviest first, each to the lightest group so far; each group's columns
     * in schema order.
     */
    static int[][] groupColumns(List<Type> fields, int groups) {
        int n = fields.size();
        int[] weight = new int[n];
        for (int c = 0; c < n; c++) {
            PrimitiveType.PrimitiveTypeName physical = fields.get(c).asPrimitiveType().getPrimitiveTypeName();
            weight[c] = physical == PrimitiveType.PrimitiveTypeName.BINARY
                    || physical == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY ? 2 : 1;
        }
        int[] groupOf = new int[n];
        int[] load = new int[groups];
        for (int w = 2; w >= 1; w--) {
            for (int c = 0; c < n; c++) {
                if (weight[c] == w) {
                    int lightest = 0;
                    for (int g = 1; g < groups; g++) {
                        lightest = load[g] < load[lightest] ? g : lightest;
                    }
                    groupOf[c] = lightest;
                    load[lightest] += w;
                }
            }
        }
        int[][] columnsOf = new int[groups][];
        for (int g = 0; g < groups; g++) {
            int count = 0;
            for (int c = 0; c < n; c++) {
                count += groupOf[c] == g ? 1 : 0;
            }
            columnsOf[g] = new int[count];
            for (int c = 0, k = 0; c < n; c++) {
                if (groupOf[c] == g) {
                    columnsOf[g][k++] = c;
                }
            }
        }
        return columnsOf;
    }

    /** The Parquet column {@code name}: {@code input}'s type renamed and OPTIONAL, or {@code type}'s own. */
    static PrimitiveType columnType(String name, ColumnType type, PrimitiveType input) {
        if (input != null) {
            Types.PrimitiveBuilder<PrimitiveType> column = Types.optional(input.getPrimitiveTypeName());
            if (input.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
                column = column.length(input.getTypeLength());
            }
            return column.as(input.getLogicalTypeAnnotation()).named(name);
        }
        return switch (type) {
            case BIGINT -> Types.optional(PrimitiveType.PrimitiveTypeName.INT64).named(name);
            case INTEGER -> Types.optional(PrimitiveType.PrimitiveTypeName.INT32).named(name);
            case DOUBLE -> Types.optional(PrimitiveType.PrimitiveTypeName.DOUBLE).named(name);
            case BOOLEAN -> Types.optional(PrimitiveType.PrimitiveTypeName.BOOLEAN).named(name);
            case VARCHAR -> Types.optional(PrimitiveType.PrimitiveTypeName.BINARY)
                    .as(LogicalTypeAnnotation.stringType()).named(name);
            case VARBINARY -> Types.optional(PrimitiveType.PrimitiveTypeName.BINARY).named(name);
        };
    }

    /**
     * Hands the lanes copies of their columns of {@code batch} (or, when it holds rows of megabytes, lends it to each
     * in turn and waits for it: no copy of such rows, and one group's page at a time, whose value, page and
     * compressed copies are megabytes each), encodes group 0's columns, and ends the row
     * group after {@code batch} when the buffered bytes after the batch {@value EncoderLane#LAG} before it (none
     * before the row group's first), plus the data bytes of the batches since, reach {@link #ROW_GROUP_BYTES}: a
     * rule every thread count applies alike, which lets a lane be that many batches behind. The data bytes, the
     * values as they stand before encoding, are about the most those batches can add to the pages (for
     * incompressible values), so a row group holds at most about {@link #ROW_GROUP_BYTES} and one batch, however
     * large its rows: with only the bytes known, {@value EncoderLane#LAG} batches of rows of megabytes beyond them
     * were buffered too. A batch holding rows of megabytes ({@link BatchSizing#holdsLargeValues}) also ends its row
     * group: such rows fill every batch in flight on the heap, and a row group of two of them beside those took the
     * heap past its bound (docs/PERFORMANCE.md, fifteenth session).
     */
    @Override
    public void write(Batch batch) throws IOException {
        if (batch.rowCount() == 0) {
            return;
        }
        boolean large = BatchSizing.holdsLargeValues(batch);
        if (groupBatches == 0) {
            lanesOn = lanes.length > 0 && lanePolicy.lanesForNextRowGroup();
        }
        int slot = groupBatches % ownBytesAfter.length;
        long others = 0;
        if (lanesOn) {
            for (EncoderLane lane : lanes) {
                if (large) {
                    lane.lend(batch);
                    lane.awaitLent();
                } else {
                    lane.submit(lane.copyOf(batch));
                }
            }
        } else {
            for (int g = 1; g < groupColumns.length; g++) {
                others += writeGroup(g, batch);
            }
        }
        dataBytesOf[slot] = batch.dataBytes();
        ownBytesAfter[slot] = others + writeGroup(0, batch);
        groupBatches++;
        groupRows += batch.rowCount();
        rowsWritten += batch.rowCount();
        int known = groupBatches - 1 - EncoderLane.LAG; // the last batch whose bytes after it are taken now
        long buffered = 0;
        if (known >= 0) {
            buffered = ownBytesAfter[known % ownBytesAfter.length];
            if (lanesOn) {
                for (EncoderLane lane : lanes) {
                    buffered += lane.await();
                }
            }
        }
        for (int b = Math.max(0, known + 1); b < groupBatches; b++) {
            buffered += dataBytesOf[b % dataBytesOf.length];
        }
        if (buffered >= ROW_GROUP_BYTES || large) {
            flushRowGroup();
            newRowGroup();
        }
    }

    @Override
    public void finish() throws IOException {
        flushRowGroup();
        closeLanes();
        file.end(Map.of());
        out.flush();
    }

    /** Stops the encoding threads (after a failure; {@link #finish()} does it on success). */
    @Override
    public void close() {
        closeLanes();
    }

    @Override
    public long rowsWritten() {
        return rowsWritten;
    }

    /** Whether column {@code c}'s next row group tries dictionary encoding (no row group of it has fallen back). */
    boolean triesDictionary(int c) {
        return columns[c].dictionary;
    }

    /**
     * The largest buffer any column group keeps for its next pages (a free array of its allocator, its compressor's
     * output array, its page array), for tests: after {@link #finish()}, when the lanes no longer touch theirs.
     */
    int largestKeptBuffer() {
        int largest = 0;
        for (int[] group : groupColumns) {
            EncoderBuffers encoder = columns[group[0]].encoder;
            largest = Math.max(largest, encoder.buffers.largestFreeArray());
            largest = Math.max(largest, ((ParquetCodecs.PageCompressor) encoder.compressor).keptBytes());
            largest = Math.max(largest, encoder.assembled == null ? 0 : encoder.assembled.keptBytes());
        }
        return largest;
    }

    /** Encodes group {@code g}'s columns of {@code batch}; returns the group's buffered bytes after it. */
    private long writeGroup(int g, Batch batch) throws IOException {
        int rows = batch.rowCount();
        for (int c : groupColumns[g]) {
            columns[c].chunk.write(batch.column(c), rows);
        }
        return groupBytes(g);
    }

    /** Ends group {@code g}'s column chunks of the row group (their last pages, their dictionary pages). */
    private void finishGroup(int g) throws IOException {
        for (int c : groupColumns[g]) {
            columns[c].chunk.finish();
        }
    }

    /** The bytes group {@code g}'s column chunks hold: their pages and their open pages. */
    private long groupBytes(int g) {
        long bytes = 0;
        for (int c : groupColumns[g]) {
            bytes += columns[c].chunk.bufferedSize();
        }
        return bytes;
    }

    private void closeLanes() {
        for (EncoderLane lane : lanes) {
            lane.close();
        }
    }

    private void newRowGroup() {
        for (ColumnChunk column : columns) {
            column.open();
        }
        groupRows = 0;
        groupBatches = 0;
    }

    /**
     * Ends the buffered row group's column chunks, every group at once (the lanes after the batches they still
     * encode), then writes them in schema order; a chunk that fell back stays plain after.
     */
    private void flushRowGroup() throws IOException {
        if (groupRows == 0) {
            return;
        }
        if (lanesOn) {
            for (EncoderLane lane : lanes) {
                lane.finishRowGroup();
            }
        } else {
            for (int g = 1; g < groupColumns.length; g++) {
                finishGroup(g);
            }
        }
        finishGroup(0);
        if (lanesOn) {
            for (EncoderLane lane : lanes) {
                // the results of the row group's last batches (a write takes the one LAG batches back), then its end
                for (int b = 0; b <= Math.min(groupBatches, EncoderLane.LAG); b++) {
                    lane.await();
                }
            }
        }
        file.startBlock(groupRows);
        for (ColumnChunk column : columns) {
            column.pages.flushToFileWriter(file);
        }
        file.endBlock();
        for (ColumnChunk column : columns) {
            column.dictionary &= column.chunk.keptDictionary();
            column.chunk.close();
            column.pages.close();
        }
    }

    /**
     * The buffers and compressor of one column group, used by one thread at a time, and its two encoding settings
     * (one builder each: it is mutable).
     */
    private static final class EncoderBuffers {
        final RecyclingAllocator buffers;
        final BytesInputCompressor compressor;
        /** Where the group's pages are assembled before they are compressed; null when the compressor reads pieces. */
        final PageBytes assembled;
        final ParquetProperties dictionaryFirst;
        final ParquetProperties plain;

        EncoderBuffers(CompressionCodecName codec, long maxFreeBytes) {
            this.buffers = new RecyclingAllocator(maxFreeBytes, MAX_KEPT_BUFFER_BYTES);
            this.compressor = ParquetCodecs.INSTANCE.getCompressor(codec);
            this.assembled = ParquetCodecs.compressesOneArray(codec) ? new PageBytes(MAX_KEPT_BUFFER_BYTES) : null;
            this.dictionaryFirst = properties(true);
            this.plain = properties(false);
        }

        /** Page sizes, the reused buffers, and dictionary encoding tried or not. */
        private ParquetProperties properties(boolean dictionary) {
            return ParquetProperties.builder().withValuesWriterFactory(new OutputValuesWriters())
                    .withPageSize(PAGE_BYTES).withDictionaryPageSize(PAGE_BYTES).withPageRowCountLimit(PAGE_ROWS)
                    .withAllocator(buffers).withDictionaryEncoding(dictionary).build();
        }
    }

    /** One output column: its one-column schema, its encoding choice and the current row group's chunk. */
    private static final class ColumnChunk {
        private final MessageType schema;
        private final ColumnDescriptor descriptor;
        private final EncoderBuffers encoder;
        /** The compression of its chunks: the codec's, or none for a chunk the codec does not shrink. */
        private final ColumnCompressor compression;
        /** Whether the next row group's chunk tries dictionary encoding (until one falls back, or never: see above). */
        boolean dictionary;
        ColumnChunkPageWriteStore pages;
        ColumnChunkWriter chunk;

        ColumnChunk(MessageType schema, EncoderBuffers encoder, boolean dictionary) {
            this.schema = schema;
            this.encoder = encoder;
            this.compression = new ColumnCompressor(encoder.compressor);
            this.dictionary = dictionary;
            this.descriptor = schema.getColumns().get(0);
        }

        void open() {
            compression.startChunk();
            pages = new ColumnChunkPageWriteStore(compression, schema, encoder.buffers, COLUMN_INDEX_TRUNCATE_BYTES);
            chunk = new ColumnChunkWriter(descriptor, pages.getPageWriter(descriptor),
                    dictionary ? encoder.dictionaryFirst : encoder.plain, encoder.assembled);
        }
    }

    /**
     * The output stream with the position Parquet's writer asks for (bytes written so far), buffered: parquet-java
     * writes a page header a field at a time and a page's bytes in pieces of a few kilobytes, which went to the stream
     * beneath (a file channel's) as 46,000 system calls for W1's 135 MB, 29,000 of them under 16 bytes.
     */
    private static final class PositionCountingStream extends PositionOutputStream {
        private static final int BUFFER_BYTES = 256 << 10;
        private final BufferedOutputStream out;
        private long position;

        PositionCountingStream(OutputStream out) {
            this.out = new BufferedOutputStream(out, BUFFER_BYTES);
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            position += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        /** The output file commits (closes) the stream beneath, not the Parquet writer. */
        @Override
        public void close() throws IOException {
            out.flush();
        }
    }

    /** The already opened output stream as the {@link OutputFile} parquet-java writes to. */
    private record StreamOutputFile(PositionCountingStream stream) implements OutputFile {
        @Override
        public PositionOutputStream create(long blockSizeHint) {
            return stream;
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return stream;
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }
    }
}
