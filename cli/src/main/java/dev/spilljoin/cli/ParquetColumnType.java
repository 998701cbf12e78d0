package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.util.Objects;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * How one Parquet column maps onto the operator: the column type its batch vector holds, and its type as a key
 * (for {@link KeyTypeInference#compareType}, as a CSV key column's declared type).
 *
 * <ul>
 *   <li>INT32 and INT64 (with any integer logical type: DATE, TIME, TIMESTAMP, DECIMAL, INT(8..64)) are held as
 *       BIGINT, an unsigned INT32 (UINT8, UINT16, UINT32) widened as non-negative and an unsigned INT64 as its 64
 *       bits, an INT(8) or INT(16) at its own width ({@link ColumnChunkReader}); as keys INT32 is INTEGER
 *       (unsigned: BIGINT) and INT64 BIGINT, so a pair of both compares as BIGINT, as CSV keys do;</li>
 *   <li>FLOAT and DOUBLE: DOUBLE; BOOLEAN: BOOLEAN;</li>
 *   <li>BINARY annotated STRING, ENUM or JSON: VARCHAR; a DECIMAL in BINARY or FIXED_LEN_BYTE_ARRAY as
 *       {@link ParquetDecimal} holds it (of at most 18 digits its unscaled value as BIGINT, else its minimal two's
 *       complement as VARBINARY), so that equal decimals are equal keys whatever their physical type; any other
 *       BINARY and FIXED_LEN_BYTE_ARRAY (UUID, ...): VARBINARY (opaque bytes, compared bytewise);</li>
 *   <li>INT96 (the legacy timestamp Spark writes by default: nanoseconds of the day and Julian day): VARBINARY
 *       too, its 12 bytes normalized to one encoding per instant (nanoseconds within the day,
 *       {@link ColumnChunkReader}), so a Parquet output writes it back as INT96 (the same instant) and equal
 *       instants join as equal keys;</li>
 *   <li>repeated columns and groups (LIST, MAP, structs) are refused.</li>
 * </ul>
 * The Parquet type itself is kept beside the plan ({@link ParquetInput#types()}), so that Parquet output writes each
 * column back with its physical and logical type.
 */
final class ParquetColumnType {
    private ParquetColumnType() {
    }

    /** Why {@code field} cannot be read, or null when it can. */
    static String unsupported(Type field) {
        if (!field.isPrimitive()) {
            return "a nested type (group, LIST or MAP)";
        }
        if (field.isRepetition(Type.Repetition.REPEATED)) {
            return "a repeated column";
        }
        return null;
    }

    /** The operator type a batch holds {@code type}'s values as. */
    static ColumnType heldAs(PrimitiveType type) {
        return switch (type.getPrimitiveTypeName()) {
            case INT32, INT64 -> ColumnType.BIGINT;
            case FLOAT, DOUBLE -> ColumnType.DOUBLE;
            case BOOLEAN -> ColumnType.BOOLEAN;
            case BINARY, FIXED_LEN_BYTE_ARRAY -> isText(type) ? ColumnType.VARCHAR
                    : ParquetDecimal.heldAsLong(type) ? ColumnType.BIGINT : ColumnType.VARBINARY;
            case INT96 -> ColumnType.VARBINARY;
        };
    }

    /**
     * {@code type} as a key, before pairing: one that {@link #storesMeaning} is its held type storing its values, a
     * signed INT32 INTEGER, an unsigned one (read widened, up to 2^32 - 1) BIGINT.
     */
    static KeyType keyType(PrimitiveType type) {
        if (storesMeaning(type)) {
            return KeyType.storing(heldAs(type), type);
        }
        return KeyType.of(type.getPrimitiveTypeName() == PrimitiveTypeName.INT32 && !isUnsigned(type)
                ? ColumnType.INTEGER : heldAs(type));
    }

    /**
     * Whether {@code type}'s stored values mean more than the operator type they are held as, so that a key of it
     * pairs by {@link LogicalKeyPairing}: INT96, and any logical type but text, BSON and an INT that reads as an
     * integer (all but an unsigned 64-bit one, whose values above 2^63 - 1 are held as negative bits).
     */
    static boolean storesMeaning(PrimitiveType type) {
        if (type.getPrimitiveTypeName() == PrimitiveTypeName.INT96) {
            return true;
        }
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        if (logical == null || isText(type) || logical instanceof LogicalTypeAnnotation.BsonLogicalTypeAnnotation) {
            return false;
        }
        return !(logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation integer)
                || !integer.isSigned() && integer.getBitWidth() == 64;
    }

    /** Whether {@code type} is annotated as an unsigned INT (of any width). */
    static boolean isUnsigned(PrimitiveType type) {
        return type.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation integer
                && !integer.isSigned();
    }

    /**
     * Whether the columns of types {@code a} and {@code b} (of two part files of one input) store the same values
     * alike, so that one reader reads both: the same physical type (and length) and the same logical type, where a
     * signed INT annotation of the physical type's own width is the same as none, and STRING, ENUM and JSON are all
     * text; or one DECIMAL(p, s) held alike ({@link ParquetDecimal}), whatever its physical type. Repetition
     * (OPTIONAL or REQUIRED) does not matter.
     */
    static boolean sameValues(PrimitiveType a, PrimitiveType b) {
        if (ParquetDecimal.of(a) != null || ParquetDecimal.of(b) != null) {
            return Objects.equals(a.getLogicalTypeAnnotation(), b.getLogicalTypeAnnotation()) && heldAs(a) == heldAs(b);
        }
        if (a.getPrimitiveTypeName() != b.getPrimitiveTypeName() || a.getTypeLength() != b.getTypeLength()) {
            return false;
        }
        if (isText(a) || isText(b)) {
            return isText(a) && isText(b);
        }
        return Objects.equals(meaning(a), meaning(b));
    }

    /** {@code type}'s logical annotation, null for none or for a signed INT of the physical type's own width. */
    private static LogicalTypeAnnotation meaning(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        if (logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation integer && integer.isSigned()
                && integer.getBitWidth() == (type.getPrimitiveTypeName() == PrimitiveTypeName.INT32 ? 32 : 64)) {
            return null;
        }
        return logical;
    }

    /** For messages: the physical type and its logical annotation, e.g. "INT32 (DATE)". */
    static String describe(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        return type.getPrimitiveTypeName() + (logical == null ? "" : " (" + logical + ")");
    }

    private static boolean isText(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        return logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation;
    }
}
