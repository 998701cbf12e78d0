package dev.spilljoin.it;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A column type of the Parquet fuzz test ({@link ParquetDifferentialFuzzTest}), among those the README lists as
 * read from Parquet: how DuckDB computes a value of it from a row's index (a BIGINT SQL expression; equal indexes
 * give equal values, so that the sides' keys meet), its extreme values, whether a CSV key pairs with it (README "Key
 * types": read as its type), how such a CSV key may be spelled, and the text spilljoin's CSV output holds for the
 * text DuckDB's {@code COPY … TO csv} writes (README "CSV output of Parquet columns").
 */
record ParquetFuzzType(Kind kind, int precision, int scale) {
    /** The kinds; DECIMAL takes a precision and scale. */
    enum Kind {
        TINYINT, SMALLINT, INTEGER, BIGINT, UTINYINT, USMALLINT, UINTEGER, UBIGINT, FLOAT, DOUBLE, BOOLEAN, VARCHAR,
        BLOB, DATE, TIME, TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS, TIMESTAMPTZ, DECIMAL, UUID
    }

    /** Texts of DuckDB's {@code COPY … TO csv} of a BLOB: a byte as {@code \xHH}. */
    private static final Pattern BLOB_ESCAPE = Pattern.compile("\\\\x([0-9A-F]{2})");

    /** A random type: DECIMAL of a random precision (to 38) and scale. */
    static ParquetFuzzType draw(SplittableRandom random) {
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        if (kind != Kind.DECIMAL) {
            return new ParquetFuzzType(kind, 0, 0);
        }
        int precision = random.nextInt(4) == 0 ? 19 + random.nextInt(20) : 1 + random.nextInt(18);
        int scale = random.nextInt(3) == 0 ? 0 : random.nextInt(4) == 0 ? precision : random.nextInt(precision + 1);
        return new ParquetFuzzType(kind, precision, scale);
    }

    /** The DuckDB type. */
    String sql() {
        return kind == Kind.DECIMAL ? "DECIMAL(" + precision + "," + scale + ")" : kind.name();
    }

    /** True when a key of this type has few distinct values (the output of a join on it grows fast). */
    boolean fewValues() {
        return kind == Kind.BOOLEAN || kind == Kind.TINYINT || kind == Kind.UTINYINT
                || kind == Kind.DECIMAL && precision <= 3;
    }

    /**
     * True when a CSV key pairs with this Parquet key (README "Key types"): a plain integer (the CSV side infers
     * BIGINT), or DECIMAL, DATE, TIME, TIMESTAMP and UUID, whose partner is read as their type. (DOUBLE, BOOLEAN and
     * text are left to the CSV fuzz test; an unsigned 64-bit key is refused.)
     */
    boolean pairsWithCsv() {
        return kind != Kind.UBIGINT && kind != Kind.FLOAT && kind != Kind.DOUBLE && kind != Kind.BOOLEAN
                && kind != Kind.VARCHAR && kind != Kind.BLOB;
    }

    /**
     * The DuckDB type of a CSV key paired with a Parquet key of this type as spilljoin writes it: a BIGINT beside a
     * plain integer, else this type as DuckDB reads it back from Parquet (TIMESTAMP in MILLIS as TIMESTAMP).
     */
    String csvPartnerSql() {
        return kind.ordinal() <= Kind.UINTEGER.ordinal() ? "BIGINT" : kind == Kind.TIMESTAMP_MS ? "TIMESTAMP" : sql();
    }

    /**
     * The value of index {@code n} (a BIGINT expression, |n| below 10^8); {@code csvSafe} keeps dates and times
     * within the years 1 to 9999 that a CSV key's grammar writes.
     */
    String value(String n, boolean csvSafe) {
        // within ±78 years of 1970, or ±7,600 years
        String micros = "(" + n + " % 2000000) * 1234567891" + (csvSafe ? "" : " * (1 + abs(" + n + ") % 97)");
        return switch (kind) {
            case TINYINT -> "(" + n + " % 127)::TINYINT";
            case SMALLINT -> "(" + n + " % 32767)::SMALLINT";
            case INTEGER -> "(" + n + " * 7919 % 2147483647)::INTEGER";
            case BIGINT -> "(" + n + " * 1000000007)";
            case UTINYINT -> "(abs(" + n + ") % 256)::UTINYINT";
            case USMALLINT -> "(abs(" + n + ") % 65536)::USMALLINT";
            case UINTEGER -> "(abs(" + n + ") * 7919 % 4294967296)::UINTEGER";
            case UBIGINT -> "(abs(" + n + ")::UBIGINT * 1000000007)";
            case FLOAT -> "(" + n + " / 4)::FLOAT";
            case DOUBLE -> "(" + n + " / 7)::DOUBLE";
            case BOOLEAN -> "(" + n + " % 2 = 0)";
            case VARCHAR -> text(n);
            case BLOB -> "CASE WHEN " + n + " % 3 = 0 THEN unhex(lpad(to_hex((abs(" + n + ") * 2654435761)"
                    + " % 4294967296), 8, '0')) ELSE encode(" + text(n) + ") END";
            case DATE -> "(DATE '2000-01-01' + (" + n + " * 37 % " + (csvSafe ? 700_000 : 2_000_000) + ")::INTEGER)";
            case TIME -> "(TIME '00:00:00' + to_microseconds(abs(" + n + ") * 1234567 % 86400000000))";
            case TIMESTAMP_MS -> "make_timestamp(" + micros + ")::TIMESTAMP_MS";
            case TIMESTAMP -> "make_timestamp(" + micros + ")";
            case TIMESTAMP_NS -> "make_timestamp_ns((" + n + " % 7000000) * 1234567891234 + " + n + " % 1000)";
            case TIMESTAMPTZ -> "make_timestamp(" + micros + ")::TIMESTAMPTZ";
            case DECIMAL -> decimal("(" + n + "::HUGEINT * 1000000007 * 1000000009 % "
                    + BigInteger.TEN.pow(precision) + ")");
            case UUID -> "md5(" + n + "::VARCHAR)::UUID";
        };
    }

    /** Text of index {@code n}: empty, awkward pieces (unicode, quotes, line ends, delimiters), or long. */
    private static String text(String n) {
        String pieces = Arrays.stream(FuzzInput.PIECES).map(p -> "'" + p.replace("'", "''") + "'")
                .collect(Collectors.joining(", ", "[", "]"));
        String piece = "list_element(" + pieces + ", (abs(" + n + ") % " + FuzzInput.PIECES.length + " + 1)::INTEGER)";
        return "CASE WHEN " + n + " % 23 = 0 THEN '' WHEN " + n + " % 29 = 1 THEN repeat('ü long ', 20 + abs(" + n
                + ") % 150) || " + n + " ELSE " + piece + " || " + n + "::VARCHAR || "
                + piece.replace("abs(", "abs(7 * ") + " END";
    }

    /** The DECIMAL of the unscaled value {@code unscaled} (a HUGEINT expression below 10^precision). */
    private String decimal(String unscaled) {
        if (scale == 0) {
            return "(" + unscaled + ")::" + sql();
        }
        String unit = BigInteger.TEN.pow(scale) + "::HUGEINT";
        return "((CASE WHEN " + unscaled + " < 0 THEN '-' ELSE '' END) || (abs(" + unscaled + ") // " + unit
                + ")::VARCHAR || '.' || lpad((abs(" + unscaled + ") % " + unit + ")::VARCHAR, " + scale + ", '0'))::"
                + sql();
    }

    /** SQL literals of the type's extreme values ({@code csvSafe}: those a CSV key can spell). */
    String[] extremes(boolean csvSafe) {
        String[] all = switch (kind) {
            case TINYINT -> new String[] {"-128", "127", "0", "-1"};
            case SMALLINT -> new String[] {"-32768", "32767", "0", "-1"};
            case INTEGER -> new String[] {"-2147483648", "2147483647", "0", "-1"};
            case BIGINT -> new String[] {"-9223372036854775808", "9223372036854775807", "0", "-1"};
            case UTINYINT -> new String[] {"0", "255"};
            case USMALLINT -> new String[] {"0", "65535"};
            case UINTEGER -> new String[] {"0", "4294967295", "2147483648"};
            case UBIGINT -> new String[] {"0", "18446744073709551615", "9223372036854775808"};
            case FLOAT -> new String[] {"'nan'", "'inf'", "'-inf'", "'-0.0'", "0.0", "3.4028235e38", "1.4e-45"};
            case DOUBLE -> new String[] {"'nan'", "'inf'", "'-inf'", "'-0.0'", "0.0", "1.7976931348623157e308",
                "4.9e-324", "1e15", "123456789012345.6"};
            case BOOLEAN -> new String[] {"true", "false"};
            case VARCHAR, BLOB -> new String[] {"''", "'" + "x".repeat(3000) + "'", "'日本\uD83D\uDE00'"};
            case DATE -> csvSafe ? new String[] {"'0001-01-01'", "'9999-12-31'", "'1969-12-31'", "'2000-02-29'"}
                    : new String[] {"'infinity'", "'-infinity'", "'0001-01-01'", "'0001-12-31 (BC)'", "'9999-12-31'",
                        "'1969-12-31'", "'5881580-07-10'"};
            case TIME -> new String[] {"'00:00:00'", "'23:59:59.999999'", "'24:00:00'"};
            case TIMESTAMP_MS, TIMESTAMP, TIMESTAMPTZ -> timestamps(csvSafe, kind == Kind.TIMESTAMP_MS ? 3 : 6);
            case TIMESTAMP_NS -> csvSafe ? new String[] {"'1900-01-01 00:00:00.123456789'",
                "'1969-12-31 23:59:59.999999999'", "'2200-12-31 23:59:59'"}
                    : new String[] {"'infinity'", "'-infinity'", "'1900-01-01 00:00:00.123456789'",
                        "'1969-12-31 23:59:59.999999999'", "'2200-12-31 23:59:59'"};
            case DECIMAL -> new String[] {"'" + decimalText(BigInteger.TEN.pow(precision).subtract(BigInteger.ONE))
                + "'", "'-" + decimalText(BigInteger.TEN.pow(precision).subtract(BigInteger.ONE)) + "'", "0",
                "'" + decimalText(BigInteger.ONE) + "'", "'-" + decimalText(BigInteger.ONE) + "'"};
            case UUID -> new String[] {"'00000000-0000-0000-0000-000000000000'",
                "'ffffffff-ffff-ffff-ffff-ffffffffffff'"};
        };
        return Arrays.stream(all).map(v -> kind == Kind.BLOB ? "encode(" + v + ")" : "CAST(" + v + " AS " + sql() + ")")
                .toArray(String[]::new);
    }

    private static String[] timestamps(boolean csvSafe, int digits) {
        String fraction = "." + "9".repeat(digits);
        String[] safe = {"'0001-01-01 00:00:00'", "'9999-12-31 23:59:59" + fraction + "'",
            "'1969-12-31 23:59:59" + fraction + "'", "'2024-02-29 12:00:00'"};
        if (csvSafe) {
            return safe;
        }
        String[] all = Arrays.copyOf(safe, safe.length + 3);
        all[safe.length] = "'infinity'";
        all[safe.length + 1] = "'-infinity'";
        all[safe.length + 2] = "'0044-03-15 (BC) 12:00:00'";
        return all;
    }

    private String decimalText(BigInteger unscaled) {
        return new BigDecimal(unscaled, scale).toPlainString();
    }

    /**
     * A CSV spelling of the value {@code v} of this type (one that pairs with a CSV key), picked by the hash
     * {@code h} among those the README's grammar admits: a DECIMAL with a sign, trailing zeros or none; a TIMESTAMP
     * with {@code T}, a date alone at midnight, {@code Z} or {@code +00:00} when adjusted to UTC; a UUID in capitals,
     * without dashes or in braces; a plain integer as DuckDB writes it.
     */
    String csvSpelling(String v, String h) {
        String text = v + "::VARCHAR";
        return switch (kind) {
            case DECIMAL -> {
                String lead = "regexp_replace(" + text + ", '^(-?)\\.', '\\10.')";
                yield "CASE " + h + " % 5 WHEN 0 THEN " + lead + " WHEN 1 THEN (CASE WHEN " + v
                        + " >= 0 THEN '+' ELSE '' END) || " + lead + " WHEN 2 THEN " + lead + " || (CASE WHEN "
                        + scale + " = 0 THEN '.0' ELSE '00' END) WHEN 3 THEN (CASE WHEN " + scale + " = 0 THEN "
                        + lead + " ELSE rtrim(rtrim(" + lead + ", '0'), '.') END) ELSE " + lead + " END";
            }
            case TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS -> "CASE " + h + " % 3 WHEN 0 THEN replace(" + text
                    + ", ' ', 'T') WHEN 1 THEN regexp_replace(" + text + ", ' 00:00:00$', '') ELSE " + text + " END";
            case TIMESTAMPTZ -> "CASE " + h + " % 4 WHEN 0 THEN replace(replace(" + text + ", '+00', 'Z'), ' ', 'T')"
                    + " WHEN 1 THEN replace(" + text + ", '+00', '+00:00') WHEN 2 THEN replace(" + text
                    + ", '+00', '') ELSE " + text + " END";
            case UUID -> "CASE " + h + " % 4 WHEN 0 THEN upper(" + text + ") WHEN 1 THEN replace(" + text
                    + ", '-', '') WHEN 2 THEN '{' || " + text + " || '}' ELSE " + text + " END";
            default -> text;
        };
    }

    /**
     * The text spilljoin's CSV output holds for a non-NULL value DuckDB's CSV writes as {@code duck} (read as
     * ISO-8859-1, a character a byte): FLOAT and DOUBLE as spilljoin writes a double (a FLOAT as the double it is
     * held as), a BLOB as its raw bytes, a DECIMAL(p,p) with its integer digit (a documented difference); every other
     * type as DuckDB writes it.
     */
    String csvText(String duck) {
        return switch (kind) {
            case FLOAT, DOUBLE -> FuzzKeyTyping.doubleText(duckDouble(duck));
            case BLOB -> BLOB_ESCAPE.matcher(duck).replaceAll(m -> Matcher.quoteReplacement(
                    String.valueOf((char) Integer.parseInt(m.group(1), 16))));
            case DECIMAL -> scale == precision ? duck.replaceFirst("^(-?)\\.", "$10.") : duck;
            default -> duck;
        };
    }

    /** The double of a FLOAT's or DOUBLE's text as DuckDB writes it (a FLOAT's shortest form widened). */
    private double duckDouble(String duck) {
        return switch (duck) {
            case "nan", "-nan" -> Double.NaN;
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            default -> kind == Kind.FLOAT ? (double) Float.parseFloat(duck) : Double.parseDouble(duck);
        };
    }

    @Override
    public String toString() {
        return sql();
    }
}
