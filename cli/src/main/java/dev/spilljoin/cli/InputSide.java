package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.nio.file.Path;
import org.apache.parquet.schema.PrimitiveType;

/**
 * One input of a planned join: its file and format, its column names, which columns are keys (in
 * {@code --on} order), and how each column is read ({@code keys}: a key's comparison type, null for a text
 * column, and for a key compared as exact number text its grammar). A Parquet input ({@code parquet} not null)
 * reads only {@code columnNames} (projected), each as its own type ({@link ParquetColumnType}).
 *
 * @param role    "left" or "right", for messages
 * @param parquet the Parquet part files and column types, or null for a CSV input
 * @param opened  a pipe's reader, opened (its header read) by the plan, since a pipe cannot be opened twice; else null
 */
public record InputSide(String role, Path file, CsvFormat format, OnError onError, String[] columnNames,
                        int[] keyColumns, KeyReading keys, ParquetInput parquet, CsvReader opened) {

    /** Opens the file for the join pass (a pipe: takes over its open reader), the key columns parsed as their types. */
    public CsvReader openReader() {
        if (opened != null) {
            opened.readKeysAs(keys);
            return opened;
        }
        return CsvReader.open(file, format, onError, keys, CsvReader.DEFAULT_BUFFER_BYTES);
    }

    /** The type each column is read as: {@code columnTypes()[c]} is a key's type, null for a text column. */
    public ColumnType[] columnTypes() {
        if (parquet != null) {
            ColumnType[] types = new ColumnType[columnNames.length];
            for (int c = 0; c < types.length; c++) {
                types[c] = ParquetColumnType.heldAs(parquet.types()[c]);
            }
            return types;
        }
        return keys.types().clone();
    }

    /**
     * The Parquet type column {@code c}'s values are: a Parquet input's column's own, a CSV key's read as its Parquet
     * partner's logical type that type; else null. Output writes such a column by it.
     */
    PrimitiveType parquetType(int c) {
        return parquet != null ? parquet.types()[c] : keys.logical()[c];
    }

    public int columnCount() {
        return columnNames.length;
    }
}
