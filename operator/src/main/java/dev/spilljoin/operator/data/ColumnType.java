package dev.spilljoin.operator.data;

/**
 * The column types a join understands. Fixed-width types carry their width in bytes (as stored in a serialized
 * row); VARCHAR (UTF-8) and VARBINARY are variable-width and carry their bytes as offsets plus a byte array.
 */
public enum ColumnType {
    BIGINT(8),
    INTEGER(4),
    DOUBLE(8),
    BOOLEAN(1),
    /** UTF-8 text; compared and hashed by its bytes. */
    VARCHAR(-1),
    VARBINARY(-1);

    private final int fixedWidth;

    ColumnType(int fixedWidth) {
        this.fixedWidth = fixedWidth;
    }

    public boolean isVariableWidth() {
        return fixedWidth < 0;
    }

    /** Bytes of a value in a serialized row; only for fixed-width types. */
    public int fixedWidth() {
        if (fixedWidth < 0) {
            throw new IllegalStateException(this + " is variable-width");
        }
        return fixedWidth;
    }
}
