package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.UUIDLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The CSV text of a value of a column that came from a Parquet input, by the column's logical type, as DuckDB's
 * {@code COPY (…) TO 'x.csv'} writes the same file's column (session time zone UTC):
 *
 * <ul>
 *   <li>DATE: {@code yyyy-MM-dd}, proleptic Gregorian; the year has at least four digits (more when larger) and a
 *       year before 1 is written as DuckDB does, {@code 0001-12-31 (BC)} for day 0 of year 0; DuckDB's infinite
 *       dates (days ±(2^31 − 1)) as {@code infinity} and {@code -infinity};</li>
 *   <li>TIMESTAMP (MILLIS, MICROS, NANOS) and INT96: {@code <date> HH:mm:ss}, then {@code .} and the fraction of
 *       the second when not zero, in at most the unit's digits (3, 6, 9; INT96: 9) without trailing zeros
 *       ({@code 12:34:56.1}); a timestamp adjusted to UTC ends with {@code +00} (DuckDB's TIMESTAMPTZ in UTC);
 *       before 1970 the day and time are the floor ones ({@code -1} µs is {@code 1969-12-31 23:59:59.999999});
 *       DuckDB's infinite timestamps (±(2^63 − 1) in any unit) as {@code infinity} and {@code -infinity}; an INT96
 *       keeps its nanoseconds, where DuckDB (which reads it in microseconds) drops the last three digits;</li>
 *   <li>TIME (MILLIS, MICROS, NANOS): {@code HH:mm:ss} and the fraction as above ({@code +00} when adjusted to UTC);
 *       a value outside 0 .. 24:00:00 (not a time of day) as its integer;</li>
 *   <li>DECIMAL(p, s) in INT32, INT64, FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY (big-endian two's complement): the exact
 *       number with {@code s} fraction digits, at least one integer digit, a {@code -} when negative
 *       ({@code -0.05}, {@code 123.4500}, {@code 0.00}; scale 0: an integer) — where DuckDB writes a DECIMAL(p, p)
 *       without the integer digit ({@code .500}), this writes {@code 0.500}, as PostgreSQL, Spark and Java do;</li>
 *   <li>UUID (FIXED_LEN_BYTE_ARRAY(16)): lowercase {@code 8-4-4-4-12} hex;</li>
 *   <li>unsigned INT(32) and INT(64): the unsigned number (an INT(64) is held as its bits, an INT(32) as its low 32
 *       bits, which the reader widens to the non-negative value).</li>
 * </ul>
 * Every other column ({@link #of} gives null) is written as held. A column's rendering is chosen once, when the
 * writer opens; a value is written with no object (the {@code long} cases, all but a decimal of more than 18 digits
 * or of a scale above {@link #MAX_FAST_SCALE}, which go through {@link BigDecimal}) straight into the CSV writer's
 * buffer. Invariant: such a text is ASCII of at most {@link #MAX_BYTES} bytes; {@link CsvWriter#endAsciiField}
 * quotes it if it holds the delimiter.
 */
final class ParquetValueText {
    /** The longest text written straight into the buffer: a timestamp of a 9-digit BC year with 9 fraction digits. */
    static final int MAX_BYTES = 48;
    /** The largest scale of a decimal written through a {@code long}: {@code -0.} and 38 digits fit in MAX_BYTES. */
    private static final int MAX_FAST_SCALE = 38;
    private static final long SECONDS_PER_DAY = 86_400;
    static final long NANOS_PER_DAY = SECONDS_PER_DAY * 1_000_000_000L;
    private static final long JULIAN_DAY_OF_UNIX_EPOCH = 2_440_588;
    private static final byte[] BEFORE_CHRIST = " (BC)".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UTC = "+00".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INFINITY = "infinity".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MINUS_INFINITY = "-infinity".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private enum Kind { DATE, TIMESTAMP, TIME, INT96, DECIMAL_INTEGER, DECIMAL_BYTES, UUID, UINT32, UINT64 }

    private final Kind kind;
    /** TIMESTAMP, TIME, INT96: values per second of the unit, and its fraction digits. */
    private final long unitsPerSecond;
    private final int fractionDigits;
    /** TIMESTAMP, TIME: adjusted to UTC (written with {@code +00}). */
    private final boolean utc;
    /** DECIMAL: the scale. */
    private final int scale;

    private ParquetValueText(Kind kind, long unitsPerSecond, int fractionDigits, boolean utc, int scale) {
        this.kind = kind;
        this.unitsPerSecond = unitsPerSecond;
        this.fractionDigits = fractionDigits;
        this.utc = utc;
        this.scale = scale;
    }

    /** The rendering of a column of Parquet type {@code type}; null when written as held (or {@code type} null). */
    static ParquetValueText of(PrimitiveType type) {
        if (type == null) {
            return null;
        }
        PrimitiveTypeName physical = type.getPrimitiveTypeName();
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        if (physical == PrimitiveTypeName.INT96) {
            return new ParquetValueText(Kind.INT96, 1_000_000_000L, 9, false, 0);
        }
        if (logical instanceof DateLogicalTypeAnnotation) {
            return new ParquetValueText(Kind.DATE, 0, 0, false, 0);
        }
        if (logical instanceof TimestampLogicalTypeAnnotation timestamp) {
            return timed(Kind.TIMESTAMP, timestamp.getUnit(), timestamp.isAdjustedToUTC());
        }
        if (logical instanceof TimeLogicalTypeAnnotation time) {
            return timed(Kind.TIME, time.getUnit(), time.isAdjustedToUTC());
        }
        if (logical instanceof DecimalLogicalTypeAnnotation decimal) {
            return new ParquetValueText(ParquetDecimal.heldAsLong(type) ? Kind.DECIMAL_INTEGER : Kind.DECIMAL_BYTES,
                    0, 0, false, decimal.getScale());
        }
        if (logical instanceof UUIDLogicalTypeAnnotation && type.getTypeLength() == 16) {
            return new ParquetValueText(Kind.UUID, 0, 0, false, 0);
        }
        if (logical instanceof IntLogicalTypeAnnotation integer && !integer.isSigned()
                && integer.getBitWidth() >= 32) {
            return new ParquetValueText(integer.getBitWidth() == 32 ? Kind.UINT32 : Kind.UINT64, 0, 0, false, 0);
        }
        return null;
    }

    private static ParquetValueText timed(Kind kind, TimeUnit unit, boolean utc) {
        return switch (unit) {
            case MILLIS -> new ParquetValueText(kind, 1_000L, 3, utc, 0);
            case MICROS -> new ParquetValueText(kind, 1_000_000L, 6, utc, 0);
            case NANOS -> new ParquetValueText(kind, 1_000_000_000L, 9, utc, 0);
        };
    }

    /** Writes row {@code row} of {@code v} (not NULL) as the next field of {@code w}. */
    void write(CsvWriter w, ColumnVector v, int row) throws IOException {
        if (kind == Kind.DECIMAL_BYTES && !(scale <= MAX_FAST_SCALE && ParquetDecimal.fitsLong(v.bytes(),
                v.offsets()[row], v.offsets()[row + 1] - v.offsets()[row]))) {
            int from = v.offsets()[row];
            byte[] text = new BigDecimal(new BigInteger(v.bytes(), from, v.offsets()[row + 1] - from), scale)
                    .toPlainString().getBytes(StandardCharsets.US_ASCII);
            w.writeText(text, 0, text.length);
            return;
        }
        int start = w.startAsciiField(MAX_BYTES);
        byte[] out = w.buffer();
        int end = switch (kind) {
            case DATE -> {
                long days = v.longs()[row];
                yield days == Integer.MAX_VALUE || days == -Integer.MAX_VALUE ? infinity(out, start, days)
                        : date(out, start, days);
            }
            case TIMESTAMP -> {
                long value = v.longs()[row];
                yield value == Long.MAX_VALUE || value == -Long.MAX_VALUE ? infinity(out, start, value)
                        : zone(out, timestamp(out, start, value, unitsPerSecond, fractionDigits));
            }
            case TIME -> {
                long value = v.longs()[row];
                yield value < 0 || value > unitsPerSecond * SECONDS_PER_DAY ? decimal(out, start, value, 0)
                        : zone(out, time(out, start, value, unitsPerSecond, fractionDigits));
            }
            case INT96 -> int96(out, start, v.bytes(), v.offsets()[row]);
            case DECIMAL_INTEGER -> decimal(out, start, v.longs()[row], scale);
            case DECIMAL_BYTES -> decimal(out, start, ParquetDecimal.bigEndian(v.bytes(), v.offsets()[row],
                    v.offsets()[row + 1] - v.offsets()[row]), scale);
            case UUID -> uuid(out, start, v.bytes(), v.offsets()[row]);
            case UINT32 -> digits(out, start, v.longs()[row] & 0xFFFF_FFFFL, 0);
            case UINT64 -> digits(out, start, v.longs()[row], 0);
        };
        w.endAsciiField(start, end);
    }

    /** DuckDB's infinite date or timestamp: {@code infinity}, or {@code -infinity} when {@code sign} is negative. */
    private static int infinity(byte[] out, int at, long sign) {
        byte[] text = sign > 0 ? INFINITY : MINUS_INFINITY;
        System.arraycopy(text, 0, out, at, text.length);
        return at + text.length;
    }

    private int zone(byte[] out, int at) {
        if (!utc) {
            return at;
        }
        System.arraycopy(UTC, 0, out, at, UTC.length);
        return at + UTC.length;
    }

    /** Writes the date {@code days} after 1970-01-01 (before it when negative) into {@code out} at {@code at}. */
    static int date(byte[] out, int at, long days) {
        // Howard Hinnant's civil_from_days: eras of 400 years (146,097 days), years starting on March 1st.
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long dayOfEra = z - era * 146_097;
        long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long shiftedMonth = (5 * dayOfYear + 2) / 153;
        int day = (int) (dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
        int month = (int) (shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        boolean beforeChrist = year <= 0;
        at = padded(out, at, beforeChrist ? 1 - year : year, 4);
        out[at++] = '-';
        at = padded(out, at, month, 2);
        out[at++] = '-';
        at = padded(out, at, day, 2);
        if (beforeChrist) {
            System.arraycopy(BEFORE_CHRIST, 0, out, at, BEFORE_CHRIST.length);
            at += BEFORE_CHRIST.length;
        }
        return at;
    }

    /** Writes the timestamp {@code value} units of {@code unitsPerSecond} after the epoch (date, space, time). */
    static int timestamp(byte[] out, int at, long value, long unitsPerSecond, int fractionDigits) {
        long unitsPerDay = unitsPerSecond * SECONDS_PER_DAY;
        at = date(out, at, Math.floorDiv(value, unitsPerDay));
        out[at++] = ' ';
        return time(out, at, Math.floorMod(value, unitsPerDay), unitsPerSecond, fractionDigits);
    }

    /** Writes the time of day {@code value} (0 .. 24 hours in units of {@code unitsPerSecond}) as HH:mm:ss[.f]. */
    static int time(byte[] out, int at, long value, long unitsPerSecond, int fractionDigits) {
        long seconds = value / unitsPerSecond;
        at = padded(out, at, seconds / 3_600, 2);
        out[at++] = ':';
        at = padded(out, at, seconds / 60 % 60, 2);
        out[at++] = ':';
        at = padded(out, at, seconds % 60, 2);
        long fraction = value % unitsPerSecond;
        if (fraction == 0) {
            return at;
        }
        while (fraction % 10 == 0) {
            fraction /= 10;
            fractionDigits--;
        }
        out[at++] = '.';
        return padded(out, at, fraction, fractionDigits);
    }

    /** An INT96 timestamp at {@code from}: nanoseconds of the day (8 bytes) then the Julian day (4), little-endian. */
    static int int96(byte[] out, int at, byte[] bytes, int from) {
        long nanos = 0;
        for (int i = 7; i >= 0; i--) {
            nanos = nanos << 8 | (bytes[from + i] & 0xFF);
        }
        int julianDay = 0;
        for (int i = 11; i >= 8; i--) {
            julianDay = julianDay << 8 | (bytes[from + i] & 0xFF);
        }
        at = date(out, at, julianDay - JULIAN_DAY_OF_UNIX_EPOCH + Math.floorDiv(nanos, NANOS_PER_DAY));
        out[at++] = ' ';
        return time(out, at, Math.floorMod(nanos, NANOS_PER_DAY), 1_000_000_000L, 9);
    }

    /** Writes the decimal of unscaled value {@code unscaled} and scale {@code scale} (0: an integer). */
    static int decimal(byte[] out, int at, long unscaled, int scale) {
        if (unscaled < 0) {
            out[at++] = '-';
        }
        return digits(out, at, unscaled < 0 ? -unscaled : unscaled, scale); // -MIN_VALUE is 2^63 unsigned
    }

    /**
     * Writes the unsigned {@code magnitude} with a point before its last {@code scale} digits and at least one digit
     * before the point.
     */
    private static int digits(byte[] out, int at, long magnitude, int scale) {
        int count = 1;
        for (long rest = Long.divideUnsigned(magnitude, 10); rest != 0; rest /= 10) {
            count++;
        }
        int width = Math.max(count, scale + 1);
        int end = at + width + (scale > 0 ? 1 : 0);
        int i = end;
        long rest = magnitude;
        for (int d = 0; d < width; d++) {
            if (d == scale && scale > 0) {
                out[--i] = '.';
            }
            long quotient = rest < 0 ? Long.divideUnsigned(rest, 10) : rest / 10; // unsigned above 2^63 only
            out[--i] = (byte) ('0' + (rest - quotient * 10));
            rest = quotient;
        }
        return end;
    }

    /** Writes the non-negative {@code value} in at least {@code width} digits, zeros in front. */
    private static int padded(byte[] out, int at, long value, int width) {
        int count = 1;
        for (long rest = value / 10; rest != 0; rest /= 10) {
            count++;
        }
        int end = at + Math.max(count, width);
        for (int i = end - 1; i >= at; i--) {
            out[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return end;
    }

    /** The 16 bytes at {@code from} as lowercase 8-4-4-4-12 hex. */
    static int uuid(byte[] out, int at, byte[] bytes, int from) {
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                out[at++] = '-';
            }
            int b = bytes[from + i] & 0xFF;
            out[at++] = HEX[b >>> 4];
            out[at++] = HEX[b & 0xF];
        }
        return at;
    }
}
