package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

/**
 * Parquet values as CSV text: dates, timestamps and times against java.time (every day of years 1 to 9999, BC and
 * beyond 9999, random timestamps of each unit over the whole long range), decimals against BigDecimal (every
 * physical type, negative, zero, scale 0, scale = precision, 38 digits), and the CSV writer rendering each column by
 * its Parquet type, NULLs and the columns written as held included.
 */
class ParquetValueTextTest {
    private static final long MILLIS = 1_000L;
    private static final long MICROS = 1_000_000L;
    private static final long NANOS = 1_000_000_000L;

    @Test
    void datesAroundTheEpochLeapDaysAndTheEndsOfTheCalendar() {
        assertThat(date(0)).isEqualTo("1970-01-01");
        assertThat(date(-1)).isEqualTo("1969-12-31");
        assertThat(date(day(2000, 2, 29))).isEqualTo("2000-02-29");
        assertThat(date(day(2024, 2, 29))).isEqualTo("2024-02-29");
        assertThat(date(day(1900, 2, 28) + 1)).as("1900 is not a leap year").isEqualTo("1900-03-01");
        assertThat(date(day(1, 1, 1))).isEqualTo("0001-01-01");
        assertThat(date(day(1, 1, 1) - 1)).as("year 0 is 1 BC").isEqualTo("0001-12-31 (BC)");
        assertThat(date(day(-99, 3, 1))).isEqualTo("0100-03-01 (BC)");
        assertThat(date(day(9999, 12, 31))).isEqualTo("9999-12-31");
        assertThat(date(day(9999, 12, 31) + 1)).isEqualTo("10000-01-01");
        assertThat(date(Integer.MAX_VALUE)).isEqualTo("5881580-07-11");
        assertThat(date(Integer.MIN_VALUE)).isEqualTo(expectedDate(LocalDate.ofEpochDay(Integer.MIN_VALUE)))
                .endsWith(" (BC)");
    }

    @Test
    void everyDayOfYears1To9999AndSomeBeforeIsJavaTimesDate() {
        for (long day = day(-2000, 1, 1); day <= day(9999, 12, 31); day++) {
            String expected = expectedDate(LocalDate.ofEpochDay(day));
            if (!date(day).equals(expected)) {
                assertThat(date(day)).as("day " + day).isEqualTo(expected);
            }
        }
    }

    @Test
    void timestampsOfEachUnitWithFractionsWithoutTrailingZeros() {
        assertThat(timestamp(0, MICROS)).isEqualTo("1970-01-01 00:00:00");
        assertThat(timestamp(-1, MICROS)).isEqualTo("1969-12-31 23:59:59.999999");
        assertThat(timestamp(-1_500, MILLIS)).isEqualTo("1969-12-31 23:59:58.5");
        assertThat(timestamp(-1, NANOS)).isEqualTo("1969-12-31 23:59:59.999999999");
        long noon = day(2024, 1, 5) * 86_400 + 12 * 3_600 + 34 * 60 + 56;
        assertThat(timestamp(noon * MICROS + 123_456, MICROS)).isEqualTo("2024-01-05 12:34:56.123456");
        assertThat(timestamp(noon * MICROS + 100_000, MICROS)).isEqualTo("2024-01-05 12:34:56.1");
        assertThat(timestamp(noon * MILLIS + 120, MILLIS)).isEqualTo("2024-01-05 12:34:56.12");
        assertThat(timestamp(noon * NANOS + 123_456_789, NANOS)).isEqualTo("2024-01-05 12:34:56.123456789");
        assertThat(timestamp(noon * NANOS + 1, NANOS)).isEqualTo("2024-01-05 12:34:56.000000001");
        assertThat(timestamp(noon * NANOS, NANOS)).isEqualTo("2024-01-05 12:34:56");
        assertThat(timestamp(day(1, 1, 1) * 86_400 * MICROS - 1, MICROS)).isEqualTo("0001-12-31 (BC) 23:59:59.999999");
        assertThat(timestamp(Long.MAX_VALUE, MILLIS)).isEqualTo("292278994-08-17 07:12:55.807");
        assertThat(timestamp(Long.MIN_VALUE, MILLIS)).isEqualTo(expectedTimestamp(Long.MIN_VALUE, MILLIS));
    }

    @Test
    void randomTimestampsOfEachUnitAreJavaTimes() {
        SplittableRandom random = new SplittableRandom(17);
        for (long unit : new long[] {MILLIS, MICROS, NANOS}) {
            for (int i = 0; i < 100_000; i++) {
                long value = i % 2 == 0 ? random.nextLong() : random.nextLong(-4_000_000_000L, 4_000_000_000L) * unit;
                String expected = expectedTimestamp(value, unit);
                if (!timestamp(value, unit).equals(expected)) {
                    assertThat(timestamp(value, unit)).as(value + " in units of 1/" + unit + " s").isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void timesOfEachUnit() {
        assertThat(time(0, MILLIS)).isEqualTo("00:00:00");
        assertThat(time((12 * 3_600 + 34 * 60 + 56) * MILLIS + 500, MILLIS)).isEqualTo("12:34:56.5");
        assertThat(time(86_400 * MICROS - 1, MICROS)).isEqualTo("23:59:59.999999");
        assertThat(time(3_600 * NANOS + 7_000, NANOS)).isEqualTo("01:00:00.000007");
        assertThat(time(86_400 * NANOS - 1, NANOS)).isEqualTo("23:59:59.999999999");
        assertThat(time(86_400 * MICROS, MICROS)).isEqualTo("24:00:00");
    }

    @Test
    void decimalsOfALong() {
        assertThat(decimal(-5, 2)).isEqualTo("-0.05");
        assertThat(decimal(1_234_500, 4)).isEqualTo("123.4500");
        assertThat(decimal(0, 2)).isEqualTo("0.00");
        assertThat(decimal(0, 0)).isEqualTo("0");
        assertThat(decimal(-42, 0)).isEqualTo("-42");
        assertThat(decimal(1234, 4)).as("scale = precision (DuckDB: .1234)").isEqualTo("0.1234");
        assertThat(decimal(-1234, 4)).isEqualTo("-0.1234");
        assertThat(decimal(999_999_999_999_999_999L, 3)).isEqualTo("999999999999999.999");
        assertThat(decimal(-999_999_999_999_999_999L, 18)).isEqualTo("-0.999999999999999999");
        assertThat(decimal(Long.MIN_VALUE, 0)).isEqualTo("-9223372036854775808");
        assertThat(decimal(Long.MIN_VALUE, 38)).isEqualTo("-0.00000000000000000009223372036854775808");
        assertThat(decimal(Long.MAX_VALUE, 1)).isEqualTo("922337203685477580.7");
    }

    @Test
    void decimalsOfEveryPhysicalTypeAreBigDecimalsPlainText() throws IOException {
        PrimitiveType int32 = decimalType(PrimitiveTypeName.INT32, 0, 9, 2);
        PrimitiveType int64 = decimalType(PrimitiveTypeName.INT64, 0, 18, 3);
        PrimitiveType fixed = decimalType(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, 16, 38, 10);
        PrimitiveType binary = decimalType(PrimitiveTypeName.BINARY, 0, 60, 45);
        PrimitiveType wholeFixed = decimalType(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, 9, 20, 0);
        PrimitiveType[] types = {int32, int64, fixed, binary, wholeFixed};
        SplittableRandom random = new SplittableRandom(5);
        int rows = 3_000;
        Batch batch = batch(types, rows);
        String[] expected = new String[rows];
        for (int r = 0; r < rows; r++) {
            int i32 = r % 3 == 0 ? random.nextInt() : random.nextInt(-1_000, 1_000);
            long i64 = r % 3 == 0 ? random.nextLong(-999_999_999_999_999_999L, 999_999_999_999_999_999L)
                    : random.nextLong(-1_000, 1_000);
            BigInteger wide = new BigInteger(r % 2 == 0 ? 126 : 60, new java.util.Random(r)).multiply(
                    BigInteger.valueOf(r % 4 < 2 ? -1 : 1));
            BigInteger wider = new BigInteger(r % 2 == 0 ? 199 : 40, new java.util.Random(-r)).negate();
            BigInteger whole = BigInteger.valueOf(random.nextLong()).shiftLeft(r % 8);
            batch.column(0).setLong(r, i32);
            batch.column(1).setLong(r, i64);
            batch.column(2).setBytes(r, twosComplement(wide, 16), 0, 16);
            byte[] minimal = wider.toByteArray();
            batch.column(3).setBytes(r, minimal, 0, minimal.length);
            batch.column(4).setBytes(r, twosComplement(whole, 9), 0, 9);
            expected[r] = String.join(",", new BigDecimal(BigInteger.valueOf(i32), 2).toPlainString(),
                    new BigDecimal(BigInteger.valueOf(i64), 3).toPlainString(),
                    new BigDecimal(wide, 10).toPlainString(), new BigDecimal(wider, 45).toPlainString(),
                    whole.toString());
        }
        batch.setRowCount(rows);
        String[] lines = csv(types, batch, (byte) ',').split("\n");
        assertThat(Arrays.copyOfRange(lines, 1, lines.length)).containsExactly(expected);
        assertThat(decimalOfBytes(twosComplement(new BigInteger("-" + "9".repeat(38)), 16), 38))
                .isEqualTo("-0." + "9".repeat(38));
        assertThat(decimalOfBytes(twosComplement(new BigInteger("9".repeat(38)), 16), 0)).isEqualTo("9".repeat(38));
        assertThat(decimalOfBytes(twosComplement(BigInteger.valueOf(-5), 16), 2)).isEqualTo("-0.05");
        assertThat(decimalOfBytes(new byte[] {0}, 3)).isEqualTo("0.000");
        assertThat(decimalOfBytes(twosComplement(BigInteger.ONE, 16), 60)).as("a scale above 38")
                .isEqualTo("0." + "0".repeat(59) + "1");
    }

    @Test
    void eachColumnIsWrittenByItsParquetTypeAndTheOthersAsHeld() throws IOException {
        PrimitiveType[] types = {
            Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d"),
            Types.optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS))
                    .named("ts_utc"),
            Types.optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(false, TimeUnit.MILLIS))
                    .named("ts_ms"),
            Types.optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timeType(false, TimeUnit.NANOS))
                    .named("t_ns"),
            Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.timeType(true, TimeUnit.MILLIS))
                    .named("t_utc"),
            Types.optional(PrimitiveTypeName.INT96).named("i96"),
            Types.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(16).as(LogicalTypeAnnotation.uuidType())
                    .named("u"),
            Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false)).named("u32"),
            Types.optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.intType(64, false)).named("u64"),
            Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named("i16"),
            Types.optional(PrimitiveTypeName.INT64).named("plain"),
            Types.optional(PrimitiveTypeName.BINARY).named("blob"),
            Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s"),
        };
        Batch batch = batch(types, 3);
        long noonSeconds = day(2024, 1, 5) * 86_400 + 12 * 3_600 + 34 * 60 + 56;
        UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        byte[] uuidBytes = java.nio.ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).array();
        // INT96: nanoseconds of the day, then the Julian day, little-endian
        byte[] int96 = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong((12 * 3_600 + 34 * 60 + 56) * NANOS + 123_456_789).putInt((int) (day(2024, 1, 5) + 2_440_588))
                .array();
        byte[] blob = {'a', 0, (byte) 0xC3, (byte) 0xA9};
        byte[] text = "x y".getBytes(StandardCharsets.UTF_8);
        for (int r = 0; r < 2; r++) {
            int sign = r == 0 ? 1 : -1;
            batch.column(0).setLong(r, sign * day(2024, 1, 5));
            batch.column(1).setLong(r, sign * (noonSeconds * MICROS + 123_000));
            batch.column(2).setLong(r, sign * (noonSeconds * MILLIS + 7));
            batch.column(3).setLong(r, r == 0 ? 45_296_000_000_001L : -5);
            batch.column(4).setLong(r, r == 0 ? 45_296_100 : 86_400_001);
            batch.column(5).setBytes(r, int96, 0, 12);
            batch.column(6).setBytes(r, uuidBytes, 0, 16);
            batch.column(7).setLong(r, sign * 7);
            batch.column(8).setLong(r, sign * 7);
            batch.column(9).setLong(r, sign * 7);
            batch.column(10).setLong(r, sign * 7);
            batch.column(11).setBytes(r, blob, 0, blob.length);
            batch.column(12).setBytes(r, text, 0, text.length);
        }
        for (int c = 0; c < types.length; c++) {
            batch.column(c).setNull(2);
        }
        batch.setRowCount(3);
        String header = "d,ts_utc,ts_ms,t_ns,t_utc,i96,u,u32,u64,i16,plain,blob,s\n";
        assertThat(csv(types, batch, (byte) ',')).isEqualTo(header
                + "2024-01-05,2024-01-05 12:34:56.123+00,2024-01-05 12:34:56.007,12:34:56.000000001,12:34:56.1+00,"
                + "2024-01-05 12:34:56.123456789,123e4567-e89b-12d3-a456-426614174000,7,7,7,7,a\0\u00e9,x y\n"
                + "1915-12-29,1915-12-28 11:25:03.877+00,1915-12-28 11:25:03.993,-5,86400001,"
                + "2024-01-05 12:34:56.123456789,123e4567-e89b-12d3-a456-426614174000,4294967289,"
                + "18446744073709551609,-7,-7,a\0\u00e9,x y\n"
                + ",,,,,,,,,,,,\n");
        String spaced = csv(types, batch, (byte) ' ');
        assertThat(spaced.split("\n")[1]).as("a text holding the delimiter is quoted").startsWith(
                "2024-01-05 \"2024-01-05 12:34:56.123+00\" \"2024-01-05 12:34:56.007\" 12:34:56.000000001 ");
    }

    @Test
    void duckDbsInfiniteDatesAndTimestampsAreWrittenAsDuckDbWritesThem() throws IOException {
        PrimitiveType[] types = {
            Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d"),
            Types.optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS))
                    .named("ts"),
            Types.optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(false, TimeUnit.NANOS))
                    .named("ns"),
        };
        Batch batch = batch(types, 3);
        long[][] values = {{Integer.MAX_VALUE, -Integer.MAX_VALUE, Integer.MIN_VALUE},
            {Long.MAX_VALUE, -Long.MAX_VALUE, Long.MIN_VALUE}, {Long.MAX_VALUE, -Long.MAX_VALUE, Long.MAX_VALUE - 1}};
        for (int c = 0; c < 3; c++) {
            for (int r = 0; r < 3; r++) {
                batch.column(c).setLong(r, values[c][r]);
            }
        }
        batch.setRowCount(3);
        assertThat(csv(types, batch, (byte) ',')).isEqualTo("d,ts,ns\n"
                + "infinity,infinity,infinity\n"
                + "-infinity,-infinity,-infinity\n"
                + date(Integer.MIN_VALUE) + "," + timestamp(Long.MIN_VALUE, MICROS) + "+00,"
                + "2262-04-11 23:47:16.854775806\n");
    }

    private static long day(int year, int month, int day) {
        return LocalDate.of(year, month, day).toEpochDay();
    }

    private static String date(long days) {
        byte[] out = new byte[ParquetValueText.MAX_BYTES];
        return ascii(out, ParquetValueText.date(out, 0, days));
    }

    private static String timestamp(long value, long unitsPerSecond) {
        byte[] out = new byte[ParquetValueText.MAX_BYTES];
        return ascii(out, ParquetValueText.timestamp(out, 0, value, unitsPerSecond, digits(unitsPerSecond)));
    }

    private static String time(long value, long unitsPerSecond) {
        byte[] out = new byte[ParquetValueText.MAX_BYTES];
        return ascii(out, ParquetValueText.time(out, 0, value, unitsPerSecond, digits(unitsPerSecond)));
    }

    private static String decimal(long unscaled, int scale) {
        byte[] out = new byte[ParquetValueText.MAX_BYTES];
        return ascii(out, ParquetValueText.decimal(out, 0, unscaled, scale));
    }

    /** One FIXED_LEN_BYTE_ARRAY or BINARY decimal value written by the CSV writer. */
    private static String decimalOfBytes(byte[] bytes, int scale) throws IOException {
        PrimitiveType[] types = {decimalType(PrimitiveTypeName.BINARY, 0, Math.max(scale, 38) + 1, scale)};
        Batch batch = batch(types, 1);
        batch.column(0).setBytes(0, bytes, 0, bytes.length);
        batch.setRowCount(1);
        return csv(types, batch, (byte) ',').split("\n")[1];
    }

    private static int digits(long unitsPerSecond) {
        return Long.toString(unitsPerSecond).length() - 1;
    }

    private static String ascii(byte[] out, int end) {
        return new String(out, 0, end, StandardCharsets.US_ASCII);
    }

    /** DuckDB's date text: a year of at least four digits, {@code (BC)} after a year before 1 (year 0 is 1 BC). */
    private static String expectedDate(LocalDate date) {
        int year = date.getYear();
        String text = pad(year <= 0 ? 1 - year : year, 4) + "-" + pad(date.getMonthValue(), 2) + "-"
                + pad(date.getDayOfMonth(), 2);
        return year <= 0 ? text + " (BC)" : text;
    }

    private static String pad(long value, int width) {
        String digits = Long.toString(value);
        return "0".repeat(Math.max(0, width - digits.length())) + digits;
    }

    private static String expectedTimestamp(long value, long unitsPerSecond) {
        LocalDateTime time = LocalDateTime.ofEpochSecond(Math.floorDiv(value, unitsPerSecond), 0, ZoneOffset.UTC);
        long fraction = Math.floorMod(value, unitsPerSecond);
        String text = expectedDate(time.toLocalDate()) + " " + pad(time.getHour(), 2) + ":" + pad(time.getMinute(), 2)
                + ":" + pad(time.getSecond(), 2);
        return fraction == 0 ? text : text + "." + pad(fraction, digits(unitsPerSecond)).replaceAll("0+$", "");
    }

    private static PrimitiveType decimalType(PrimitiveTypeName physical, int length, int precision, int scale) {
        Types.PrimitiveBuilder<PrimitiveType> type = Types.optional(physical);
        if (length > 0) {
            type = type.length(length);
        }
        return type.as(LogicalTypeAnnotation.decimalType(scale, precision)).named(physical + "_" + precision);
    }

    private static Batch batch(PrimitiveType[] types, int rows) {
        Column[] columns = new Column[types.length];
        for (int c = 0; c < types.length; c++) {
            columns[c] = Column.of(types[c].getName(), ParquetColumnType.heldAs(types[c]));
        }
        return new Batch(Schema.of(columns), rows);
    }

    private static String csv(PrimitiveType[] types, Batch batch, byte delimiter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String[] names = Arrays.stream(types).map(PrimitiveType::getName).toArray(String[]::new);
        BatchCsvWriter writer = BatchCsvWriter.open(out, CsvCompression.NONE, delimiter, names, types);
        writer.write(batch);
        writer.finish();
        return out.toString(StandardCharsets.UTF_8);
    }

    /** {@code value} in {@code bytes} big-endian two's complement bytes (a FIXED_LEN_BYTE_ARRAY decimal). */
    private static byte[] twosComplement(BigInteger value, int bytes) {
        byte[] minimal = value.toByteArray();
        byte[] out = new byte[bytes];
        Arrays.fill(out, 0, bytes - minimal.length, (byte) (value.signum() < 0 ? -1 : 0));
        System.arraycopy(minimal, 0, out, bytes - minimal.length, minimal.length);
        return out;
    }
}
