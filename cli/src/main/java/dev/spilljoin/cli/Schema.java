package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A {@code --schema-left}/{@code --schema-right} value: {@code name:type[,name:type…]}, e.g.
 * {@code 'id:bigint,name:varchar'}. Types are {@link #TYPE_SPELLINGS}, case-insensitive; names are taken
 * as written (surrounding spaces trimmed), escapes as {@code --on} reads them ({@link RawText#unescape}). Only key columns are typed: a schema entry for another column is
 * checked to exist and otherwise has no effect, since non-key columns always pass through as text.
 */
public record Schema(Map<String, ColumnType> types) {
    public static final Schema NONE = new Schema(Map.of());
    /** The type spellings this schema accepts, for error messages. */
    public static final String TYPE_SPELLINGS = "bigint, integer (int), double, boolean, varchar (text), varbinary";

    public Schema {
        types = Collections.unmodifiableMap(new LinkedHashMap<>(types));
    }

    /** Parses {@code text} given to {@code flag}; throws {@link UsageException} saying what is wrong. */
    public static Schema parse(String text, String flag) {
        if (text == null) {
            return NONE;
        }
        String example = " (example: " + flag + " 'id:bigint,name:varchar')";
        if (text.isBlank()) {
            throw new UsageException(flag + " is empty: give name:type pairs separated by commas" + example);
        }
        Map<String, ColumnType> types = new LinkedHashMap<>();
        for (String entry : text.split(",", -1)) {
            int colon = entry.lastIndexOf(':');
            if (colon < 0) {
                throw new UsageException(flag + " entry '" + entry.trim() + "' has no type: write it as name:type"
                        + example);
            }
            String name = RawText.unescape(entry.substring(0, colon).trim());
            String typeName = entry.substring(colon + 1).trim();
            if (name.isEmpty()) {
                throw new UsageException(flag + " entry '" + entry.trim() + "' has no column name" + example);
            }
            ColumnType type = typeNamed(typeName);
            if (type == null) {
                throw new UsageException(flag + " gives column '" + name + "' the unknown type '" + typeName
                        + "'; use one of " + TYPE_SPELLINGS);
            }
            if (types.put(name, type) != null) {
                throw new UsageException(flag + " names column '" + name + "' twice; give each column once");
            }
        }
        return new Schema(types);
    }

    /** Parses a schema type name (case-insensitive); null when unknown. */
    static ColumnType typeNamed(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "bigint", "long", "int8" -> ColumnType.BIGINT;
            case "integer", "int", "int4" -> ColumnType.INTEGER;
            case "double", "float8", "double precision" -> ColumnType.DOUBLE;
            case "boolean", "bool" -> ColumnType.BOOLEAN;
            case "varchar", "text", "string" -> ColumnType.VARCHAR;
            case "varbinary", "bytea", "blob" -> ColumnType.VARBINARY;
            default -> null;
        };
    }

    /** The declared type of {@code column}, or null when the schema does not name it. */
    public ColumnType typeOf(String column) {
        return types.get(column);
    }
}
