package dev.spilljoin.cli;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.UUIDLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Parses a CSV key field as the value a Parquet column of one logical type stores, so that a CSV key pairs exactly
 * with a Parquet DECIMAL, DATE, TIME, TIMESTAMP or UUID key ({@link LogicalKeyPairing}). The grammars, all exact:
 *
 * <ul>
 *   <li>DECIMAL(p, s) held as its unscaled long ({@link ParquetDecimal#heldAsLong}): optional {@code +} or
 *       {@code -}, digits, optionally {@code .} and digits (at least one digit in all; no exponent), of at most s
 *       fraction digits other than trailing zeros and at most p digits in all: the unscaled value ({@code 0.05} and
 *       {@code 0.050} are 5 at scale 2, {@code 5} is 500);</li>
 *   <li>DECIMAL(p, s) of up to 38 digits in bytes: the same, its unscaled value's minimal two's complement (as
 *       {@link ParquetDecimal} holds it);</li>
 *   <li>DATE: {@code yyyy-mm-dd} (years 0001 to 9999, a day the month has): days since 1970-01-01;</li>
 *   <li>TIMESTAMP(unit): a date, optionally followed by a space or {@code T} and a time of day (24:00:00 the next
 *       day's midnight); adjusted to UTC, optionally followed by {@code Z}, {@code +00} or {@code +00:00}: the
 *       units since 1970-01-01 00:00 (a date alone is its midnight, as DuckDB casts a DATE);</li>
 *   <li>TIME(unit): {@code hh:mm:ss} (00:00:00 to 23:59:59, and 24:00:00), optionally {@code .} and up to nine
 *       fraction digits, of which those beyond the unit's (3, 6, 9) must be zeros; adjusted to UTC, optionally with
 *       the zone above: units since midnight;</li>
 *   <li>UUID: 32 hex digits in either case, optionally with {@code -} after the 8th, 12th, 16th and 20th and
 *       optionally in {@code {}} (as DuckDB casts text to UUID): its 16 bytes, big-endian.</li>
 * </ul>
 * A field that does not follow its grammar (or stores a value outside the type's range) is refused by the caller
 * as a value that does not fit, naming {@link #expected()}. No object per value: a parse leaves its result in
 * {@link #value} or {@link #bytes}.
 */
final class LogicalValueParser {
    private static final long SECONDS_PER_DAY = 86_400;

    private enum Kind { DECIMAL, WIDE_DECIMAL, DATE, TIMESTAMP, TIME, UUID }

    /** The most digits of a DECIMAL in bytes that text is read as: its unscaled value within 128 bits. */
    static final int WIDE_DIGITS = 38;

    private final Kind kind;
    /** DECIMAL: scale and precision. */
    private final int scale;
    private final int precision;
    /** TIMESTAMP, TIME: units per second and the unit's fraction digits; whether a zero UTC offset may follow. */
    private final long unitsPerSecond;
    private final int fractionDigits;
    private final boolean utc;
    private final String expected;
    /** The last parse's value: unscaled decimal, days, or units; a wide decimal's low 64 bits while parsing. */
    long value;
    /** A wide decimal's high 64 bits while parsing. */
    private long high;
    /** The last UUID parse's 16 bytes, or a wide decimal's minimal two's complement: {@link #length} of them. */
    final byte[] bytes = new byte[16];
    int length = 16;
    private final ByteBuffer bytesView = ByteBuffer.wrap(bytes);

    private LogicalValueParser(Kind kind, int scale, int precision, TimeUnit unit, boolean utc, String expected) {
        this.kind = kind;
        this.scale = scale;
        this.precision = precision;
        this.unitsPerSecond = unit == null ? 0 : unit == TimeUnit.MILLIS ? 1_000L
                : unit == TimeUnit.MICROS ? 1_000_000L : 1_000_000_000L;
        this.fractionDigits = unit == null ? 0 : unit == TimeUnit.MILLIS ? 3 : unit == TimeUnit.MICROS ? 6 : 9;
        this.utc = utc;
        this.expected = expected;
    }

    /** The parser of text into values of {@code type}; null when no text is read as that type. */
    static LogicalValueParser of(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        PrimitiveTypeName physical = type.getPrimitiveTypeName();
        boolean integer = physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64;
        String name = "a " + logical;
        if (logical instanceof DecimalLogicalTypeAnnotation decimal
                && (ParquetDecimal.heldAsLong(type) || decimal.getPrecision() <= WIDE_DIGITS)) {
            return new LogicalValueParser(ParquetDecimal.heldAsLong(type) ? Kind.DECIMAL : Kind.WIDE_DECIMAL,
                    decimal.getScale(), decimal.getPrecision(), null, false,
                    name + " (digits with at most " + decimal.getScale() + " after the point)");
        }
        if (logical instanceof DateLogicalTypeAnnotation) {
            return new LogicalValueParser(Kind.DATE, 0, 0, null, false, name + " (yyyy-mm-dd)");
        }
        if (logical instanceof TimestampLogicalTypeAnnotation timestamp && integer) {
            return new LogicalValueParser(Kind.TIMESTAMP, 0, 0, timestamp.getUnit(), timestamp.isAdjustedToUTC(),
                    name + " (yyyy-mm-dd[ hh:mm:ss[.fraction]]" + (timestamp.isAdjustedToUTC() ? "[+00]" : "") + ")");
        }
        if (logical instanceof TimeLogicalTypeAnnotation time && integer) {
            return new LogicalValueParser(Kind.TIME, 0, 0, time.getUnit(), time.isAdjustedToUTC(),
                    name + " (hh:mm:ss[.fraction]" + (time.isAdjustedToUTC() ? "[+00]" : "") + ")");
        }
        if (logical instanceof UUIDLogicalTypeAnnotation && type.getTypeLength() == 16) {
            return new LogicalValueParser(Kind.UUID, 0, 0, null, false, "a UUID (32 hex digits, 8-4-4-4-12)");
        }
        return null;
    }

    /** For messages: what a field must be, e.g. "a DECIMAL(10,2) (digits with at most 2 after the point)". */
    String expected() {
        return expected;
    }

    /**
     * Whether bytes are the result (a UUID's 16, a wide decimal's minimal two's complement: {@link #bytes}, of
     * {@link #length}), else a long ({@link #value}).
     */
    boolean isBytes() {
        return kind == Kind.UUID || kind == Kind.WIDE_DECIMAL;
    }

    /** Parses {@code b[from .. to)} (not empty); false when it does not follow the grammar or is out of range. */
    boolean parse(byte[] b, int from, int to) {
        return switch (kind) {
            case DECIMAL, WIDE_DECIMAL -> decimal(b, from, to);
            case DATE -> date(b, from, to) == to;
            case TIMESTAMP -> timestamp(b, from, to);
            case TIME -> zone(b, time(b, from, to), to);
            case UUID -> uuid(b, from, to);
        };
    }

    private boolean decimal(byte[] b, int from, int to) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative || b[i] == '+') {
            i++;
        }
        value = 0;
        high = 0;
        int digits = 0;
        int fraction = -1;
        boolean any = false;
        for (; i < to; i++) {
            byte x = b[i];
            if (x == '.' && fraction < 0) {
                fraction = 0;
                continue;
            }
            if (x < '0' || x > '9') {
                return false;
            }
            any = true;
            if (fraction >= 0 && ++fraction > scale) {
                if (x != '0') {
                    return false;
                }
                continue;
            }
            if (digits == 0 && x == '0' && fraction < 0) {
                continue; // a leading zero of the integer part
            }
            if (++digits > precision) {
                return false;
            }
            accumulate(x - '0');
        }
        if (!any) {
            return false;
        }
        for (int f = Math.max(fraction, 0); f < scale; f++) {
            if (++digits > precision && (value != 0 || high != 0)) {
                return false;
            }
            accumulate(0);
        }
        if (kind == Kind.WIDE_DECIMAL) {
            wideBytes(negative);
        } else if (negative) {
            value = -value;
        }
        return true;
    }

    /**
     * The unscaled value so far times ten plus {@code digit}: in {@link #value}, or for a wide decimal in
     * {@link #high} and {@link #value} as one unsigned 128-bit number (38 digits stay below 2^127).
     */
    private void accumulate(int digit) {
        if (kind == Kind.DECIMAL) {
            value = value * 10 + digit;
            return;
        }
        long times10 = value * 10;
        long low = times10 + digit;
        high = high * 10 + Math.multiplyHigh(value, 10) + (value >> 63 & 10) // the unsigned high half of value * 10
                + (Long.compareUnsigned(low, times10) < 0 ? 1 : 0);
        value = low;
    }

    /** The wide decimal parsed, negated when {@code negative}, as its minimal two's complement in {@link #bytes}. */
    private void wideBytes(boolean negative) {
        long low = value;
        long hi = high;
        if (negative) {
            low = -low;
            hi = ~hi + (low == 0 ? 1 : 0);
        }
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (hi >>> 56 - 8 * i);
            bytes[8 + i] = (byte) (low >>> 56 - 8 * i);
        }
        int start = ParquetDecimal.minimalStart(bytesView, 0, bytes.length);
        length = bytes.length - start;
        System.arraycopy(bytes, start, bytes, 0, length);
    }

    /** Parses {@code yyyy-mm-dd} at {@code from} into {@link #value}; the index after it, or -1. */
    private int date(byte[] b, int from, int to) {
        if (to - from < 10 || b[from + 4] != '-' || b[from + 7] != '-') {
            return -1;
        }
        int year = number(b, from, 4);
        int month = number(b, from + 5, 2);
        int day = number(b, from + 8, 2);
        if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
            return -1;
        }
        value = daysFromCivil(year, month, day);
        return from + 10;
    }

    private boolean timestamp(byte[] b, int from, int to) {
        int at = date(b, from, to);
        if (at < 0) {
            return false;
        }
        long days = value;
        if (at < to && (b[at] == ' ' || b[at] == 'T')) {
            at = time(b, at + 1, to);
        } else {
            value = 0;
        }
        if (!zone(b, at, to)) {
            return false;
        }
        try {
            value = Math.addExact(Math.multiplyExact(days, unitsPerSecond * SECONDS_PER_DAY), value);
            return true;
        } catch (ArithmeticException e) {
            return false; // beyond the unit's range (nanoseconds: years 1677 to 2262)
        }
    }

    /**
     * Parses {@code hh:mm:ss[.fraction]} at {@code from} into {@link #value} (units); the index after it, or -1.
     * {@code 24:00:00} too, the end of the day, as DuckDB casts it (a TIME it stores and writes; in a timestamp,
     * the next day's midnight).
     */
    private int time(byte[] b, int from, int to) {
        if (from < 0 || to - from < 8 || b[from + 2] != ':' || b[from + 5] != ':') {
            return -1;
        }
        int hours = number(b, from, 2);
        int minutes = number(b, from + 3, 2);
        int seconds = number(b, from + 6, 2);
        boolean end = hours == 24 && minutes == 0 && seconds == 0;
        if (!end && (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59)) {
            return -1;
        }
        long units = (hours * 3_600L + minutes * 60L + seconds) * unitsPerSecond;
        int at = from + 8;
        if (at < to && b[at] == '.') {
            int digits = 0;
            long fraction = 0;
            for (at++; at < to && b[at] >= '0' && b[at] <= '9'; at++) {
                if (++digits <= fractionDigits) {
                    fraction = fraction * 10 + (b[at] - '0');
                } else if (b[at] != '0' || digits > 9) {
                    return -1; // finer than the unit: no value of the column equals it
                }
            }
            if (digits == 0 || end && fraction != 0) {
                return -1;
            }
            for (int d = digits; d < fractionDigits; d++) {
                fraction *= 10;
            }
            units += fraction;
        }
        value = units;
        return at;
    }

    /** Whether {@code b[at .. to)} is nothing, or for a UTC-adjusted type a zero offset. */
    private boolean zone(byte[] b, int at, int to) {
        if (at < 0) {
            return false;
        }
        int length = to - at;
        if (length == 0) {
            return true;
        }
        return utc && (length == 1 && b[at] == 'Z'
                || length == 3 && b[at] == '+' && b[at + 1] == '0' && b[at + 2] == '0'
                || length == 6 && b[at] == '+' && b[at + 1] == '0' && b[at + 2] == '0' && b[at + 3] == ':'
                && b[at + 4] == '0' && b[at + 5] == '0');
    }

    private boolean uuid(byte[] b, int from, int to) {
        if (to - from >= 2 && b[from] == '{' && b[to - 1] == '}') {
            from++;
            to--;
        }
        int hex = 0;
        for (int i = from; i < to; i++) {
            byte x = b[i];
            if (x == '-' && (hex == 8 || hex == 12 || hex == 16 || hex == 20) && b[i - 1] != '-') {
                continue;
            }
            int digit = Character.digit(x, 16);
            if (digit < 0 || hex == 32) {
                return false;
            }
            bytes[hex >> 1] = (byte) ((hex & 1) == 0 ? digit << 4 : bytes[hex >> 1] | digit);
            hex++;
        }
        return hex == 32;
    }

    /** The {@code length} decimal digits at {@code from}, or -1 when one is not a digit. */
    private static int number(byte[] b, int from, int length) {
        int n = 0;
        for (int i = from; i < from + length; i++) {
            if (b[i] < '0' || b[i] > '9') {
                return -1;
            }
            n = n * 10 + (b[i] - '0');
        }
        return n;
    }

    private static int daysIn(int year, int month) {
        return switch (month) {
            case 2 -> year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
    static long daysFromCivil(int year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }
}
