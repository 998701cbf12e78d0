package dev.spilljoin.operator;

import java.util.Objects;

/** One output column: column {@code column} (0-based) of input {@code side}. */
public record ColumnRef(Side side, int column) {
    public ColumnRef {
        Objects.requireNonNull(side, "side");
        if (column < 0) {
            throw new IllegalArgumentException("column index must be >= 0, got " + column);
        }
    }
}
