package dev.spilljoin.it;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The README's "Key types" rules for CSV keys, written again from the README (not from the CLI's code) as the fuzz
 * test's model: which type a key column's values infer, how two inferred types pair (or that they are a usage
 * error), the text a key value is written back as, and the value DuckDB joins it on.
 */
final class FuzzKeyTyping {
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");
    private static final Pattern DOUBLE = Pattern.compile(
            "NaN|-?Infinity|-?((0|[1-9][0-9]*)(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");
    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final double EXACT_INTEGRAL_BOUND = 1e15;
    /** The rows a key column's type is inferred from. */
    static final int SAMPLE_ROWS = 10_000;

    /** A type inferred from a column's sample. */
    enum Inferred { BIGINT, WIDE_INTEGER, DOUBLE, BOOLEAN, VARCHAR }

    /** How a key pair is compared; {@link #INTEGER_DOUBLE} compares an integer side with a DOUBLE side exactly. */
    enum Pairing {
        BIGINT("HUGEINT"), WIDE_INTEGER("HUGEINT"), DOUBLE("DOUBLE"), INTEGER_DOUBLE("VARCHAR"),
        BOOLEAN("BOOLEAN"), VARCHAR("VARCHAR");

        /** The DuckDB type the join casts both sides' join values to. */
        final String sqlType;

        Pairing(String sqlType) {
            this.sqlType = sqlType;
        }
    }

    private FuzzKeyTyping() {
    }

    /** The type inferred from a column's first rows (null: NULL or empty only, no type of its own). */
    static Inferred infer(List<String> column) {
        List<String> values = column.subList(0, Math.min(column.size(), SAMPLE_ROWS));
        if (values.stream().allMatch(v -> v == null || v.isEmpty())) {
            return null;
        }
        for (Inferred type : Inferred.values()) {
            if (values.stream().allMatch(v -> fits(type, v))) {
                return type;
            }
        }
        throw new AssertionError("VARCHAR fits every value");
    }

    /** True when {@code value} reads as {@code type} (NULL and empty read as NULL; null is no type: text). */
    static boolean fits(Inferred type, String value) {
        if (type == null || value == null || value.isEmpty()) {
            return true;
        }
        return switch (type) {
            case BIGINT -> INTEGER.matcher(value).matches() && inLongRange(new BigInteger(value));
            case WIDE_INTEGER -> INTEGER.matcher(value).matches();
            case DOUBLE -> DOUBLE.matcher(value).matches();
            case BOOLEAN -> value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false");
            case VARCHAR -> true;
        };
    }

    /** How two inferred types compare, or null when the README makes the pair a usage error. */
    static Pairing pair(Inferred left, Inferred right) {
        if (left == null || right == null || left == right) {
            Inferred type = left == null ? right : left;
            return type == null ? Pairing.VARCHAR : Pairing.valueOf(type.name());
        }
        boolean leftInteger = left == Inferred.BIGINT || left == Inferred.WIDE_INTEGER;
        boolean rightInteger = right == Inferred.BIGINT || right == Inferred.WIDE_INTEGER;
        if (leftInteger && rightInteger) {
            return Pairing.WIDE_INTEGER;
        }
        if (left == Inferred.BIGINT && right == Inferred.DOUBLE
                || left == Inferred.DOUBLE && right == Inferred.BIGINT) {
            return Pairing.INTEGER_DOUBLE;
        }
        return null;
    }

    /**
     * The type a column of type {@code own} (null: none of its own) is read as in {@code pairing}: its own for an
     * integer with a DOUBLE, else the pairing's; null when the pairing is a usage error.
     */
    static Inferred readAs(Pairing pairing, Inferred own) {
        return pairing == null ? null : pairing == Pairing.INTEGER_DOUBLE ? own : Inferred.valueOf(pairing.name());
    }

    /** True when {@code value} is a key that joins nothing: NULL, or empty where the pairing is not VARCHAR. */
    static boolean isNull(Pairing pairing, String value) {
        return value == null || value.isEmpty() && pairing != Pairing.VARCHAR;
    }

    /** The text a non-NULL key value is written back as ("Keys are written back as follows"). */
    static String written(Pairing pairing, String value) {
        return switch (pairing) {
            case BIGINT, WIDE_INTEGER -> value.equals("-0") ? "0" : value;
            case DOUBLE -> doubleText(Double.parseDouble(value));
            case INTEGER_DOUBLE -> {
                BigInteger integral = integralInLongRange(value);
                yield integral == null ? value : integral.toString();
            }
            case BOOLEAN -> value.toLowerCase(Locale.ROOT);
            case VARCHAR -> value;
        };
    }

    /**
     * The text DuckDB casts to {@link Pairing#sqlType} and joins on. For an integer with a DOUBLE, compared exactly
     * here where DuckDB would compare doubles (the README's deliberate difference): the integer's digits, or a text
     * that equals no integer.
     */
    static String joinValue(Pairing pairing, String value) {
        if (pairing != Pairing.INTEGER_DOUBLE) {
            return value;
        }
        BigInteger integral = integralInLongRange(value);
        return integral == null ? "not an integer: " + value : integral.toString();
    }

    /** How spilljoin writes a DOUBLE key paired with a DOUBLE key. */
    static String doubleText(double d) {
        if (Double.isFinite(d) && d == Math.rint(d) && Math.abs(d) < EXACT_INTEGRAL_BOUND) {
            return (d == 0 && 1 / d < 0 ? "-0" : Long.toString((long) d)) + ".0";
        }
        return Double.isNaN(d) ? "NaN" : Double.toString(d);
    }

    private static BigInteger integralInLongRange(String value) {
        if (value.contains("N") || value.contains("I")) {
            return null;
        }
        BigDecimal decimal = new BigDecimal(value.endsWith(".") ? value + "0" : value);
        try {
            BigInteger integral = decimal.toBigIntegerExact();
            return inLongRange(integral) ? integral : null;
        } catch (ArithmeticException fraction) {
            return null;
        }
    }

    private static boolean inLongRange(BigInteger value) {
        return value.compareTo(LONG_MIN) >= 0 && value.compareTo(LONG_MAX) <= 0;
    }
}
