package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;

/**
 * The type of one key column as declared or inferred, before it is paired with the other side's: an operator type,
 * or, for a column of integers beyond the BIGINT range, VARCHAR read as exact integer text ({@link #WIDE_INTEGER}).
 *
 * @param type       the operator type the column is held as
 * @param numberText how it is read as exact number text, or null when it is read as {@code type} itself
 */
record KeyType(ColumnType type, NumberText numberText) {
    /** Integers of which some do not fit BIGINT: compared as their exact digits. */
    static final KeyType WIDE_INTEGER = new KeyType(ColumnType.VARCHAR, NumberText.INTEGER);

    static KeyType of(ColumnType type) {
        return new KeyType(type, null);
    }

    boolean isIntegral() {
        return numberText == null && (type == ColumnType.BIGINT || type == ColumnType.INTEGER);
    }

    /**
     * Written out rather than the record's own, which a fresh JVM bootstraps through method handles (spinning
     * classes at run time, in every join's planning).
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof KeyType key && key.type == type && key.numberText == numberText;
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + (numberText == null ? 0 : numberText.hashCode());
    }

    /** For messages: the type's name, or what its exact number text holds. */
    @Override
    public String toString() {
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
