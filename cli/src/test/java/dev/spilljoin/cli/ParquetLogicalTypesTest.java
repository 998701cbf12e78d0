package dev.spilljoin.cli;

import static dev.spilljoin.cli.ParquetTestFiles.column;
import static org.assertj.core.api.Assertions.assertThat;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MILLIS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.NANOS;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Parquet logical types where they change what a stored value means, end to end ({@link Main#run}): part files of
 * one input whose column differs in logical type are refused naming file and column; unsigned integer keys pair by
 * their unsigned values; a CSV key paired with a DECIMAL, DATE, TIME, TIMESTAMP or UUID key is read as that type
 * (and written as it); a pair of Parquet keys whose stored values mean different things, or a CSV key with a type
 * text is not read as, is refused with a fix that works when followed.
 */
class ParquetLogicalTypesTest {
    @TempDir
    Path dir;
    private String out;
    private String err;

    private int run(String... args) {
        CapturedRun run = CapturedRun.of(args);
        out = run.out();
        err = run.err();
        return run.code();
    }

    /** Joins {@code left} and {@code right} on {@code on} to standard output; the exit code. */
    private int join(Path left, Path right, String on, String... extra) {
        List<String> args = new ArrayList<>(List.of("join", "--left", left.toString(), "--right", right.toString(),
                "--on", on, "--spill-dir", dir.toString(), "--quiet"));
        args.addAll(Arrays.asList(extra));
        return run(args.toArray(new String[0]));
    }

    /** The output rows after the header, sorted. */
    private List<String> rows() {
        return out.lines().skip(1).sorted().toList();
    }

    private static Object[] row(Object... values) {
        return values;
    }

    private static LogicalTypeAnnotation decimal(int precision, int scale) {
        return LogicalTypeAnnotation.decimalType(scale, precision);
    }

    private static LogicalTypeAnnotation timestamp(boolean utc, LogicalTypeAnnotation.TimeUnit unit) {
        return LogicalTypeAnnotation.timestampType(utc, unit);
    }

    // ------------------------------------------------------------------ part files of one input

    static Stream<Arguments> partTypesThatDiffer() {
        return Stream.of(
                Arguments.of(INT64, decimal(10, 2), decimal(10, 3), "DECIMAL(10,3)"),
                Arguments.of(INT64, decimal(10, 2), decimal(12, 2), "DECIMAL(12,2)"),
                Arguments.of(INT64, timestamp(false, MICROS), timestamp(false, MILLIS), "MILLIS"),
                Arguments.of(INT64, timestamp(false, MICROS), timestamp(true, MICROS), "true"),
                Arguments.of(INT32, LogicalTypeAnnotation.dateType(), null, "int32 k"),
                Arguments.of(INT32, LogicalTypeAnnotation.intType(32, true), LogicalTypeAnnotation.intType(32, false),
                        "INTEGER(32,false)"));
    }

    @ParameterizedTest(name = "{0} {1} then {2}")
    @MethodSource("partTypesThatDiffer")
    void partFilesWhoseColumnDiffersInLogicalTypeAreRefusedNamingFileAndColumn(
            PrimitiveTypeName physical, LogicalTypeAnnotation first, LogicalTypeAnnotation second, String named)
            throws IOException {
        Path parts = dir.resolve("parts");
        ParquetTestFiles.write(parts.resolve("part-0.parquet"), List.of(column("k", physical, first)), row(1L));
        Path later = ParquetTestFiles.write(parts.resolve("part-1.parquet"), List.of(column("k", physical, second)),
                row(1L));
        Path right = CsvTestFiles.write(dir, "r.csv", "k\n1\n");

        assertThat(join(parts, right, "k")).as(err).isEqualTo(ExitCodes.INPUT);
        assertThat(err.lines()).hasSize(1);
        assertThat(err).contains("column 'k' of " + later).contains(named)
                .contains("every part file needs the same column types");
        assertThat(out).isEmpty();
    }

    @Test
    void partFilesWhoseAnnotationsMeanTheSameJoinAsOneFile() throws IOException {
        Path parts = dir.resolve("parts");
        ParquetTestFiles.write(parts.resolve("part-0.parquet"), List.of(column("k", INT32, null),
                column("s", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType())), row(1L, "a"));
        ParquetTestFiles.write(parts.resolve("part-1.parquet"), List.of(
                column("k", INT32, LogicalTypeAnnotation.intType(32, true)),
                column("s", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.enumType())), row(2L, "b"));
        Path right = CsvTestFiles.write(dir, "r.csv", "k,v\n1,one\n2,two\n");

        assertThat(join(parts, right, "k")).as(err).isZero();
        assertThat(rows()).containsExactly("1,a,1,one", "2,b,2,two");
    }

    // ------------------------------------------------------------------ unsigned integers

    private Path unsigned() throws IOException {
        return ParquetTestFiles.write(dir.resolve("uns.parquet"), List.of(
                column("u32", INT32, LogicalTypeAnnotation.intType(32, false)),
                column("u8", INT32, LogicalTypeAnnotation.intType(8, false)),
                column("name", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType())),
                row(0xFFFF_FFFFL, 255L, "max"), row(1L, 1L, "one"), row(0x8000_0000L, 128L, "mid"));
    }

    @Test
    void unsignedInt32KeysPairByTheirUnsignedValueWithCsvAndSignedKeysAndAreWrittenUnsigned() throws IOException {
        Path csv = CsvTestFiles.write(dir, "u.csv",
                "u32,x\n4294967295,max\n-1,minus1\n1,one\n2147483648,mid\n-2147483648,negmid\n");
        assertThat(join(unsigned(), csv, "u32")).as(err).isZero();
        assertThat(rows()).containsExactly("1,1,one,1,one", "2147483648,128,mid,2147483648,mid",
                "4294967295,255,max,4294967295,max");

        Path signed = ParquetTestFiles.write(dir.resolve("i64.parquet"), List.of(column("k", INT64, null),
                column("x", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType())),
                row(4294967295L, "max"), row(-1L, "minus1"), row(1L, "one"), row(-2147483648L, "negmid"));
        assertThat(join(unsigned(), signed, "u32=k")).as(err).isZero();
        assertThat(rows()).containsExactly("1,1,one,1,one", "4294967295,255,max,4294967295,max");

        Path int8 = CsvTestFiles.write(dir, "u8.csv", "u8\n255\n-1\n128\n-128\n");
        assertThat(join(unsigned(), int8, "u8")).as(err).isZero();
        assertThat(rows()).containsExactly("2147483648,128,mid,128", "4294967295,255,max,255");
    }

    /**
     * An INT32 annotated INT(8) or INT(16) whose writer stored a value beyond the annotation's range (-1 for a
     * UINT16's 65535, as a Java writer of shorts may) is read as DuckDB reads it: the annotation's low bits, extended
     * by their sign when signed; the key joins by that value and is written as it.
     */
    @Test
    void narrowIntegersStoredBeyondTheirRangeAreReadAtTheirWidth() throws IOException {
        MessageType schema = new MessageType("m", column("s8", INT32, LogicalTypeAnnotation.intType(8, true)),
                column("u16", INT32, LogicalTypeAnnotation.intType(16, false)));
        Path parquet = ParquetTestFiles.writeWithParquetJava(dir.resolve("narrow.parquet"), schema, false,
                new Object[] {200, -1}, new Object[] {-56, 70_000}, new Object[] {127, 65_535});
        Path csv = CsvTestFiles.write(dir, "n.csv", "s8,u16,x\n-56,65535,a\n200,4464,b\n127,4294967295,c\n");
        assertThat(join(parquet, csv, "s8")).as(err).isZero();
        assertThat(rows()).containsExactly("-56,4464,-56,65535,a", "-56,65535,-56,65535,a",
                "127,65535,127,4294967295,c");
        assertThat(join(parquet, csv, "u16")).as(err).isZero();
        assertThat(rows()).containsExactly("-56,4464,200,4464,b", "-56,65535,-56,65535,a", "127,65535,-56,65535,a");
    }

    /** An INT96 of {@code nanos} nanoseconds after midnight of Julian day {@code day}, as stored (little-endian). */
    private static byte[] int96(long nanos, int day) {
        return java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(nanos).putInt(day)
                .array();
    }

    /**
     * INT96 keys of one instant stored with their nanoseconds beyond the day or below midnight (a day carried in
     * them, as a writer may leave them and DuckDB reads them) join the instant stored normalized, dictionary- and
     * plain-encoded, and are written as it: to CSV as its timestamp, to Parquet normalized.
     */
    @Test
    void int96KeysOfOneInstantJoinHoweverTheirDayAndNanosecondsSplitIt() throws IOException {
        long day = 86_400_000_000_000L;
        long noon = day / 2 + 123;
        MessageType left = new MessageType("m", column("k", PrimitiveTypeName.INT96, null), column("i", INT64, null));
        MessageType right = new MessageType("m", column("k", PrimitiveTypeName.INT96, null), column("j", INT64, null));
        for (boolean dictionary : new boolean[] {true, false}) {
            Path l = ParquetTestFiles.writeWithParquetJava(dir.resolve("l" + dictionary + ".parquet"), left,
                    dictionary, new Object[] {int96(noon, 2_460_000), 0L},
                    new Object[] {int96(noon + day, 2_459_999), 1L}, new Object[] {int96(noon - day, 2_460_001), 2L},
                    new Object[] {int96(noon + 3 * day, 2_459_997), 3L}, new Object[] {int96(-1, 2_460_001), 4L});
            Path r = ParquetTestFiles.writeWithParquetJava(dir.resolve("r" + dictionary + ".parquet"), right,
                    dictionary, new Object[] {int96(noon, 2_460_000), 0L},
                    new Object[] {int96(day - 1, 2_460_000), 1L});
            String noonText = "2023-02-24 12:00:00.000000123";
            String lastText = "2023-02-24 23:59:59.999999999";
            List<String> expected = List.of(noonText + ",0," + noonText + ",0", noonText + ",1," + noonText + ",0",
                    noonText + ",2," + noonText + ",0", noonText + ",3," + noonText + ",0",
                    lastText + ",4," + lastText + ",1");
            assertThat(join(l, r, "k")).as(err).isZero();
            assertThat(rows()).as("dictionary " + dictionary).isEqualTo(expected);

            Path parquet = dir.resolve("out" + dictionary + ".parquet");
            assertThat(join(l, r, "k", "--output", parquet.toString())).as(err).isZero();
            assertThat(join(parquet, r, "left.k=k", "--type", "semi")).as(err).isZero();
            assertThat(rows()).as("written normalized: it joins the normalized key").hasSize(5);
        }
    }

    @Test
    void unsigned64BitKeysPairOnlyWithEachOtherByTheirBits() throws IOException {
        PrimitiveType u64 = column("k", INT64, LogicalTypeAnnotation.intType(64, false));
        Path left = ParquetTestFiles.write(dir.resolve("a.parquet"), List.of(u64), row(-1L), row(1L), row(5L));
        Path right = ParquetTestFiles.write(dir.resolve("b.parquet"), List.of(u64), row(-1L), row(1L));
        assertThat(join(left, right, "k")).as(err).isZero();
        assertThat(rows()).containsExactly("1,1", "18446744073709551615,18446744073709551615");

        Path csv = CsvTestFiles.write(dir, "k.csv", "k\n-1\n1\n");
        assertThat(join(left, csv, "k")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("'k'").contains("INTEGER(64,false)").contains("k.csv")
                .contains("write the Parquet key again as a signed BIGINT");
        Path signed = ParquetTestFiles.write(dir.resolve("s.parquet"), List.of(column("k", INT64, null)), row(-1L));
        assertThat(join(left, signed, "k")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("s.parquet").contains("write it again as a signed BIGINT");
        assertThat(out).isEmpty();
    }

    // ------------------------------------------------------------------ CSV keys read as a Parquet partner's type

    /** Joins {@code csv} (key k) with a Parquet file of key k of {@code type} and name, one row per value. */
    private int joinCsvWith(String csv, PrimitiveType type, Object... values) throws IOException {
        Object[][] rows = new Object[values.length][];
        for (int i = 0; i < values.length; i++) {
            rows[i] = row(values[i], "p" + i);
        }
        Path parquet = ParquetTestFiles.write(dir.resolve("p.parquet"), List.of(type,
                column("name", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType())), rows);
        return join(CsvTestFiles.write(dir, "c.csv", "k,x\n" + csv), parquet, "k");
    }

    @Test
    void aCsvKeyPairedWithADecimalIsReadAsThatDecimalAndWrittenAsIt() throws IOException {
        assertThat(joinCsvWith("0.05,a\n0.1,b\n-5,c\n5,d\n+5.000,e\n7,f\n", column("k", INT64, decimal(10, 2)),
                5L, 10L, -500L, 500L)).as(err).isZero();
        assertThat(rows()).containsExactly("-5.00,c,-5.00,p2", "0.05,a,0.05,p0", "0.10,b,0.10,p1", "5.00,d,5.00,p3",
                "5.00,e,5.00,p3");

        assertThat(joinCsvWith("0.055,a\n", column("k", INT32, decimal(9, 2)), 5L)).isEqualTo(ExitCodes.INPUT);
        assertThat(err).contains("c.csv line 2: value '0.055'").contains("is not a DECIMAL(9,2)")
                .contains("--on-error skip");
        assertThat(joinCsvWith("12345678.9,a\n", column("k", INT32, decimal(9, 2)), 5L)).isEqualTo(ExitCodes.INPUT);
        assertThat(err).contains("is not a DECIMAL(9,2)");
    }

    @Test
    void aCsvKeyPairedWithADateTimestampOrTimeIsReadAsItsValue() throws IOException {
        long day = LogicalValueParser.daysFromCivil(2024, 1, 5);
        assertThat(joinCsvWith("2024-01-05,a\n1970-01-01,b\n2024-1-5,c\n", column("k", INT32,
                LogicalTypeAnnotation.dateType()), day, -1L)).as(err).isEqualTo(ExitCodes.INPUT);
        assertThat(err).contains("value '2024-1-5'").contains("is not a DATE (yyyy-mm-dd)");
        assertThat(joinCsvWith("2024-01-05,a\n1970-01-01,b\n1969-12-31,c\n", column("k", INT32,
                LogicalTypeAnnotation.dateType()), day, -1L)).as(err).isZero();
        assertThat(rows()).containsExactly("1969-12-31,c,1969-12-31,p1", "2024-01-05,a,2024-01-05,p0");

        long noon = day * 86_400_000L + 12 * 3_600_000L;
        assertThat(joinCsvWith("2024-01-05 12:00:00,a\n2024-01-05T12:00:00.001000,b\n2024-01-05,c\n"
                + "2024-01-05 12:00:00.0011,d\n", column("k", INT64, timestamp(false, MILLIS)), noon, noon + 1,
                day * 86_400_000L)).isEqualTo(ExitCodes.INPUT);
        assertThat(err).contains("value '2024-01-05 12:00:00.0011'").contains("is not a TIMESTAMP(MILLIS,false)");
        assertThat(joinCsvWith("2024-01-05 12:00:00,a\n2024-01-05T12:00:00.001000,b\n2024-01-05,c\n",
                column("k", INT64, timestamp(false, MILLIS)), noon, noon + 1, day * 86_400_000L)).as(err).isZero();
        assertThat(rows()).containsExactly("2024-01-05 00:00:00,c,2024-01-05 00:00:00,p2",
                "2024-01-05 12:00:00,a,2024-01-05 12:00:00,p0", "2024-01-05 12:00:00.001,b,2024-01-05 12:00:00.001,p1");

        assertThat(joinCsvWith("2024-01-05 12:00:00+00,a\n2024-01-05 12:00:00.000001Z,b\n",
                column("k", INT64, timestamp(true, MICROS)), noon * 1000, noon * 1000 + 1)).as(err).isZero();
        assertThat(rows()).containsExactly("2024-01-05 12:00:00+00,a,2024-01-05 12:00:00+00,p0",
                "2024-01-05 12:00:00.000001+00,b,2024-01-05 12:00:00.000001+00,p1");

        assertThat(joinCsvWith("12:34:56.1,a\n00:00:00,b\n", column("k", INT32,
                LogicalTypeAnnotation.timeType(false, MILLIS)), 45_296_100L, 0L)).as(err).isZero();
        assertThat(rows()).containsExactly("00:00:00,b,00:00:00,p1", "12:34:56.1,a,12:34:56.1,p0");

        // the end of the day, which DuckDB stores and writes as 24:00:00 (and spilljoin's CSV output too)
        assertThat(joinCsvWith("24:00:00,a\n24:00:00.000,b\n", column("k", INT32,
                LogicalTypeAnnotation.timeType(false, MILLIS)), 86_400_000L)).as(err).isZero();
        assertThat(rows()).containsExactly("24:00:00,a,24:00:00,p0", "24:00:00,b,24:00:00,p0");
        for (String beyond : List.of("24:00:00.001", "24:00:01", "24:01:00")) {
            assertThat(joinCsvWith(beyond + ",a\n", column("k", INT32, LogicalTypeAnnotation.timeType(false, MILLIS)),
                    86_400_000L)).as(beyond).isEqualTo(ExitCodes.INPUT);
        }
        assertThat(joinCsvWith("2024-01-05 24:00:00,a\n", column("k", INT64, timestamp(false, MILLIS)),
                (day + 1) * 86_400_000L)).as(err).isZero();
        assertThat(rows()).as("in a timestamp, the next day's midnight")
                .containsExactly("2024-01-06 00:00:00,a,2024-01-06 00:00:00,p0");
    }

    @Test
    void aCsvKeyPairedWithAUuidIsReadAsItsSixteenBytesInAnySpelling() throws IOException {
        byte[] uuid = java.nio.ByteBuffer.allocate(16).putLong(0x123e4567e89b12d3L).putLong(0xa456426614174000L)
                .array();
        String text = "123e4567-e89b-12d3-a456-426614174000";
        assertThat(joinCsvWith(text + ",a\n" + text.toUpperCase() + ",b\n{" + text + "},c\n"
                + text.replace("-", "") + ",d\n", column("k", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY,
                LogicalTypeAnnotation.uuidType()), uuid)).as(err).isZero();
        assertThat(rows()).containsExactly(text + ",a," + text + ",p0", text + ",b," + text + ",p0",
                text + ",c," + text + ",p0", text + ",d," + text + ",p0");

        Path parquetOut = dir.resolve("out.parquet");
        assertThat(join(dir.resolve("c.csv"), dir.resolve("p.parquet"), "k", "--output", parquetOut.toString()))
                .as(err).isZero();
        assertThat(join(parquetOut, dir.resolve("p.parquet"), "left.k=k")).as(err).isZero();
        assertThat(rows()).as("the CSV key written to Parquet as the partner's UUID").hasSize(4)
                .allMatch(line -> line.startsWith(text + ","));
    }

    @Test
    void aDeclaredCsvKeyOrAParquetTypeTextIsNotReadAsIsRefusedWithAFixThatWorks() throws IOException {
        assertThat(joinCsvWith("0.05,a\n", column("k", INT64, decimal(10, 2)), 5L)).isZero();
        assertThat(join(dir.resolve("c.csv"), dir.resolve("p.parquet"), "k", "--schema-left", "k:bigint"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("drop 'k' from --schema-left");

        assertThat(joinCsvWith("1,a\n", column("k", PrimitiveTypeName.INT96, null), new byte[12]))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("INT96").contains("write the Parquet key as a TIMESTAMP");
        assertThat(out).isEmpty();
    }

    // ------------------------------------------------------------------ two Parquet keys

    static Stream<Arguments> parquetPairsThatDoNotPair() {
        return Stream.of(
                Arguments.of(column("k", INT64, decimal(12, 2)), column("k", INT64, decimal(18, 10)),
                        "write the files again with both keys cast to DECIMAL(20,10)"),
                Arguments.of(column("k", INT64, timestamp(true, MICROS)), column("k", INT64, timestamp(false, MICROS)),
                        "with or without UTC adjustment"),
                Arguments.of(column("k", INT64, timestamp(true, MILLIS)), column("k", INT64, timestamp(false, NANOS)),
                        "with or without UTC adjustment"),
                Arguments.of(column("k", INT32, LogicalTypeAnnotation.dateType()), column("k", INT64,
                        timestamp(true, MICROS)), "write one file again with its key cast to the other's type"),
                Arguments.of(column("k", INT32, LogicalTypeAnnotation.timeType(true, MILLIS)), column("k", INT64,
                        LogicalTypeAnnotation.timeType(true, MICROS)), "write one file again with its key cast"),
                Arguments.of(column("k", INT32, LogicalTypeAnnotation.dateType()), column("k", INT32, null),
                        "write one file again with its key cast to the other's type"));
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("parquetPairsThatDoNotPair")
    void parquetKeysWhoseStoredValuesMeanDifferentThingsAreRefusedNamingBoth(PrimitiveType a, PrimitiveType b,
                                                                              String fix) throws IOException {
        Path left = ParquetTestFiles.write(dir.resolve("a.parquet"), List.of(a), row(100L));
        Path right = ParquetTestFiles.write(dir.resolve("b.parquet"), List.of(b), row(100L));
        assertThat(join(left, right, "k")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.lines()).hasSize(1);
        assertThat(err).contains("left 'k' is Parquet", "a.parquet", "right 'k' is ", "b.parquet", fix);
        assertThat(out).isEmpty();
    }

    @Test
    void decimalsOfOneScalePairWhateverTheirPrecisionAndFollowingTheCastHintJoins() throws IOException {
        Path left = ParquetTestFiles.write(dir.resolve("a.parquet"), List.of(column("k", INT32, decimal(9, 3))),
                row(50L), row(1L));
        Path right = ParquetTestFiles.write(dir.resolve("b.parquet"), List.of(column("k", INT64, decimal(11, 3))),
                row(50L), row(2L));
        assertThat(join(left, right, "k")).as(err).isZero();
        assertThat(rows()).containsExactly("0.050,0.050");
    }

    @Test
    void aWholeDecimalPairsWithAParquetIntegerKeyByValue() throws IOException {
        PrimitiveType fixed = org.apache.parquet.schema.Types.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
                .length(5).as(decimal(10, 0)).named("k");
        Path whole = ParquetTestFiles.write(dir.resolve("whole.parquet"), List.of(fixed), row(5L), row(-7L),
                row(9_999_999_999L));
        Path int32 = ParquetTestFiles.write(dir.resolve("i32.parquet"), List.of(column("k", INT32, null)), row(5L),
                row(-7L), row(8L));
        assertThat(join(whole, int32, "k")).as(err).isZero();
        assertThat(rows()).containsExactly("-7,-7", "5,5");
        Path int64 = ParquetTestFiles.write(dir.resolve("i64.parquet"), List.of(column("k", INT64, null)),
                row(9_999_999_999L), row(-7L));
        assertThat(join(int64, whole, "k")).as(err).isZero();
        assertThat(rows()).containsExactly("-7,-7", "9999999999,9999999999");

        Path scaled = ParquetTestFiles.write(dir.resolve("scaled.parquet"), List.of(column("k", INT64,
                decimal(10, 2))), row(500L));
        assertThat(join(scaled, int64, "k")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("DECIMAL(10,2)", "write one file again with its key cast to the other's type");
    }

    // ------------------------------------------------------------------ Parquet keys compared in a common unit

    static Stream<Arguments> pairsInACommonUnit() {
        LogicalTypeAnnotation date = LogicalTypeAnnotation.dateType();
        long day = 86_400_000L;
        return Stream.of(
                // DECIMAL(10,2) with DECIMAL(10,3): 1.50 = 1.500, -0.05 = -0.050, 0; 1.501 and 0.001 match nothing
                Arguments.of(column("k", INT64, decimal(10, 2)), column("k", INT64, decimal(10, 3)),
                        new Object[] {150L, -5L, 0L, 9_999_999_999L, null, 12L},
                        new Object[] {1_500L, -50L, 0L, 1_501L, 1L, null},
                        List.of("-0.05,-0.050", "0.00,0.000", "1.50,1.500")),
                // DECIMAL(9,2) with an INT32: 5.00 = 5, -7.00 = -7; 5.10 and 5.01 are no integer
                Arguments.of(column("k", INT32, decimal(9, 2)), column("k", INT32, null),
                        new Object[] {500L, -700L, 510L, 501L, 0L, 999_999_999L},
                        new Object[] {5L, -7L, 6L, 0L, 2_147_483_647L, -2_147_483_648L},
                        List.of("-7.00,-7", "0.00,0", "5.00,5")),
                // an INT(16) with DECIMAL(10,2), the decimal on the right
                Arguments.of(column("k", INT32, LogicalTypeAnnotation.intType(16, true)),
                        column("k", INT64, decimal(10, 2)), new Object[] {-32_768L, 32_767L, 3L},
                        new Object[] {-3_276_800L, 3_276_700L, 301L, 300L},
                        List.of("-32768,-32768.00", "3,3.00", "32767,32767.00")),
                // TIMESTAMP in MILLIS with NANOS: equal instants; a nanosecond off matches nothing; infinities
                Arguments.of(column("k", INT64, timestamp(false, MILLIS)), column("k", INT64, timestamp(false, NANOS)),
                        new Object[] {1L, -1L, 0L, Long.MAX_VALUE, -Long.MAX_VALUE},
                        new Object[] {1_000_000L, -1_000_000L, 1L, Long.MAX_VALUE, -Long.MAX_VALUE, -999_999L},
                        List.of("-infinity,-infinity", "1969-12-31 23:59:59.999,1969-12-31 23:59:59.999",
                                "1970-01-01 00:00:00.001,1970-01-01 00:00:00.001", "infinity,infinity")),
                // TIMESTAMP in MICROS, adjusted to UTC, with MILLIS, adjusted too
                Arguments.of(column("k", INT64, timestamp(true, MICROS)), column("k", INT64, timestamp(true, MILLIS)),
                        new Object[] {1_000L, 1_001L}, new Object[] {1L, 2L},
                        List.of("1970-01-01 00:00:00.001+00,1970-01-01 00:00:00.001+00")),
                // TIME in MILLIS (INT32) with NANOS
                Arguments.of(column("k", INT32, LogicalTypeAnnotation.timeType(false, MILLIS)),
                        column("k", INT64, LogicalTypeAnnotation.timeType(false, NANOS)),
                        new Object[] {3_723_004L, 0L}, new Object[] {3_723_004_000_000L, 3_723_004_000_001L},
                        List.of("01:02:03.004,01:02:03.004")),
                // a DATE with a TIMESTAMP in MILLIS: the date's midnight; infinities
                Arguments.of(column("k", INT32, date), column("k", INT64, timestamp(false, MILLIS)),
                        new Object[] {0L, -1L, 19_723L, (long) Integer.MAX_VALUE, (long) -Integer.MAX_VALUE},
                        new Object[] {0L, -day, 19_723L * day + 1, Long.MAX_VALUE, -Long.MAX_VALUE},
                        List.of("-infinity,-infinity", "1969-12-31,1969-12-31 00:00:00",
                                "1970-01-01,1970-01-01 00:00:00", "infinity,infinity")));
    }

    /**
     * The two keys join by value in every join type, in memory and spilled, built on either side, and each side's key
     * is written as its own stored value: as text (the expected inner rows, and the outer joins' unmatched rows), and
     * to Parquet, whose output joined again with the right input on the right key gives the same rows.
     */
    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("pairsInACommonUnit")
    void parquetKeysOfOneKindJoinByValueInTheirCommonUnitAndKeepTheirValues(PrimitiveType a, PrimitiveType b,
            Object[] leftKeys, Object[] rightKeys, List<String> inner) throws IOException {
        Path left = ParquetTestFiles.write(dir.resolve("a.parquet"), List.of(a), rows(leftKeys));
        Path right = ParquetTestFiles.write(dir.resolve("b.parquet"), List.of(b), rows(rightKeys));
        for (String build : List.of("left", "right")) {
            for (String workMem : List.of("64MB", "64kB")) {
                assertThat(join(left, right, "k", "--build-side", build, "--work-mem", workMem)).as(err).isZero();
                assertThat(rows()).as(build + ", " + workMem).isEqualTo(inner);
            }
        }
        assertThat(join(left, right, "k", "--type", "full")).as(err).isZero();
        List<String> full = rows();
        assertThat(full).containsAll(inner).hasSize(inner.size() + leftKeys.length + rightKeys.length
                - 2 * inner.size());
        assertThat(join(left, right, "k")).as(err).isZero();
        String[] header = out.lines().findFirst().orElseThrow().split(",");
        assertThat(join(left, right, "k", "--type", "left")).as(err).isZero();
        assertThat(rows()).containsAll(inner).hasSize(leftKeys.length);
        assertThat(join(left, right, "k", "--type", "semi")).as(err).isZero();
        assertThat(rows()).isEqualTo(inner.stream().map(line -> line.substring(0, line.indexOf(','))).sorted()
                .toList());
        assertThat(join(left, right, "k", "--type", "anti")).as(err).isZero();
        assertThat(rows()).hasSize(leftKeys.length - inner.size());
        assertThat(join(left, right, "k", "--type", "right")).as(err).isZero();
        assertThat(rows()).containsAll(inner).hasSize(rightKeys.length);

        Path parquetOut = dir.resolve("out.parquet");
        assertThat(join(left, right, "k", "--type", "full", "--output", parquetOut.toString())).as(err).isZero();
        assertThat(join(parquetOut, parquetOut, header[0] + "=" + header[0] + "," + header[1] + "=" + header[1]))
                .as(err).isZero();
        assertThat(rows()).as("the Parquet output's keys, read back")
                .isEqualTo(inner.stream().map(line -> line + "," + line).sorted().toList());
        assertThat(join(parquetOut, right, header[1] + "=k", "--type", "semi", "--output", "-")).as(err).isZero();
        assertThat(out.lines().count() - 1).as("the right keys written to Parquet join the right input")
                .isEqualTo(full.stream().filter(line -> !line.endsWith(",")).count());
    }

    private static Object[][] rows(Object[] keys) {
        return Arrays.stream(keys).map(key -> new Object[] {key}).toArray(Object[][]::new);
    }

    @Test
    void aValueBeyondTheCommonUnitIsRefusedNamingFileAndColumn() throws IOException {
        Path millis = ParquetTestFiles.write(dir.resolve("ms.parquet"), List.of(column("k", INT64,
                timestamp(false, MILLIS))), row(0L), row(32_503_680_000_000L)); // 3000-01-01
        Path nanos = ParquetTestFiles.write(dir.resolve("ns.parquet"), List.of(column("k", INT64,
                timestamp(false, NANOS))), row(0L));
        assertThat(join(millis, nanos, "k")).isEqualTo(ExitCodes.INPUT);
        assertThat(err.lines()).hasSize(1);
        assertThat(err).contains(millis.toString(), "'k'", "32503680000000", "TIMESTAMP in NANOS",
                "beyond a 64-bit integer");
        assertThat(out).isEmpty();
    }

    @Test
    void aKeyColumnInTwoPairsScaledDifferentlyIsRefused() throws IOException {
        Path left = ParquetTestFiles.write(dir.resolve("a.parquet"), List.of(column("k", INT64, decimal(10, 2))),
                row(100L));
        Path right = ParquetTestFiles.write(dir.resolve("b.parquet"), List.of(column("x", INT64, decimal(10, 3)),
                column("y", INT64, decimal(10, 2))), row(1_000L, 100L));
        assertThat(join(left, right, "k=x,k=y")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("'k' is in two key pairs", "DECIMAL(11,3)", "pair it with keys of one type")
                .doesNotContain("--schema"); // which a Parquet side refuses
    }
}
