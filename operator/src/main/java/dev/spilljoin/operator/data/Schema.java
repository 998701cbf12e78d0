package dev.spilljoin.operator.data;

import java.util.List;

/** An ordered list of named, typed, nullable columns. Column names are unique within a schema. */
public record Schema(List<Column> columns) {
    public Schema {
        columns = List.copyOf(columns);
        java.util.Map<String, Integer> positions = new java.util.HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            Integer j = positions.putIfAbsent(columns.get(i).name(), i);
            if (j != null) {
                throw new IllegalArgumentException("duplicate column name '" + columns.get(i).name()
                        + "' at positions " + j + " and " + i + " of schema " + columns);
            }
        }
    }

    public static Schema of(Column... columns) {
        return new Schema(List.of(columns));
    }

    public int size() {
        return columns.size();
    }

    public Column column(int index) {
        return columns.get(index);
    }

    public ColumnType type(int index) {
        return columns.get(index).type();
    }

    /** The position of the column called {@code name}; a clear error naming the columns there are otherwise. */
    public int indexOf(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column '" + name + "' in schema with columns " + names());
    }

    public List<String> names() {
        return columns.stream().map(Column::name).toList();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            sb.append(i == 0 ? "" : ", ").append(c.name()).append(' ').append(c.type()).append(c.nullable() ? "" : " NOT NULL");
        }
        return sb.append(')').toString();
    }
}
