package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.nio.file.Path;

/**
 * One input of a planned join: its file and format, its column names, which columns are keys (in
 * {@code --on} order), and the type each column is read as ({@code columnTypes[c]}: the key's comparison
 * type, null for a text column).
 *
 * @param role "left" or "right", for messages
 */
public record InputSide(String role, Path file, CsvFormat format, OnError onError, String[] columnNames,
                        int[] keyColumns, ColumnType[] columnTypes) {

    /** Opens the file for the join pass, with the key columns parsed as their types. */
    public CsvReader openReader() {
        return new CsvReader(file, format, onError, columnTypes, CsvReader.DEFAULT_BUFFER_BYTES);
    }

    public int columnCount() {
        return columnNames.length;
    }
}
