package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Writes the join's result as one Parquet file into the output's stream, through parquet-column's column writers
 * (its encoders: dictionary falling back to plain, as parquet-java decides; the pages compressed by
 * {@link ParquetCodecs}).
 *
 * <p>Schema: every column OPTIONAL (outer joins give NULLs), named as the output header; a column from a Parquet
 * input keeps its physical and logical type (INT32 DATE stays INT32 DATE, FLOAT stays FLOAT, a DECIMAL stays that
 * DECIMAL), any other takes its operator type's (BIGINT: INT64, DOUBLE, BOOLEAN, VARCHAR: BINARY STRING,
 * VARBINARY: BINARY) — so a CSV side's non-key columns are strings.
 *
 * <p>Algorithm: row by row within a batch (a Parquet record is a row), each value straight from its vector's array
 * to its column writer, a byte value as a {@link Binary} over the vector's bytes that the writer copies when it
 * keeps it ({@link Binary#fromReusedByteArray}). When the buffered row group reaches {@link #ROW_GROUP_BYTES}
 * (checked after each batch) it is flushed to the file; {@link #finish()} flushes the last one and writes the
 * footer. Memory: one row group's encoded pages, at most about {@link #ROW_GROUP_BYTES} plus one batch's values.
 * The stream is written front to back (no seek), so it may be a pipe.
 */
final class ParquetResultWriter implements ResultWriter {
    /** The buffered row group's size at which it is written out (encoded, before compression). */
    static final long ROW_GROUP_BYTES = 16L << 20;
    private static final int PAGE_BYTES = 1 << 20;
    private static final int COLUMN_INDEX_TRUNCATE_BYTES = 64;

    private final MessageType schema;
    private final ColumnDescriptor[] descriptors;
    private final PrimitiveType[] types;
    private final ParquetProperties properties;
    private final CompressionCodecName codec;
    private final ParquetFileWriter file;
    private final PositionCountingStream out;
    private ColumnChunkPageWriteStore pages;
    private ColumnWriteStore columns;
    private ColumnWriter[] writers;
    private long groupRows;
    private long rowsWritten;

    /**
     * A writer into {@code out} of rows with columns {@code names} of operator types {@code operatorTypes}; a
     * column's Parquet type is {@code parquetTypes[c]} when not null (a Parquet input's), else its operator type's.
     */
    ParquetResultWriter(OutputStream out, String[] names, ColumnType[] operatorTypes, PrimitiveType[] parquetTypes,
                        CompressionCodecName codec) throws IOException {
        List<Type> fields = new ArrayList<>(names.length);
        for (int c = 0; c < names.length; c++) {
            fields.add(columnType(names[c], operatorTypes[c], parquetTypes[c]));
        }
        this.schema = new MessageType("spilljoin", fields);
        this.descriptors = schema.getColumns().toArray(new ColumnDescriptor[0]);
        this.types = new PrimitiveType[names.length];
        for (int c = 0; c < names.length; c++) {
            types[c] = descriptors[c].getPrimitiveType();
        }
        this.codec = codec;
        this.properties = ParquetProperties.builder().withPageSize(PAGE_BYTES).withDictionaryPageSize(PAGE_BYTES)
                .build();
        this.out = new PositionCountingStream(out);
        this.file = new ParquetFileWriter(new StreamOutputFile(this.out), schema, ParquetFileWriter.Mode.OVERWRITE,
                ROW_GROUP_BYTES, 0);
        file.start();
        newRowGroup();
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
        int width = writers.length;
        for (int r = 0, rows = batch.rowCount(); r < rows; r++) {
            for (int c = 0; c < width; c++) {
                ColumnVector v = batch.column(c);
                ColumnWriter w = writers[c];
                if (v.isNull(r)) {
                    w.writeNull(0, 0);
                    continue;
                }
                switch (types[c].getPrimitiveTypeName()) {
                    case INT64 -> w.write(v.type() == ColumnType.INTEGER ? v.ints()[r] : v.longs()[r], 0, 1);
                    case INT32 -> w.write(v.type() == ColumnType.INTEGER ? v.ints()[r] : (int) v.longs()[r], 0, 1);
                    case DOUBLE -> w.write(v.doubles()[r], 0, 1);
                    case FLOAT -> w.write((float) v.doubles()[r], 0, 1);
                    case BOOLEAN -> w.write(v.booleans()[r], 0, 1);
                    case BINARY, FIXED_LEN_BYTE_ARRAY -> {
                        int[] offsets = v.offsets();
                        w.write(Binary.fromReusedByteArray(v.bytes(), offsets[r], offsets[r + 1] - offsets[r]), 0,
                                1);
                    }
                    case INT96 -> throw new IllegalStateException("INT96 is refused at planning");
                }
            }
            columns.endRecord();
        }
        groupRows += batch.rowCount();
        rowsWritten += batch.rowCount();
        if (columns.getBufferedSize() >= ROW_GROUP_BYTES) {
            flushRowGroup();
            newRowGroup();
        }
    }

    @Override
    public void finish() throws IOException {
        flushRowGroup();
        file.end(Map.of());
        out.flush();
    }

    @Override
    public long rowsWritten() {
        return rowsWritten;
    }

    private void newRowGroup() {
        pages = new ColumnChunkPageWriteStore(ParquetCodecs.INSTANCE.getCompressor(codec), schema,
                new HeapByteBufferAllocator(), COLUMN_INDEX_TRUNCATE_BYTES);
        columns = properties.newColumnWriteStore(schema, pages);
        writers = new ColumnWriter[descriptors.length];
        for (int c = 0; c < descriptors.length; c++) {
            writers[c] = columns.getColumnWriter(descriptors[c]);
        }
        groupRows = 0;
    }

    private void flushRowGroup() throws IOException {
        if (groupRows == 0) {
            return;
        }
        file.startBlock(groupRows);
        columns.flush();
        pages.flushToFileWriter(file);
        file.endBlock();
        columns.close();
        pages.close();
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
