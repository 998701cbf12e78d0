package dev.spilljoin.cli;

import java.util.Locale;

/**
 * The types a key column can have, as the operator's batches hold them. Non-key columns are always passed
 * through as text bytes and have no type here.
 *
 * <p>VARBINARY keys are the raw field bytes, not interpreted (no hex decoding); VARCHAR keys are the field's
 * UTF-8 bytes, passed through unvalidated. Both compare byte for byte.
 */
public enum ColumnType {
    BIGINT,
    INTEGER,
    DOUBLE,
    BOOLEAN,
    VARCHAR,
    VARBINARY;

    /** The spellings {@code --schema-left/--schema-right} accept, for error messages. */
    public static final String SPELLINGS = "bigint, integer (int), double, boolean, varchar (text), varbinary";

    /** Parses a schema type name (case-insensitive); null when unknown. */
    static ColumnType fromName(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "bigint", "long", "int8" -> BIGINT;
            case "integer", "int", "int4" -> INTEGER;
            case "double", "float8", "double precision" -> DOUBLE;
            case "boolean", "bool" -> BOOLEAN;
            case "varchar", "text", "string" -> VARCHAR;
            case "varbinary", "bytea", "blob" -> VARBINARY;
            default -> null;
        };
    }

    /** True when values are held as {@code long} (BIGINT and INTEGER). */
    public boolean isIntegral() {
        return this == BIGINT || this == INTEGER;
    }

    /** True when values are held as field bytes (VARCHAR and VARBINARY). */
    public boolean isBytes() {
        return this == VARCHAR || this == VARBINARY;
    }
}
