package dev.spilljoin.cli;

/**
 * Parses key values straight from field bytes, without a String in the common case.
 *
 * <p>Grammar (the type-inference rules of the spilljoin command):
 * <ul>
 *   <li>Integer: optional {@code -}, then {@code 0} or a digit 1-9 followed by digits ({@code 007} and {@code +1}
 *       are not integers), so that an integer's digits are its canonical text, {@code -0} apart.</li>
 *   <li>BIGINT: an integer within the range of a signed 64-bit integer.</li>
 *   <li>DOUBLE: {@code NaN}, {@code Infinity}, {@code -Infinity}, or optional {@code -}, an integer part with
 *       the same no-leading-zero rule (or none), an optional {@code .} and fraction digits, an optional exponent
 *       {@code e}/{@code E} with optional sign and digits; at least one mantissa digit. The no-leading-zero rule
 *       applies here too so that codes such as {@code 007} stay text instead of becoming 7.0.</li>
 *   <li>BOOLEAN: {@code true} or {@code false}, any case.</li>
 * </ul>
 *
 * <p>DOUBLE values with at most 15 significant digits and a decimal exponent within ±22 are computed exactly
 * (one correctly rounded multiply or divide by an exact power of ten: Clinger's fast path); other values fall
 * back to {@link Double#parseDouble} over a reused char buffer, so every result is correctly rounded.
 *
 * <p>An instance holds the last parsed value in {@link #longValue}/{@link #doubleValue}/{@link #booleanValue}
 * and is reused for every field; it is not thread-safe.
 */
final class ValueParser {
    private static final double[] POWERS_OF_TEN = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    };
    private static final long MAX_EXACT_MANTISSA = 1L << 53;
    /** The longest text {@link #integralDigits} writes: a sign and 19 digits. */
    static final int MAX_INTEGRAL_DIGITS = 20;
    /** Exponents are capped here while parsed: far beyond any field length, far within a long. */
    private static final long EXPONENT_CAP = 1L << 40;

    long longValue;
    double doubleValue;
    boolean booleanValue;
    private char[] chars = new char[64];

    /** Parses a BIGINT into {@link #longValue}; false (value unchanged) when the bytes are not one. */
    boolean parseBigint(byte[] b, int from, int to) {
        int i = from;
        boolean negative = false;
        if (i < to && b[i] == '-') {
            negative = true;
            i++;
        }
        int digits = to - i;
        if (digits <= 0 || digits > 19 || (b[i] == '0' && digits > 1)) {
            return false;
        }
        if (digits < 19) {
            // Up to 18 digits cannot overflow: one multiply-add per digit, one range check per digit.
            long result = 0;
            for (; i < to; i++) {
                int d = b[i] - '0';
                if (d < 0 || d > 9) {
                    return false;
                }
                result = result * 10 + d;
            }
            longValue = negative ? -result : result;
            return true;
        }
        // 19 digits: accumulate negatively with overflow checks, so that Long.MIN_VALUE parses too.
        long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        long multiplyMin = limit / 10;
        long result = 0;
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9 || result < multiplyMin) {
                return false;
            }
            result *= 10;
            if (result < limit + d) {
                return false;
            }
            result -= d;
        }
        longValue = negative ? result : -result;
        return true;
    }

    /** True when the bytes are an integer of any number of digits (the grammar above). */
    boolean parseIntegerText(byte[] b, int from, int to) {
        int i = from;
        if (i < to && b[i] == '-') {
            i++;
        }
        if (i == to || (b[i] == '0' && to - i > 1)) {
            return false;
        }
        for (; i < to; i++) {
            if (!isDigit(b[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * For bytes that follow the DOUBLE grammar ({@link #parseDouble} returned true): when the decimal they write is
     * an integer within the BIGINT range, writes its canonical digits into {@code out} (a {@code -} first when
     * negative, none for zero; at least {@link #MAX_INTEGRAL_DIGITS} bytes) and returns their length; else -1 (a
     * fraction, {@code NaN}, an infinity, or beyond BIGINT). Exact: it works on the decimal digits, never on a
     * double, so {@code 9007199254740993.0} gives {@code 9007199254740993}.
     */
    int integralDigits(byte[] b, int from, int to, byte[] out) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        if (b[i] == 'N' || b[i] == 'I') {
            return -1;
        }
        int mantissaEnd = i;
        while (mantissaEnd < to && b[mantissaEnd] != 'e' && b[mantissaEnd] != 'E') {
            mantissaEnd++;
        }
        int point = mantissaEnd;
        int first = -1;
        int last = -1;
        for (int p = i; p < mantissaEnd; p++) {
            if (b[p] == '.') {
                point = p;
            } else if (b[p] != '0') {
                first = first < 0 ? p : first;
                last = p;
            }
        }
        if (first < 0) {
            out[0] = '0';
            return 1;
        }
        // The value is the digits first..last (the point skipped) times 10^trailingZeros.
        long trailingZeros = (last < point ? point - last - 1L : point - (long) last) + exponent(b, mantissaEnd, to);
        int significant = last - first + 1 - (first < point && point < last ? 1 : 0);
        if (trailingZeros < 0 || significant + trailingZeros > 19) {
            return -1;
        }
        int n = 0;
        if (negative) {
            out[n++] = '-';
        }
        for (int p = first; p <= last; p++) {
            if (b[p] != '.') {
                out[n++] = b[p];
            }
        }
        for (long z = 0; z < trailingZeros; z++) {
            out[n++] = '0';
        }
        long before = longValue;
        boolean fits = parseBigint(out, 0, n);
        longValue = before;
        return fits ? n : -1;
    }

    /** The exponent of a DOUBLE-grammar value whose exponent part ({@code e…}, or nothing) starts at {@code from}. */
    private static long exponent(byte[] b, int from, int to) {
        if (from == to) {
            return 0;
        }
        int i = from + 1;
        boolean negative = b[i] == '-';
        if (b[i] == '-' || b[i] == '+') {
            i++;
        }
        long exponent = 0;
        for (; i < to; i++) {
            exponent = Math.min(exponent * 10 + (b[i] - '0'), EXPONENT_CAP);
        }
        return negative ? -exponent : exponent;
    }

    /** Parses an INTEGER (a BIGINT within 32 bits) into {@link #longValue}. */
    boolean parseInteger(byte[] b, int from, int to) {
        long before = longValue;
        if (parseBigint(b, from, to) && longValue >= Integer.MIN_VALUE && longValue <= Integer.MAX_VALUE) {
            return true;
        }
        longValue = before;
        return false;
    }

    /** Parses {@code true}/{@code false} in any case into {@link #booleanValue}. */
    boolean parseBoolean(byte[] b, int from, int to) {
        int length = to - from;
        if (length == 4 && lower(b[from]) == 't' && lower(b[from + 1]) == 'r' && lower(b[from + 2]) == 'u'
                && lower(b[from + 3]) == 'e') {
            booleanValue = true;
            return true;
        }
        if (length == 5 && lower(b[from]) == 'f' && lower(b[from + 1]) == 'a' && lower(b[from + 2]) == 'l'
                && lower(b[from + 3]) == 's' && lower(b[from + 4]) == 'e') {
            booleanValue = false;
            return true;
        }
        return false;
    }

    /** Parses a DOUBLE into {@link #doubleValue}; false when the bytes do not follow the grammar above. */
    boolean parseDouble(byte[] b, int from, int to) {
        if (matches(b, from, to, "NaN")) {
            doubleValue = Double.NaN;
            return true;
        }
        if (matches(b, from, to, "Infinity")) {
            doubleValue = Double.POSITIVE_INFINITY;
            return true;
        }
        if (matches(b, from, to, "-Infinity")) {
            doubleValue = Double.NEGATIVE_INFINITY;
            return true;
        }
        int i = from;
        boolean negative = i < to && b[i] == '-';
        if (negative) {
            i++;
        }
        long mantissa = 0;
        int significant = 0;     // significant digits seen (leading zeros of the value excluded)
        int droppedDigits = 0;   // integer digits beyond the 19 the long mantissa holds
        int scale = 0;           // fraction digits taken into the mantissa
        int integerStart = i;
        while (i < to && isDigit(b[i])) {
            if (significant < 19) {
                mantissa = mantissa * 10 + (b[i] - '0');
                if (mantissa != 0) {
                    significant++;
                }
            } else {
                droppedDigits++;
            }
            i++;
        }
        int integerDigits = i - integerStart;
        if (integerDigits > 1 && b[integerStart] == '0') {
            return false;
        }
        int fractionDigits = 0;
        if (i < to && b[i] == '.') {
            i++;
            int fractionStart = i;
            while (i < to && isDigit(b[i])) {
                if (significant < 19) {
                    mantissa = mantissa * 10 + (b[i] - '0');
                    scale++;
                    if (mantissa != 0) {
                        significant++;
                    }
                }
                i++;
            }
            fractionDigits = i - fractionStart;
        }
        if (integerDigits + fractionDigits == 0) {
            return false;
        }
        int exponent = 0;
        if (i < to && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            boolean negativeExponent = false;
            if (i < to && (b[i] == '+' || b[i] == '-')) {
                negativeExponent = b[i] == '-';
                i++;
            }
            int exponentStart = i;
            while (i < to && isDigit(b[i])) {
                if (exponent < 100_000) {
                    exponent = exponent * 10 + (b[i] - '0');
                }
                i++;
            }
            if (i == exponentStart) {
                return false;
            }
            if (negativeExponent) {
                exponent = -exponent;
            }
        }
        if (i != to) {
            return false;
        }
        boolean exact = significant <= 15 && droppedDigits == 0 && mantissa < MAX_EXACT_MANTISSA;
        int decimalExponent = exponent - scale;
        if (exact && mantissa == 0) {
            doubleValue = negative ? -0.0 : 0.0;
        } else if (exact && decimalExponent >= -22 && decimalExponent <= 22) {
            double value = decimalExponent < 0
                    ? mantissa / POWERS_OF_TEN[-decimalExponent]
                    : mantissa * POWERS_OF_TEN[decimalExponent];
            doubleValue = negative ? -value : value;
        } else {
            doubleValue = parseSlow(b, from, to);
        }
        return true;
    }

    private double parseSlow(byte[] b, int from, int to) {
        int length = to - from;
        if (chars.length < length) {
            chars = new char[Math.max(length, chars.length * 2)];
        }
        for (int i = 0; i < length; i++) {
            chars[i] = (char) b[from + i];
        }
        return Double.parseDouble(new String(chars, 0, length));
    }

    private static boolean matches(byte[] b, int from, int to, String word) {
        if (to - from != word.length()) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if (b[from + i] != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static int lower(byte c) {
        return c | 0x20;
    }
}
