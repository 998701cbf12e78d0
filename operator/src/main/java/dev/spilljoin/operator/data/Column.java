package dev.spilljoin.operator.data;

import java.util.Objects;

/** A named, typed column; {@code nullable} says whether it may hold NULLs. */
public record Column(String name, ColumnType type, boolean nullable) {
    public Column {
        Objects.requireNonNull(name, "column name");
        Objects.requireNonNull(type, "column type of '" + name + "'");
    }

    public static Column of(String name, ColumnType type) {
        return new Column(name, type, true);
    }
}
