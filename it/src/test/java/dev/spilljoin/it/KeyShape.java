package dev.spilljoin.it;

import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.ColumnType;

import java.util.List;

/**
 * The key columns of a generated input and how a key id becomes their values; every shape maps distinct ids to
 * distinct keys, so both sides' matches are decided by the ids alone. DOUBLE keys put -0.0 on the left and 0.0 on
 * the right for id 0, and NaN on both for id 1: DuckDB and PostgreSQL both join -0.0 with 0.0 and NaN with NaN, as
 * spilljoin does.
 */
enum KeyShape {
    BIGINT(ColumnType.BIGINT),
    INTEGER(ColumnType.INTEGER),
    DOUBLE(ColumnType.DOUBLE),
    VARCHAR(ColumnType.VARCHAR),
    VARBINARY(ColumnType.VARBINARY),
    /** Two columns: {@code (id / 5, "s" + id % 5)}. */
    BIGINT_VARCHAR(ColumnType.BIGINT, ColumnType.VARCHAR),
    /** Two columns: {@code (id is odd, id / 2)}. */
    BOOLEAN_INTEGER(ColumnType.BOOLEAN, ColumnType.INTEGER);

    private final List<ColumnType> types;

    KeyShape(ColumnType... types) {
        this.types = List.of(types);
    }

    List<ColumnType> types() {
        return types;
    }

    /** Appends key column {@code k}'s value for {@code id} at {@code column} of the row being built. */
    void append(BatchBuilder row, int column, int k, long id, boolean left) {
        switch (this) {
            case BIGINT -> row.appendLong(column, id * 0x9E3779B97F4A7C15L);
            case INTEGER -> row.appendInt(column, (int) (id * 2654435761L));
            case DOUBLE -> row.appendDouble(column, id == 0 ? (left ? -0.0 : 0.0) : id == 1 ? Double.NaN : id * 0.25 - 1000);
            case VARCHAR -> row.appendString(column, id % 3 == 0 ? "key-" + id + "-with-a-longer-tail-é" : "key-" + id);
            case VARBINARY -> row.appendBytes(column, idBytes(id));
            case BIGINT_VARCHAR -> {
                if (k == 0) {
                    row.appendLong(column, id / 5);
                } else {
                    row.appendString(column, "s" + id % 5);
                }
            }
            case BOOLEAN_INTEGER -> {
                if (k == 0) {
                    row.appendBoolean(column, (id & 1) != 0);
                } else {
                    row.appendInt(column, (int) (id >>> 1));
                }
            }
        }
    }

    /** The id's big-endian bytes without leading zero bytes (id 0: no bytes). */
    private static byte[] idBytes(long id) {
        int length = (64 - Long.numberOfLeadingZeros(id) + 7) / 8;
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (id >>> (8 * (length - 1 - i)));
        }
        return b;
    }
}
