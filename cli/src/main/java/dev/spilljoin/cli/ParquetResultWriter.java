package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
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
 * pages compressed by {@link ParquetCodecs}).
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
 * value, for nothing when the values are mostly distinct). When the buffered row group reaches
 * {@link #ROW_GROUP_BYTES} (checked after each batch) its column chunks go to the file in schema order;
 * {@link #finish()} flushes the last one and writes the footer.
 *
 * <p>Threads: the columns are dealt into up to {@code encoders} groups of about equal weight (a byte column weighs
 * two fixed-width ones), each with its own buffers and compressor; a batch is written, and a row group's last pages
 * encoded, group by group at once ({@link ColumnGroupRunner}: the caller's thread and a helper per further group),
 * and the row group is written to the file on the caller's thread alone. A column's values, pages and row groups do
 * not depend on the group it is in, so the file is the same byte for byte on any number of threads.
 *
 * <p>Memory: one row group's compressed pages, at most about {@link #ROW_GROUP_BYTES}, plus one open page per column
 * and each group's compressor's two page buffers; the page and row-group buffers are reused
 * ({@link RecyclingAllocator}s, which keep at most twice {@link #ROW_GROUP_BYTES} free between them), so the heap
 * holds about the same buffers from the first row group to the last. The stream is written front to back (no seek),
 * so it may be a pipe.
 */
final class ParquetResultWriter implements ResultWriter {
    /** The buffered row group's size at which it is written out (compressed pages plus the open ones). */
    static final long ROW_GROUP_BYTES = 16L << 20;
    private static final int PAGE_BYTES = 1 << 20;
    private static final int COLUMN_INDEX_TRUNCATE_BYTES = 64;

    private final ColumnChunk[] columns;
    /** The columns of each group, in schema order. */
    private final int[][] groupColumns;
    private final ColumnGroupRunner encoders;
    private final ParquetFileWriter file;
    private final PositionCountingStream out;
    private long groupRows;
    private long rowsWritten;

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
        List<Type> fields = new ArrayList<>(names.length);
        for (int c = 0; c < names.length; c++) {
            fields.add(columnType(names[c], operatorTypes[c], parquetTypes[c]));
        }
        MessageType schema = new MessageType("spilljoin", fields);
        this.groupColumns = groupColumns(fields, Math.max(1, Math.min(encoders, names.length)));
        this.columns = new ColumnChunk[names.length];
        for (int[] group : groupColumns) {
            EncoderBuffers buffers = new EncoderBuffers(codec, 2 * ROW_GROUP_BYTES / groupColumns.length);
            for (int c : group) {
                columns[c] = new ColumnChunk(new MessageType("spilljoin", fields.get(c)), buffers);
            }
        }
        this.encoders = new ColumnGroupRunner(groupColumns.length);
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

    @Override
    public void write(Batch batch) throws IOException {
        int rows = batch.rowCount();
        eachColumnAtOnce(c -> columns[c].chunk.write(batch.column(c), rows));
        long buffered = 0;
        for (ColumnChunk column : columns) {
            buffered += column.chunk.bufferedSize();
        }
        groupRows += rows;
        rowsWritten += rows;
        if (buffered >= ROW_GROUP_BYTES) {
            flushRowGroup();
            newRowGroup();
        }
    }

    @Override
    public void finish() throws IOException {
        flushRowGroup();
        encoders.close();
        file.end(Map.of());
        out.flush();
    }

    /** Stops the encoding threads (after a failure; {@link #finish()} does it on success). */
    @Override
    public void close() {
        encoders.close();
    }

    @Override
    public long rowsWritten() {
        return rowsWritten;
    }

    /** Whether column {@code c}'s next row group tries dictionary encoding (no row group of it has fallen back). */
    boolean triesDictionary(int c) {
        return columns[c].dictionary;
    }

    /** One column's part of a step (write a batch, flush a row group). */
    private interface ColumnStep {
        void run(int column) throws IOException;
    }

    /** Runs {@code step} for every column: a group's columns one after the other, the groups at once. */
    private void eachColumnAtOnce(ColumnStep step) throws IOException {
        encoders.run(g -> {
            for (int c : groupColumns[g]) {
                step.run(c);
            }
        });
    }

    private void newRowGroup() {
        for (ColumnChunk column : columns) {
            column.open();
        }
        groupRows = 0;
    }

    /**
     * Encodes the buffered row group's last pages (group by group at once), then writes its column chunks in schema
     * order; a chunk that fell back stays plain after.
     */
    private void flushRowGroup() throws IOException {
        if (groupRows == 0) {
            return;
        }
        eachColumnAtOnce(c -> columns[c].chunk.finish());
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
        final ParquetProperties dictionaryFirst;
        final ParquetProperties plain;

        EncoderBuffers(CompressionCodecName codec, long maxFreeBytes) {
            this.buffers = new RecyclingAllocator(maxFreeBytes);
            this.compressor = ParquetCodecs.INSTANCE.getCompressor(codec);
            this.dictionaryFirst = properties(true);
            this.plain = properties(false);
        }

        /** Page sizes, the reused buffers, and dictionary encoding tried or not. */
        private ParquetProperties properties(boolean dictionary) {
            return ParquetProperties.builder().withPageSize(PAGE_BYTES).withDictionaryPageSize(PAGE_BYTES)
                    .withAllocator(buffers).withDictionaryEncoding(dictionary).build();
        }
    }

    /** One output column: its one-column schema, its encoding choice and the current row group's chunk. */
    private static final class ColumnChunk {
        private final MessageType schema;
        private final ColumnDescriptor descriptor;
        private final EncoderBuffers encoder;
        /** Whether the next row group's chunk tries dictionary encoding (until one falls back). */
        boolean dictionary = true;
        ColumnChunkPageWriteStore pages;
        ColumnChunkWriter chunk;

        ColumnChunk(MessageType schema, EncoderBuffers encoder) {
            this.schema = schema;
            this.encoder = encoder;
            this.descriptor = schema.getColumns().get(0);
        }

        void open() {
            pages = new ColumnChunkPageWriteStore(encoder.compressor, schema, encoder.buffers,
                    COLUMN_INDEX_TRUNCATE_BYTES);
            chunk = new ColumnChunkWriter(descriptor, pages.getPageWriter(descriptor),
                    dictionary ? encoder.dictionaryFirst : encoder.plain);
        }
    }

    /** The output stream with the position Parquet's writer asks for (bytes written so far). */
    private static final class PositionCountingStream extends PositionOutputStream {
        private final OutputStream out;
        private long position;

        PositionCountingStream(OutputStream out) {
            this.out = out;
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
