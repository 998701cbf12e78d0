package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.nio.file.Path;

/**
 * One input of a planned join: its file and format, its column names, which columns are keys (in
 * {@code --on} order), and how each column is read ({@code keys}: a key's comparison type, null for a text
 * column, and for a key compared as exact number text its grammar).
 *
 * @param role "left" or "right", for messages
 */
public record InputSide(String role, Path file, CsvFormat format, OnError onError, String[] columnNames,
                        int[] keyColumns, KeyReading keys) {

    /** Opens the file for the join pass, with the key columns parsed as their types. */
    public CsvReader openReader() {
        return CsvReader.open(file, format, onError, keys, CsvReader.DEFAULT_BUFFER_BYTES);
    }

    /** The type each column is read as: {@code columnTypes()[c]} is a key's type, null for a text column. */
    public ColumnType[] columnTypes() {
        return keys.types().clone();
    }

    public int columnCount() {
        return columnNames.length;
    }
}
