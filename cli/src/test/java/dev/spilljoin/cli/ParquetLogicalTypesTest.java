package dev.spilljoin.cli;

import static dev.spilljoin.cli.ParquetTestFiles.column;
import static org.assertj.core.api.Assertions.assertThat;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MILLIS;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
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
 * their unsigned values.
 */
class ParquetLogicalTypesTest {
    @TempDir
    Path dir;
    private String out;
    private String err;

    private int run(String... args) {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        out = outBytes.toString(StandardCharsets.UTF_8);
        err = errBytes.toString(StandardCharsets.UTF_8);
        return code;
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
}
