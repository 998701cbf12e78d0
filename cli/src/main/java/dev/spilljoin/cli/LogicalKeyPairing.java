package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * How a key pair is read when a column of it is a Parquet column whose stored values mean more than their operator
 * type ({@link ParquetColumnType#storesMeaning}: a DECIMAL's unscaled integer, a DATE's days, a TIMESTAMP's units, an
 * unsigned 64-bit integer's bits, a UUID's or an INT96's bytes): equal stored values must be equal values, or the
 * pair is refused with a fix that works.
 *
 * <ul>
 *   <li>Two Parquet columns pair when their values compare alike ({@link #sameMeaning}): the same logical type, or
 *       two DECIMALs of one scale held alike ({@link ParquetDecimal}: both of at most 18 digits or stored as
 *       integers, whose unscaled longs then compare, or both of more digits in bytes, whose minimal two's
 *       complements then compare), whatever their physical types and precisions; or a DECIMAL of scale 0 held as
 *       its unscaled long with a Parquet integer key (not an unsigned 64-bit one), as BIGINTs. Any other pair with
 *       such a column (a DECIMAL(10,2) with a DECIMAL(10,3), TIMESTAMP millis with micros, a DATE with a plain
 *       integer, an unsigned 64-bit integer with a signed one) is refused, saying which type to write both keys
 *       as.</li>
 *   <li>A CSV column paired with a DECIMAL (of at most 38 digits), DATE, TIME, TIMESTAMP or UUID column is read
 *       as that type's stored values ({@link LogicalValueParser}), whatever its sample looks like; its type may then
 *       not be declared with {@code --schema-*} (refused: drop the entry). With any other such column (an unsigned
 *       64-bit integer, an INT96, a DECIMAL of more digits) a CSV column is refused, saying how to write the Parquet
 *       key so that it pairs.</li>
 * </ul>
 */
final class LogicalKeyPairing {
    private LogicalKeyPairing() {
    }

    /**
     * One column of a key pair: its type before pairing (null: a CSV column with nothing in its sample), whether it
     * is a CSV column, whether its type was declared with {@code --schema-<role>}, and its name.
     */
    record Key(KeyType type, boolean csv, boolean declared, String role, String name) {
        boolean storesMeaning() {
            return type != null && type.logical() != null;
        }
    }

    /** Builds the error refusing the pair, given the fix that ends the message. */
    interface Refusal {
        UsageException error(String fix);
    }

    /**
     * The types the pair is read as, or null when neither column stores a logical type (the pair is then
     * {@link KeyTypeInference#compareType}'s); refused with {@code refusal} as above.
     */
    static KeyTypeInference.PairType pair(Key left, Key right, Refusal refusal) {
        if (!left.storesMeaning() && !right.storesMeaning()) {
            return null;
        }
        if (left.storesMeaning() && right.storesMeaning()) {
            if (left.type.equals(right.type)) {
                return new KeyTypeInference.PairType(left.type, right.type);
            }
            throw refusal.error(twoParquetFix(left.type.logical(), right.type.logical()));
        }
        Key parquet = left.storesMeaning() ? left : right;
        Key other = parquet == left ? right : left;
        PrimitiveType logical = parquet.type.logical();
        if (!other.csv) {
            if (wholeDecimal(logical) && other.type.isIntegral()) {
                KeyType integers = KeyType.of(ColumnType.BIGINT);
                return new KeyTypeInference.PairType(integers, integers);
            }
            throw refusal.error(isUnsigned64(logical) ? unsigned64Fix()
                    : "both are Parquet columns, typed by their files (no flag changes them): write one file again"
                    + " with its key cast to the other's type");
        }
        if (LogicalValueParser.of(logical) == null) {
            throw refusal.error(csvFix(logical));
        }
        if (other.declared) {
            throw refusal.error("a CSV key paired with a Parquet " + ParquetColumnType.describe(logical) + " key is"
                    + " read as that type: drop '" + other.name + "' from --schema-" + other.role);
        }
        KeyType read = KeyType.storing(parquet.type.type(), logical);
        return parquet == left ? new KeyTypeInference.PairType(parquet.type, read)
                : new KeyTypeInference.PairType(read, parquet.type);
    }

    /**
     * Whether key columns of Parquet types {@code a} and {@code b} store equal values for equal values: the same
     * values ({@link ParquetColumnType#sameValues}), or two DECIMALs of one scale held alike.
     */
    static boolean sameMeaning(PrimitiveType a, PrimitiveType b) {
        DecimalLogicalTypeAnnotation da = ParquetDecimal.of(a);
        DecimalLogicalTypeAnnotation db = ParquetDecimal.of(b);
        if (da != null && db != null) {
            return da.getScale() == db.getScale() && ParquetColumnType.heldAs(a) == ParquetColumnType.heldAs(b);
        }
        return ParquetColumnType.sameValues(a, b);
    }

    /** The fix for two Parquet keys that do not pair: the type to write both as, where one is clear. */
    private static String twoParquetFix(PrimitiveType a, PrimitiveType b) {
        String prefix = "both are Parquet columns, typed by their files (no flag changes them): ";
        LogicalTypeAnnotation la = a.getLogicalTypeAnnotation();
        LogicalTypeAnnotation lb = b.getLogicalTypeAnnotation();
        if (la instanceof DecimalLogicalTypeAnnotation da && lb instanceof DecimalLogicalTypeAnnotation db) {
            int scale = Math.max(da.getScale(), db.getScale());
            int precision = Math.min(38, Math.max(da.getPrecision() - da.getScale(),
                    db.getPrecision() - db.getScale()) + scale);
            return prefix + "write the files again with both keys cast to DECIMAL(" + precision + "," + scale + ")";
        }
        if (la instanceof TimestampLogicalTypeAnnotation ta && lb instanceof TimestampLogicalTypeAnnotation tb) {
            if (ta.isAdjustedToUTC() != tb.isAdjustedToUTC()) {
                return prefix + "write one file again with its key as the other's TIMESTAMP type, with or without"
                        + " UTC adjustment (which instant a local timestamp is depends on its time zone)";
            }
            TimeUnit finer = ta.getUnit().ordinal() > tb.getUnit().ordinal() ? ta.getUnit() : tb.getUnit();
            return prefix + "write the files again with both keys as TIMESTAMP in " + finer + " (lossless from the"
                    + " coarser unit)";
        }
        if (isUnsigned64(a) || isUnsigned64(b)) {
            return prefix + unsigned64Fix();
        }
        if (a.getPrimitiveTypeName() == PrimitiveTypeName.INT96
                || b.getPrimitiveTypeName() == PrimitiveTypeName.INT96) {
            return prefix + "write the INT96 key as a TIMESTAMP (Spark: spark.sql.parquet.outputTimestampType="
                    + "TIMESTAMP_MICROS), or both as INT96";
        }
        return prefix + "write one file again with its key cast to the other's type";
    }

    /** The fix for a CSV key paired with a Parquet key of {@code logical}, which text is not read as. */
    private static String csvFix(PrimitiveType logical) {
        if (isUnsigned64(logical)) {
            return "a CSV key does not pair with an unsigned 64-bit key (values above 2^63 - 1 equal no BIGINT):"
                    + " write the Parquet key again as a signed BIGINT (if every value is below 2^63)";
        }
        if (logical.getPrimitiveTypeName() == PrimitiveTypeName.INT96) {
            return "write the Parquet key as a TIMESTAMP (Spark: spark.sql.parquet.outputTimestampType="
                    + "TIMESTAMP_MICROS), which a CSV key is read as";
        }
        if (logical.getLogicalTypeAnnotation() instanceof DecimalLogicalTypeAnnotation) {
            return "write the Parquet key as a DECIMAL of at most " + LogicalValueParser.WIDE_DIGITS + " digits, which"
                    + " a CSV key is read as";
        }
        return "write the Parquet key as a type a CSV key pairs with (an integer, DOUBLE, BOOLEAN, STRING, DECIMAL,"
                + " DATE, TIME, TIMESTAMP or UUID)";
    }

    private static String unsigned64Fix() {
        return "an unsigned 64-bit key pairs only with another (values above 2^63 - 1 equal no signed integer):"
                + " write it again as a signed BIGINT (if every value is below 2^63)";
    }

    /** Whether {@code type} is a DECIMAL of scale 0 held as its unscaled long, which is then its integer value. */
    private static boolean wholeDecimal(PrimitiveType type) {
        return ParquetDecimal.heldAsLong(type) && ParquetDecimal.of(type).getScale() == 0;
    }

    private static boolean isUnsigned64(PrimitiveType type) {
        return type.getPrimitiveTypeName() == PrimitiveTypeName.INT64 && ParquetColumnType.isUnsigned(type);
    }
}
