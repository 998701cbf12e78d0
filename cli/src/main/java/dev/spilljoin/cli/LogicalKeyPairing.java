package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
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
 *       its unscaled long with a Parquet integer key (not an unsigned 64-bit one), as BIGINTs.</li>
 *   <li>Two Parquet columns of one kind in different units pair as DuckDB casts both to a common type, as longs in
 *       the finer unit ({@link #inCommonUnit}, {@link KeyScale}: the coarser side multiplied as read, divided back
 *       before output): DECIMALs of different scales, or a DECIMAL with an integer, whose common DECIMAL has at most
 *       18 digits; TIMESTAMPs of one UTC adjustment; TIMEs not adjusted to UTC; a DATE with a TIMESTAMP not adjusted
 *       to UTC. Invariant: equal values are equal longs on both sides, and every value of both types fits.</li>
 *   <li>Any other pair with such a column (a DECIMAL(12,2) with a DECIMAL(18,10), whose common type needs 20 digits,
 *       a TIMESTAMP adjusted to UTC with one that is not, a DATE with a plain integer, an unsigned 64-bit integer
 *       with a signed one) is refused, saying which type to write both keys as.</li>
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
     * One column of a key pair: its type before pairing (null: a CSV column with nothing in its sample), its Parquet
     * type (null: a CSV column), whether its type was declared with {@code --schema-<role>}, and its name.
     */
    record Key(KeyType type, PrimitiveType parquet, boolean declared, String role, String name) {
        boolean storesMeaning() {
            return type != null && type.logical() != null;
        }

        boolean csv() {
            return parquet == null;
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
            KeyTypeInference.PairType scaled = inCommonUnit(left.parquet, right.parquet);
            if (scaled != null) {
                return scaled;
            }
            throw refusal.error(twoParquetFix(left.type.logical(), right.type.logical()));
        }
        Key parquet = left.storesMeaning() ? left : right;
        Key other = parquet == left ? right : left;
        PrimitiveType logical = parquet.type.logical();
        if (!other.csv()) {
            if (wholeDecimal(logical) && other.type.isIntegral()) {
                KeyType integers = KeyType.of(ColumnType.BIGINT);
                return new KeyTypeInference.PairType(integers, integers);
            }
            KeyTypeInference.PairType scaled = inCommonUnit(left.parquet, right.parquet);
            if (scaled != null) {
                return scaled;
            }
            throw refusal.error(isUnsigned64(logical) ? unsigned64Fix()
                    : "both are Parquet columns, typed by their files (no flag changes them): write one file again"
                    + " with its key cast to the other's type");
        }
        if (LogicalValueParser.of(logical) == null) {
            throw refusal.error(csvFix(logical));
        }
        if (other.declared()) {
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

    /**
     * Two Parquet keys of types {@code a} and {@code b} compared as longs in their common unit, as DuckDB casts both
     * to a common type: each side read as its held longs ({@link KeyType#scaled}), the coarser one multiplied up
     * ({@link KeyScale}); null when they do not pair so. They do when both are numbers held as longs (a DECIMAL of
     * at most 18 digits or stored as an integer, or an integer that is not unsigned 64-bit, of scale 0) whose common
     * DECIMAL, the most integer digits beside the largest scale, has at most 18 digits (so that every value of both
     * fits); or both TIMESTAMPs of the same UTC adjustment, or both TIMEs not adjusted to UTC (DuckDB reads one
     * adjusted as TIMETZ, not checked here against another unit's), in the finer unit; or a DATE and a TIMESTAMP
     * not adjusted to UTC (which instant a date's midnight is would depend on a time zone), the date as its midnight.
     */
    private static KeyTypeInference.PairType inCommonUnit(PrimitiveType a, PrimitiveType b) {
        Unit ua = Unit.of(a);
        Unit ub = Unit.of(b);
        if (ua == null || ub == null || !ua.kind.equals(ub.kind)) {
            return null;
        }
        int exponent = Math.max(ua.exponent, ub.exponent);
        String common;
        if (ua.kind.equals(Unit.NUMBER)) {
            int precision = Math.max(ua.integerDigits, ub.integerDigits) + exponent;
            if (precision > ParquetDecimal.LONG_DIGITS) {
                return null;
            }
            common = "DECIMAL(" + precision + "," + exponent + ")";
        } else {
            String kind = ua.kind.equals(Unit.TIME) ? "TIME" : "TIMESTAMP";
            common = kind + " in " + TimeUnit.values()[exponent / 3 - 1];
        }
        return new KeyTypeInference.PairType(KeyType.scaled(a, ua.scaleTo(exponent, common)),
                KeyType.scaled(b, ub.scaleTo(exponent, common)));
    }

    /**
     * What a key's held longs count, for {@link #inCommonUnit}: {@code multiplier} × 10^-{@code exponent} of its
     * kind's unit (a number's 1, a TIMESTAMP's or TIME's second), with at most {@code integerDigits} digits before
     * the point (numbers) and {@code infinity} its infinite value (0: none).
     */
    private record Unit(String kind, int exponent, long multiplier, int integerDigits, long infinity) {
        static final String NUMBER = "number";
        static final String TIMESTAMP = "timestamp";
        static final String TIMESTAMP_UTC = "timestamp adjusted to UTC";
        static final String TIME = "time";
        private static final long SECONDS_PER_DAY = 86_400;

        /** {@code type}'s unit, or null when it pairs with no other unit. */
        static Unit of(PrimitiveType type) {
            LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
            if (logical instanceof DecimalLogicalTypeAnnotation decimal) {
                int scale = decimal.getScale();
                return ParquetDecimal.heldAsLong(type)
                        ? new Unit(NUMBER, scale, 1, decimal.getPrecision() - scale, 0) : null;
            }
            if (logical instanceof TimestampLogicalTypeAnnotation timestamp) {
                return new Unit(timestamp.isAdjustedToUTC() ? TIMESTAMP_UTC : TIMESTAMP, digits(timestamp.getUnit()), 1,
                        0, Long.MAX_VALUE);
            }
            if (logical instanceof TimeLogicalTypeAnnotation time) {
                return time.isAdjustedToUTC() ? null : new Unit(TIME, digits(time.getUnit()), 1, 0, 0);
            }
            if (logical instanceof DateLogicalTypeAnnotation) {
                return new Unit(TIMESTAMP, 0, SECONDS_PER_DAY, 0, Integer.MAX_VALUE);
            }
            int bits = integerBits(type);
            // the digits of the largest magnitude, 2^(bits - 1): "-128" less its sign for 8 bits
            return bits == 0 ? null : new Unit(NUMBER, 0, 1, Long.toString(-(1L << (bits - 1))).length() - 1, 0);
        }

        /** The width of {@code type}'s integers (an unsigned INT(n) one more than n), or 0 when not an integer. */
        private static int integerBits(PrimitiveType type) {
            PrimitiveTypeName physical = type.getPrimitiveTypeName();
            if (physical != PrimitiveTypeName.INT32 && physical != PrimitiveTypeName.INT64) {
                return 0;
            }
            LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
            if (logical == null) {
                return physical == PrimitiveTypeName.INT32 ? 32 : 64;
            }
            if (logical instanceof IntLogicalTypeAnnotation integer) {
                int bits = integer.getBitWidth() + (integer.isSigned() ? 0 : 1);
                return bits > 64 ? 0 : bits;
            }
            return 0;
        }

        private static int digits(TimeUnit unit) {
            return switch (unit) {
                case MILLIS -> 3;
                case MICROS -> 6;
                case NANOS -> 9;
            };
        }

        /** How this unit's longs become the common unit's, 10^-{@code exponent}; null when they already are. */
        KeyScale scaleTo(int commonExponent, String common) {
            long factor = multiplier;
            for (int e = exponent; e < commonExponent; e++) {
                factor *= 10;
            }
            return factor == 1 ? null : new KeyScale(factor, infinity, common);
        }
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
        if (la instanceof TimestampLogicalTypeAnnotation && lb instanceof TimestampLogicalTypeAnnotation) {
            // of one UTC adjustment they pair in the finer unit (inCommonUnit)
            return prefix + "write one file again with its key as the other's TIMESTAMP type, with or without"
                    + " UTC adjustment (which instant a local timestamp is depends on its time zone)";
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
