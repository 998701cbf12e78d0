package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes small Parquet files of any physical and logical column types with spilljoin's own writer (which writes a
 * column of a given Parquet type as that type): values are given as the reader holds them, a {@code Long} for an
 * INT32 or INT64 column (its stored bits), a {@code String} for a text column, a {@code byte[]} for other bytes,
 * null for NULL; or with parquet-java's column writers, values stored exactly as given
 * ({@link #writeWithParquetJava}).
 */
final class ParquetTestFiles {
    private ParquetTestFiles() {
    }

    /** An optional column {@code name} of physical type {@code physical} annotated {@code logical} (may be null). */
    static PrimitiveType column(String name, PrimitiveTypeName physical, LogicalTypeAnnotation logical) {
        Types.PrimitiveBuilder<PrimitiveType> type = Types.optional(physical);
        if (logical instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
            type = type.length(16);
        }
        return type.as(logical).named(name);
    }

    /** Writes {@code rows} (each one value per column of {@code types}) to {@code file}. */
    static Path write(Path file, List<PrimitiveType> types, Object[]... rows) throws IOException {
        String[] names = new String[types.size()];
        ColumnType[] held = new ColumnType[types.size()];
        List<Column> columns = new ArrayList<>();
        for (int c = 0; c < names.length; c++) {
            names[c] = types.get(c).getName();
            held[c] = ParquetColumnType.heldAs(types.get(c));
            columns.add(Column.of(names[c], held[c]));
        }
        Batch batch = new Batch(new Schema(columns), Math.max(1, rows.length));
        for (int r = 0; r < rows.length; r++) {
            for (int c = 0; c < names.length; c++) {
                set(batch.column(c), r, rows[r][c]);
            }
        }
        batch.setRowCount(rows.length);
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            ParquetResultWriter writer = new ParquetResultWriter(out, names, held,
                    types.toArray(new PrimitiveType[0]), CompressionCodecName.UNCOMPRESSED);
            writer.write(batch);
            writer.finish();
        }
        return file;
    }

    /**
     * Writes {@code rows} to {@code file} with parquet-java's own column writers (not spilljoin's), so that values
     * are stored exactly as given: a {@code Long} for an INT64 column, an {@code Integer} for INT32, a
     * {@code byte[]} for BINARY or FIXED_LEN_BYTE_ARRAY, null for NULL; one uncompressed row group, dictionary
     * encoding (falling back to plain) when {@code dictionary}.
     */
    static Path writeWithParquetJava(Path file, MessageType schema, boolean dictionary, Object[]... rows)
            throws IOException {
        return writeWithParquetJava(file, schema, dictionary, ParquetProperties.WriterVersion.PARQUET_1_0, rows);
    }

    /**
     * As {@link #writeWithParquetJava(Path, MessageType, boolean, Object[][])}, in data pages of {@code version}, the
     * values encoded as in version 1 either way (PLAIN or dictionary: version 2's writer would delta-encode integers).
     */
    static Path writeWithParquetJava(Path file, MessageType schema, boolean dictionary,
                                     ParquetProperties.WriterVersion version, Object[]... rows) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        ParquetFileWriter writer = new ParquetFileWriter(new LocalOutputFile(file), schema,
                ParquetFileWriter.Mode.CREATE, Long.MAX_VALUE, 0);
        writer.start();
        ColumnChunkPageWriteStore pages = new ColumnChunkPageWriteStore(
                ParquetCodecs.INSTANCE.getCompressor(CompressionCodecName.UNCOMPRESSED), schema,
                new HeapByteBufferAllocator(), 64);
        ColumnWriteStore store = ParquetProperties.builder().withDictionaryEncoding(dictionary)
                .withWriterVersion(version).withValuesWriterFactory(new DefaultV1ValuesWriterFactory()).build()
                .newColumnWriteStore(schema, pages);
        List<ColumnDescriptor> descriptors = schema.getColumns();
        for (Object[] row : rows) {
            for (int c = 0; c < descriptors.size(); c++) {
                ColumnWriter column = store.getColumnWriter(descriptors.get(c));
                int defined = descriptors.get(c).getMaxDefinitionLevel();
                if (row[c] == null) {
                    column.writeNull(0, defined - 1);
                } else if (row[c] instanceof Long value) {
                    column.write(value, 0, defined);
                } else if (row[c] instanceof Integer value) {
                    column.write(value, 0, defined);
                } else {
                    column.write(Binary.fromConstantByteArray((byte[]) row[c]), 0, defined);
                }
            }
            store.endRecord();
        }
        writer.startBlock(rows.length);
        store.flush();
        pages.flushToFileWriter(writer);
        writer.endBlock();
        writer.end(Map.of());
        store.close();
        pages.close();
        return file;
    }

    private static void set(ColumnVector vector, int row, Object value) {
        if (value == null) {
            vector.setNull(row);
        } else if (value instanceof Long number) {
            vector.setLong(row, number);
        } else {
            byte[] bytes = value instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : (byte[]) value;
            vector.setBytes(row, bytes, 0, bytes.length);
        }
    }
}
