package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * The type of one key column as declared or inferred, before it is paired with the other side's: an operator type,
 * or, for a column of integers beyond the BIGINT range, VARCHAR read as exact integer text ({@link #WIDE_INTEGER}),
 * or, for a Parquet column whose stored values mean more than their operator type (a DECIMAL's unscaled integer, a
 * DATE's days, ...), that Parquet type ({@link LogicalKeyPairing}).
 *
 * @param type       the operator type the column is held as
 * @param numberText how it is read as exact number text, or null when it is read as {@code type} itself
 * @param logical    the Parquet type whose stored values the column holds (a Parquet key's own, or for a CSV key
 *                   read as its Parquet partner's type, the partner's), or null for a plain {@code type}
 * @param scale      how a Parquet key's stored values are brought to its partner's unit to be compared, or null
 *                   when they are compared as stored
 */
record KeyType(ColumnType type, NumberText numberText, PrimitiveType logical, KeyScale scale) {
    /** Integers of which some do not fit BIGINT: compared as their exact digits. */
    static final KeyType WIDE_INTEGER = new KeyType(ColumnType.VARCHAR, NumberText.INTEGER, null, null);

    KeyType(ColumnType type, NumberText numberText) {
        this(type, numberText, null, null);
    }

    static KeyType of(ColumnType type) {
        return new KeyType(type, null, null, null);
    }

    /** Held as {@code type}, the values {@code logical} stores. */
    static KeyType storing(ColumnType type, PrimitiveType logical) {
        return new KeyType(type, null, logical, null);
    }

    /** Held as BIGINT, the values {@code logical} stores brought to a common unit by {@code scale} (null: none). */
    static KeyType scaled(PrimitiveType logical, KeyScale scale) {
        return new KeyType(ColumnType.BIGINT, null, logical, scale);
    }

    boolean isIntegral() {
        return numberText == null && logical == null && (type == ColumnType.BIGINT || type == ColumnType.INTEGER);
    }

    /**
     * Written out rather than the record's own, which a fresh JVM bootstraps through method handles (spinning
     * classes at run time, in every join's planning). Logical types are equal when their values compare alike
     * ({@link LogicalKeyPairing#sameMeaning}) and are scaled alike.
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof KeyType key && key.type == type && key.numberText == numberText
                && (key.logical == null ? logical == null
                        : logical != null && LogicalKeyPairing.sameMeaning(key.logical, logical))
                && (key.scale == null ? scale == null : key.scale.equals(scale));
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + (numberText == null ? 0 : numberText.hashCode());
    }

    /** For messages: the type's name, or what its exact number text or its Parquet type holds. */
    @Override
    public String toString() {
        if (logical != null) {
            return ParquetColumnType.describe(logical) + (scale == null ? "" : " " + scale);
        }
        if (numberText == null) {
            return type.name();
        }
        return switch (numberText) {
            case INTEGER -> "integers beyond BIGINT (compared exactly, as text)";
            case BIGINT_RANGE -> "BIGINT (compared exactly, as text)";
            case DECIMAL -> "DOUBLE (compared exactly, as decimal text)";
        };
    }
}
