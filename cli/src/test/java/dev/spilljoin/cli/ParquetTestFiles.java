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
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes small Parquet files of any physical and logical column types with spilljoin's own writer (which writes a
 * column of a given Parquet type as that type): values are given as the reader holds them, a {@code Long} for an
 * INT32 or INT64 column (its stored bits), a {@code String} for a text column, a {@code byte[]} for other bytes,
 * null for NULL.
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
