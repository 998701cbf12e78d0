package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.xerial.snappy.Snappy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parquet in and out against DuckDB (issue 17): DuckDB writes both inputs (every supported type, NULLs, several row
 * groups, dictionary-encoded and plain columns, the compression of the case), spilljoin joins them into a Parquet
 * file, and DuckDB finds in it exactly the rows of its own join of the same files (EXCEPT ALL both ways and the
 * counts), with the input types kept. Every join type runs in memory (64 MB) and spilled (512 KB; the stats must show
 * spilling). Also: a directory and a glob of part files (and a directory laid out as Spark writes one), a row group
 * larger than the heap, key type hints that fit each side's format, a Parquet side joined to a CSV side, CSV output
 * of Parquet columns (dates, timestamps, times, decimals, UUIDs) equal to DuckDB's CSV field by field, and the
 * one-line errors (exit 3, nothing left behind) for a truncated file, a nested column and a part file without the
 * key column.
 */
class ParquetJoinTest extends ParquetDuckDbTest {
    /** Left: 20,000 rows in row groups of 4,096: keys k (INT32, with NULLs) and tag, every supported type. */
    private static final String LEFT = "SELECT i AS id, (i % 997)::INTEGER AS k, 'tag' || (i % 3) AS tag,"
            + " CASE WHEN i % 11 = 0 THEN NULL ELSE 'name' || (i % 50) END AS dict_text,"
            + " CASE WHEN i % 13 = 0 THEN NULL ELSE md5(i::VARCHAR) END AS plain_text,"
            + " CASE WHEN i % 7 = 0 THEN NULL ELSE i / 8.0 END::DOUBLE AS d, (i / 4.0)::FLOAT AS f, i % 2 = 0 AS b,"
            + " DATE '2020-01-01' + (i % 1000)::INTEGER AS dt, TIMESTAMP '2021-06-01 12:00:00' + to_seconds(i) AS ts,"
            + " (i / 100.0)::DECIMAL(10, 2) AS dec, (i * 1000)::DECIMAL(38, 3) AS wide_dec,"
            + " ('\\x' || lpad(to_hex(i % 256), 2, '0'))::BLOB AS bin, uuid() AS u,"
            + " CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 997)::INTEGER END AS k_nullable"
            + " FROM range(20000) t(i)";
    /** Right: keys rk (INT64, compared with left's INT32 as BIGINT) and rtag; some keys match nothing. */
    private static final String RIGHT = "SELECT (i % 5000)::BIGINT AS rk, 'tag' || (i % 4) AS rtag,"
            + " CASE WHEN i % 5 = 0 THEN NULL ELSE i * 3 END AS rv, 'r' || i AS rname FROM range(30000) t(i)";

    @ParameterizedTest(name = "{0} join, {1} compression, --work-mem {2}")
    @CsvSource({
        "inner, zstd, 64MB", "inner, snappy, 512KB", "left, gzip, 64MB", "left, uncompressed, 512KB",
        "right, zstd, 512KB", "right, snappy, 64MB", "full, zstd, 64MB", "full, gzip, 512KB",
        "semi, snappy, 64MB", "semi, zstd, 512KB", "anti, uncompressed, 64MB", "anti, zstd, 512KB",
        "not-in, zstd, 64MB", "not-in, snappy, 512KB"})
    void joinEqualsDuckDbsJoin(String type, String compression, String workMem) throws Exception {
        Path left = write("left.parquet", LEFT, compression, 4096);
        Path right = write("right.parquet", RIGHT, compression, 1024);
        assertThat(count("(SELECT DISTINCT row_group_id FROM parquet_metadata('" + left + "'))"))
                .as("row groups of the left file").isGreaterThan(3);
        assertThat(count("(SELECT 1 FROM parquet_metadata('" + left + "') WHERE path_in_schema = 'dict_text' AND"
                + " encodings LIKE '%DICTIONARY%')")).as("dictionary-encoded chunks").isPositive();
        assertThat(count("(SELECT 1 FROM parquet_metadata('" + left + "') WHERE path_in_schema = 'plain_text' AND"
                + " encodings NOT LIKE '%DICTIONARY%')")).as("plain-encoded chunks").isPositive();
        Path out = dir.resolve("out.parquet");
        Path stats = dir.resolve("stats.json");
        boolean notIn = type.equals("not-in");
        String on = notIn ? "k_nullable=rk" : "k=rk,tag=rtag";
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", on, "--type", type,
                "--work-mem", workMem, "--output", out.toString(), "--compression", compression.equals("uncompressed")
                        ? "none" : compression, "--spill-dir", spillDir().toString(), "--stats", stats.toString());
        assertThat(run.code).as(run.err).isZero();
        String spilled = Files.readString(stats).replaceAll("(?s).*\"spilled_bytes_build\":(\\d+).*", "$1");
        assertThat(Long.parseLong(spilled) > 0).as("spilled (" + workMem + ")").isEqualTo(workMem.equals("512KB"));
        String l = "read_parquet('" + left + "')";
        String r = "read_parquet('" + right + "')";
        String cond = notIn ? "l.k_nullable = r.rk" : "l.k = r.rk AND l.tag = r.rtag";
        String expected = switch (type) {
            case "inner" -> "SELECT l.*, r.* FROM " + l + " l JOIN " + r + " r ON " + cond;
            case "left" -> "SELECT l.*, r.* FROM " + l + " l LEFT JOIN " + r + " r ON " + cond;
            case "right" -> "SELECT l.*, r.* FROM " + l + " l RIGHT JOIN " + r + " r ON " + cond;
            case "full" -> "SELECT l.*, r.* FROM " + l + " l FULL JOIN " + r + " r ON " + cond;
            case "semi" -> "SELECT l.* FROM " + l + " l WHERE EXISTS (SELECT 1 FROM " + r + " r WHERE " + cond + ")";
            case "anti" -> "SELECT l.* FROM " + l + " l WHERE NOT EXISTS (SELECT 1 FROM " + r + " r WHERE " + cond
                    + ")";
            default -> "SELECT l.* FROM " + l + " l WHERE l.k_nullable NOT IN (SELECT rk FROM " + r + " r)";
        };
        assertSameRows("read_parquet('" + out + "')", expected);
        assertThat(types("read_parquet('" + out + "')")).as("output column types").isEqualTo(
                type.equals("semi") || type.equals("anti") || notIn ? types(l)
                        : Stream.concat(types(l).stream(), types(r).stream()).toList());
        assertThat(leftovers()).as("files besides the inputs and the output").isEmpty();
    }

    /**
     * Integer columns of more distinct values than a 1 MB dictionary holds (INT64, INT32, DATE, DECIMAL(9,2) as INT32,
     * an INT64 with NULLs) fall back from dictionary encoding to DELTA_BINARY_PACKED in spilljoin's output, a string
     * column to PLAIN; DuckDB reads the file back as its own join's rows, types kept.
     */
    @Test
    void deltaEncodedIntegerOutputReadsBackAsDuckDbsJoin() throws Exception {
        Path left = write("left.parquet", "SELECT i::BIGINT AS k, (i * 2654435761 % 4294967291)::BIGINT AS big,"
                + " (i * 40503 % 2147483647)::INTEGER AS small, DATE '1900-01-01' + i::INTEGER AS day,"
                + " (i * 7 % 100000000 / 100.0)::DECIMAL(9,2) AS price,"
                + " CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 31)::BIGINT END AS sometimes"
                + " FROM range(400000) t(i)", "snappy", 100_000);
        Path right = write("right.parquet", "SELECT i::BIGINT AS rk, 'r' || (i * 7919) AS rname"
                + " FROM range(400000) t(i)", "snappy", 100_000);
        Path out = dir.resolve("out.parquet");
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", "k=rk", "--work-mem",
                "64MB", "--output", out.toString(), "--spill-dir", spillDir().toString());
        assertThat(run.code).as(run.err).isZero();
        String chunks = "parquet_metadata('" + out + "')";
        for (String column : List.of("k", "big", "small", "day", "price", "sometimes", "rk")) {
            assertThat(count("(SELECT 1 FROM " + chunks + " WHERE path_in_schema = '" + column + "' AND encodings"
                    + " LIKE '%DELTA_BINARY_PACKED%')")).as(column + " chunks delta-encoded").isPositive();
        }
        assertThat(count("(SELECT 1 FROM " + chunks + " WHERE path_in_schema = 'rname' AND encodings"
                + " LIKE '%DELTA%')")).as("rname chunks delta-encoded").isZero();
        String l = "read_parquet('" + left + "')";
        String r = "read_parquet('" + right + "')";
        assertSameRows("read_parquet('" + out + "')",
                "SELECT l.*, r.* FROM " + l + " l JOIN " + r + " r ON l.k = r.rk");
        assertThat(types("read_parquet('" + out + "')")).as("output column types")
                .isEqualTo(Stream.concat(types(l).stream(), types(r).stream()).toList());
        assertThat(leftovers()).as("files besides the inputs and the output").isEmpty();
    }

    @Test
    void directoryAndGlobOfPartFilesJoinLikeOneFile() throws Exception {
        Path parts = Files.createDirectory(dir.resolve("parts"));
        write("parts/part-0.parquet", LEFT + " WHERE i < 7000", "snappy", 2048);
        write("parts/part-1.parquet", LEFT + " WHERE i >= 7000", "zstd", 2048);
        Files.writeString(parts.resolve("_SUCCESS"), "");
        Path right = write("right.parquet", RIGHT, "zstd", 1024);
        String expected = "SELECT l.*, r.* FROM read_parquet('" + parts + "/*.parquet') l JOIN read_parquet('" + right
                + "') r ON l.k = r.rk AND l.tag = r.rtag";
        for (String input : List.of(parts.toString(), parts + "/part-*.parquet")) {
            Path out = dir.resolve("out.parquet");
            Files.deleteIfExists(out);
            Run run = spilljoin("--left", input, "--right", right.toString(), "--on", "k=rk,tag=rtag", "--output",
                    out.toString(), "--work-mem", "1MB", "--spill-dir", spillDir().toString());
            assertThat(run.code).as(run.err).isZero();
            assertSameRows("read_parquet('" + out + "')", expected);
        }
    }

    /**
     * A row group larger than the heap is read page by page: one row group of 96 MB (three INT64 columns of 4M rows
     * in 64 KB pages, uncompressed, written by parquet-java), joined by spilljoin in a JVM of 64 MB heap at
     * {@code --work-mem 1MB}, gives DuckDB's rows. (A reader holding whole row groups would run out of heap; the
     * reader before refused row groups above 64 MB.)
     */
    @Test
    void rowGroupLargerThanTheHeapIsReadPageByPage() throws Exception {
        Path left = oneRowGroup("left.parquet", 4_000_000);
        assertThat(count("(SELECT DISTINCT row_group_id FROM parquet_metadata('" + left + "'))")).isEqualTo(1);
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("SELECT sum(total_compressed_size)"
                + " FROM parquet_metadata('" + left + "')")) {
            rs.next();
            assertThat(rs.getLong(1)).as("bytes of the row group").isGreaterThan(90L << 20);
        }
        Path right = write("right.parquet", "SELECT (i * 997)::BIGINT AS rk, 'r' || i AS rname FROM range(3000) t(i)",
                "snappy", 1024);
        Path out = dir.resolve("out.parquet");
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", "-XX:+UseSerialGC"));
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--add-") || flag.startsWith("-Dchronicle") || flag.startsWith("-Ddisable")
                    || flag.startsWith("-Dbackground")) {
                command.add(flag);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "join", "--quiet",
                "--left", left.toString(), "--right", right.toString(), "--on", "k=rk", "--work-mem", "1MB",
                "--spill-dir", spillDir().toString(), "--output", out.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(text).isZero();
        assertSameRows("read_parquet('" + out + "')", "SELECT l.*, r.* FROM read_parquet('" + left + "') l JOIN"
                + " read_parquet('" + right + "') r ON l.k = r.rk");
        assertThat(count("read_parquet('" + out + "')")).isEqualTo(3000);
        assertThat(leftovers()).as("files besides the inputs and the output").isEmpty();
    }

    /**
     * A directory laid out as Spark's {@code df.write.parquet(dir)} leaves it: part files named
     * {@code part-NNNNN-<uuid>-c000.parquet}, a {@code _SUCCESS} marker and Hadoop's hidden {@code .crc} files beside
     * them, every column OPTIONAL in a message named {@code spark_schema} with Spark's row metadata in the footer,
     * INT32 ids, STRING names with NULLs, DATE days, DECIMAL(12,2) as INT64, DECIMAL(20,2) as
     * FIXED_LEN_BYTE_ARRAY(9) and an INT96 timestamp (Spark's default), which comes out as the same INT96. Written
     * with parquet-java's column writers (Spark's writer is built on them), not by Spark: running Spark from this
     * module is too heavy. It joins as DuckDB joins the part files, types kept.
     */
    @Test
    void sparkStyleDirectoryOfPartFilesJoins() throws Exception {
        Path spark = Files.createDirectory(dir.resolve("spark"));
        MessageType schema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT32).named("id")
                .optional(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("name")
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("amount")
                .optional(PrimitiveType.PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("day")
                .optional(PrimitiveType.PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12))
                .named("price")
                .optional(PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(9)
                .as(LogicalTypeAnnotation.decimalType(2, 20)).named("big")
                .optional(PrimitiveType.PrimitiveTypeName.INT96).named("ts")
                .named("spark_schema");
        String field = "{\"name\":\"%s\",\"type\":\"%s\",\"nullable\":true,\"metadata\":{}}";
        String rowMetadata = "{\"type\":\"struct\",\"fields\":[" + String.join(",", field.formatted("id", "integer"),
                field.formatted("name", "string"), field.formatted("amount", "long"), field.formatted("day", "date"),
                field.formatted("price", "decimal(12,2)"), field.formatted("big", "decimal(20,2)"),
                field.formatted("ts", "timestamp")) + "]}";
        Map<String, String> metadata = Map.of("org.apache.spark.version", "3.5.1",
                "org.apache.spark.sql.parquet.row.metadata", rowMetadata);
        for (int part = 0; part < 3; part++) {
            int first = part * 3000;
            String name = "part-0000" + part + "-8d3c5b1e-2f47-4f0a-9a61-5b0c2e7d9f13-c000.parquet";
            writeWithParquetJava(spark.resolve(name), schema, 3000, metadata, (i, columns) -> {
                int id = first + i;
                columns[0].write(id, 0, 1);
                if (id % 7 == 0) {
                    columns[1].writeNull(0, 0);
                } else {
                    columns[1].write(Binary.fromString("name" + id), 0, 1);
                }
                columns[2].write(id * 10L, 0, 1);
                columns[3].write(18_000 + id % 400, 0, 1);
                columns[4].write(id * 101L, 0, 1);
                columns[5].write(Binary.fromConstantByteArray(twosComplement(
                        BigInteger.valueOf(id - 4500).multiply(BigInteger.TEN.pow(15)), 9)), 0, 1);
                // INT96 as Spark writes timestamps: nanoseconds of the day, then the Julian day, little-endian
                columns[6].write(Binary.fromConstantByteArray(java.nio.ByteBuffer.allocate(12)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong((id % 86_400) * 1_000_000_000L + id)
                        .putInt(2_459_000 + id % 300).array()), 0, 1);
            });
            Files.writeString(spark.resolve("." + name + ".crc"), "crc");
        }
        Files.writeString(spark.resolve("_SUCCESS"), "");
        Files.writeString(spark.resolve("._SUCCESS.crc"), "crc");
        Path right = write("right.parquet", "SELECT (i * 3)::BIGINT AS rk, 'r' || i AS rname FROM range(4000) t(i)",
                "snappy", 1024);
        Path out = dir.resolve("out.parquet");
        Run run = spilljoin("--left", spark.toString(), "--right", right.toString(), "--on", "id=rk", "--output",
                out.toString(), "--work-mem", "1MB", "--spill-dir", spillDir().toString());
        assertThat(run.code).as(run.err).isZero();
        String l = "read_parquet('" + spark + "/*.parquet')";
        String r = "read_parquet('" + right + "')";
        assertSameRows("read_parquet('" + out + "')", "SELECT l.*, r.* FROM " + l + " l JOIN " + r
                + " r ON l.id = r.rk");
        assertThat(count("read_parquet('" + out + "')")).isEqualTo(3000);
        assertThat(types("read_parquet('" + out + "')")).as("output column types")
                .isEqualTo(Stream.concat(types(l).stream(), types(r).stream()).toList())
                .contains("DATE", "DECIMAL(12,2)", "DECIMAL(20,2)", "TIMESTAMP");
        assertThat(leftovers()).as("files besides the inputs and the output").isEmpty();
    }

    /**
     * DECIMAL keys join by value whatever their encoding, as DuckDB joins them: the left side's DECIMAL(10,2) and
     * DECIMAL(25,4) in BYTE_ARRAY with sign bytes in front of some values (0x0001 for 0x01, 0xFFFF for -1: parquet-java
     * writes what it is given, and writers differ), the right side's as INT64 and FIXED_LEN_BYTE_ARRAY(16), and a
     * DECIMAL(12,0) in BYTE_ARRAY with a plain INT64 key, written with parquet-java; each key joined to Parquet output, whose rows and column types are DuckDB's join of the
     * same files (DuckDB reads the output's keys back equal to its own).
     */
    @Test
    void decimalKeysStoredAnyWayJoinAsDuckDbJoinsThem() throws Exception {
        MessageType leftSchema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("id")
                .optional(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.decimalType(2, 10))
                .named("d10")
                .optional(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.decimalType(4, 25))
                .named("d25")
                .optional(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.decimalType(0, 12))
                .named("d0")
                .named("left");
        MessageType rightSchema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 10))
                .named("r10")
                .optional(PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(16)
                .as(LogicalTypeAnnotation.decimalType(4, 25)).named("r25")
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("rid")
                .named("right");
        BigInteger big = BigInteger.TEN.pow(24);
        Path left = writeWithParquetJava(dir.resolve("left.parquet"), leftSchema, 6000, Map.of(), (i, columns) -> {
            columns[0].write((long) i, 0, 1);
            BigInteger small = BigInteger.valueOf(i % 601 - 300);
            columns[1].write(Binary.fromConstantByteArray(twosComplement(small, small.toByteArray().length + i % 3)),
                    0, 1);
            if (i % 13 == 0) {
                columns[2].writeNull(0, 0);
            } else {
                BigInteger wide = i % 2 == 0 ? small : big.add(small).negate();
                columns[2].write(Binary.fromConstantByteArray(twosComplement(wide, wide.toByteArray().length
                        + i % 4)), 0, 1);
            }
            columns[3].write(Binary.fromConstantByteArray(twosComplement(small.add(BigInteger.valueOf(300)),
                    small.toByteArray().length + 1 + i % 2)), 0, 1);
        });
        Path right = writeWithParquetJava(dir.resolve("right.parquet"), rightSchema, 900, Map.of(), (i, columns) -> {
            BigInteger small = BigInteger.valueOf(i % 700 - 350);
            columns[0].write(small.longValueExact(), 0, 1);
            columns[1].write(Binary.fromConstantByteArray(twosComplement(i % 3 == 0 ? big.add(small).negate()
                    : small, 16)), 0, 1);
            columns[2].write((long) i, 0, 1);
        });
        assertKeysJoinAsDuckDb(left, right, List.of("DECIMAL(10,2)", "DECIMAL(25,4)", "DECIMAL(12,0)"), "d10=r10",
                "d25=r25", "d0=rid");
    }

    /**
     * Joins {@code left} and {@code right} on each of {@code pairs} ({@code l=r}) into Parquet output whose rows are
     * DuckDB's join of the files on {@code l.l = r.r} and whose column types are the inputs', {@code types} among them.
     */
    private void assertKeysJoinAsDuckDb(Path left, Path right, List<String> types, String... pairs) throws Exception {
        String l = "read_parquet('" + left + "')";
        String r = "read_parquet('" + right + "')";
        for (String pair : pairs) {
            Path out = dir.resolve("out.parquet");
            Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", pair, "--output",
                    out.toString(), "--spill-dir", spillDir().toString());
            assertThat(run.code).as(run.err).isZero();
            String[] keys = pair.split("=");
            assertSameRows("read_parquet('" + out + "')", "SELECT l.*, r.* FROM " + l + " l JOIN " + r + " r ON l."
                    + keys[0] + " = r." + keys[1]);
            assertThat(types("read_parquet('" + out + "')")).as("output column types of " + pair)
                    .isEqualTo(Stream.concat(types(l).stream(), types(r).stream()).toList()).containsAll(types);
        }
    }

    /**
     * Keys stored as writers may leave them, written with parquet-java, join as DuckDB reads them: INT96 timestamps
     * whose nanoseconds carry whole days or fall before midnight (DuckDB reads the instant they add up to), and
     * INT(8, true) and INT(16, false) columns holding values beyond their width (DuckDB keeps the low bits: 200 is
     * -56, -1 is 65535), each joined to normalized INT96 and INT64 keys into Parquet output whose rows and column
     * types are DuckDB's join of the same files.
     */
    @Test
    void int96AndNarrowIntegerKeysStoredOddlyJoinAsDuckDbJoinsThem() throws Exception {
        long day = 86_400_000_000_000L;
        MessageType leftSchema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("id")
                .optional(PrimitiveType.PrimitiveTypeName.INT96).named("ts")
                .optional(PrimitiveType.PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named("s8")
                .optional(PrimitiveType.PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, false))
                .named("u16")
                .named("left");
        MessageType rightSchema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT96).named("rts")
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("rk")
                .named("right");
        Path left = writeWithParquetJava(dir.resolve("left.parquet"), leftSchema, 3000, Map.of(), (i, columns) -> {
            columns[0].write((long) i, 0, 1);
            long nanos = i % 97 * 3_600_000_000_000L / 4 + i % 5 * 1000L; // whole microseconds, as DuckDB reads them
            int carried = i % 4 - 1; // days moved into the nanoseconds: -1, 0, 1 or 2
            columns[1].write(int96(nanos + carried * day, 2_460_000 + i % 7 - carried), 0, 1);
            columns[2].write(i % 400 - 100, 0, 1); // -100 .. 299: beyond 127 wraps
            columns[3].write(i % 3 == 0 ? -(i % 70) : i * 37, 0, 1); // negatives and beyond 65535 wrap
        });
        Path right = writeWithParquetJava(dir.resolve("right.parquet"), rightSchema, 1500, Map.of(), (i, columns) -> {
            columns[0].write(int96(i % 97 * 3_600_000_000_000L / 4 + i % 5 * 1000L, 2_460_000 + i % 7), 0, 1);
            columns[1].write((long) (i % 2 == 0 ? i * 45 - 70 : i - 200), 0, 1);
        });
        assertKeysJoinAsDuckDb(left, right, List.of("TIMESTAMP", "TINYINT", "USMALLINT"), "ts=rts", "s8=rk",
                "u16=rk");
    }

    /** An INT96 of {@code nanos} after midnight of Julian day {@code day}, as Spark stores it (little-endian). */
    private static Binary int96(long nanos, int day) {
        return Binary.fromConstantByteArray(java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(nanos).putInt(day).array());
    }

    /**
     * CSV output writes a Parquet column by its logical type as DuckDB's {@code COPY … TO 'x.csv'} does: DuckDB writes
     * DATE, TIMESTAMP (ms, µs, ns), TIMESTAMPTZ, TIME, TIMETZ, DECIMAL(4,2)/(18,3)/(38,10) (INT32, INT64,
     * FIXED_LEN_BYTE_ARRAY) and UUID columns with NULLs (before 1970, BC, leap days, year 9999, fractions with
     * and without trailing zeros, negative decimals); spilljoin left-joins the file to itself on an INTEGER and the
     * DATE key into CSV, and every field of every row equals DuckDB's CSV of its own join (session time zone UTC).
     */
    @Test
    void csvOutputOfParquetColumnsIsDuckDbsText() throws Exception {
        String micros = "(CASE i % 4 WHEN 0 THEN v WHEN 1 THEN v // 1000 * 1000 WHEN 2 THEN v // 1000000 * 1000000"
                + " ELSE v // 100000 * 100000 END)";
        String nearMicros = micros.replace("v", "(v % 9000000000000000)"); // within TIMESTAMP_NS's ±292 years
        String timestamp = "CASE WHEN i = 10 THEN 'infinity'::TIMESTAMP WHEN i = 11 THEN '-infinity'::TIMESTAMP ELSE"
                + " make_timestamp(" + micros + ") END";
        Path file = write("left.parquet", "SELECT i AS k,"
                + " CASE WHEN i % 9 = 4 THEN NULL WHEN i = 1 THEN DATE '0001-01-01' WHEN i = 2 THEN DATE '0001-01-01'"
                + " - 1 WHEN i = 3 THEN DATE '9999-12-31' WHEN i = 5 THEN DATE '2000-02-29' WHEN i = 6 THEN"
                + " DATE '1969-12-31' WHEN i = 7 THEN 'infinity'::DATE WHEN i = 8 THEN '-infinity'::DATE"
                + " ELSE DATE '1970-01-01' + ((i * 7919) % 800000 - 400000)::INTEGER END AS dt,"
                + " CASE WHEN i % 9 = 5 THEN NULL ELSE " + timestamp + " END AS ts,"
                + " CASE WHEN i % 9 = 6 THEN NULL ELSE (" + timestamp + ")::TIMESTAMP_MS END AS ts_ms,"
                + " CASE WHEN i % 9 = 7 THEN NULL WHEN i = 10 THEN 'infinity'::TIMESTAMP_NS ELSE"
                + " make_timestamp_ns(" + nearMicros + " * 1000 + i % 3 * 60) END AS ts_ns,"
                + " CASE WHEN i % 9 = 8 THEN NULL ELSE (" + timestamp + ")::TIMESTAMPTZ END AS tstz,"
                + " CASE WHEN i % 9 = 0 THEN NULL ELSE TIME '00:00:00' + to_microseconds(" + micros
                + " % 86400000000) END AS t,"
                + " CASE WHEN i % 9 = 1 THEN NULL ELSE (TIME '00:00:00' + to_microseconds(" + micros
                + " % 86400000000))::TIMETZ END AS ttz,"
                + " CASE WHEN i % 9 = 2 THEN NULL ELSE (((i * 37) % 19999 - 9999) / 100)::DECIMAL(4,2) END AS d4,"
                + " CASE WHEN i % 9 = 3 THEN NULL ELSE (v // 1000 / 1000)::DECIMAL(18,3) END AS d18,"
                + " CASE WHEN i % 9 = 4 THEN NULL WHEN i % 5 = 0 THEN (i / -1000)::DECIMAL(38,10) ELSE"
                + " (CASE WHEN i % 2 = 0 THEN '-' ELSE '' END || (i * 7919)::VARCHAR || lpad(((i * 104729)"
                + " % 100000000000)::VARCHAR, 20, '0') || '.' || lpad(((i * 31337) % 10000000000)::VARCHAR, 10, '0'))"
                + "::DECIMAL(38,10) END AS d38,"
                + " CASE WHEN i % 9 = 5 THEN NULL ELSE md5(i::VARCHAR)::UUID END AS u"
                + " FROM (SELECT i, (hash(i) % 400000000000000000)::BIGINT - 200000000000000000 AS v" // ±6,300 years
                + " FROM range(3000) t(i))", "snappy", 1024);
        assertThat(types("read_parquet('" + file + "')")).containsExactly("BIGINT", "DATE", "TIMESTAMP",
                "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE", "TIME", "TIME WITH TIME ZONE",
                "DECIMAL(4,2)", "DECIMAL(18,3)", "DECIMAL(38,10)", "UUID");
        assertThat(count("(SELECT 1 FROM parquet_schema('" + file + "') WHERE name = 'ts_ms' AND logical_type LIKE"
                + " '%MILLIS=MilliSeconds%')")).as("ts_ms in milliseconds").isOne();
        assertCsvIsDuckDbs(file, "left", "k,dt", "l.k = r.k AND l.dt = r.dt");
    }

    /**
     * The types DuckDB does not write, written by parquet-java: INT96 (Spark's default timestamp, whole
     * microseconds as Spark writes them), TIMESTAMP(MILLIS) not adjusted to UTC, TIME(MILLIS) in INT32 and
     * TIME(NANOS), DECIMAL(9,2) in INT32 and DECIMAL(30,6) in BYTE_ARRAY, unsigned INT(32) and INT(64), and
     * TIMESTAMP(NANOS) adjusted to UTC (DuckDB's TIMESTAMPTZ_NS); joined into CSV, their fields equal DuckDB's CSV
     * of the same join.
     */
    @Test
    void csvOutputOfTypesDuckDbDoesNotWriteIsDuckDbsText() throws Exception {
        MessageType schema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("k")
                .optional(PrimitiveType.PrimitiveTypeName.INT96).named("i96")
                .optional(PrimitiveType.PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MILLIS)).named("ts_ms")
                .optional(PrimitiveType.PrimitiveTypeName.INT32)
                .as(LogicalTypeAnnotation.timeType(false, LogicalTypeAnnotation.TimeUnit.MILLIS)).named("t_ms")
                .optional(PrimitiveType.PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timeType(false, LogicalTypeAnnotation.TimeUnit.NANOS)).named("t_ns")
                .optional(PrimitiveType.PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.decimalType(2, 9))
                .named("d9")
                .optional(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.decimalType(6, 30))
                .named("d30")
                .optional(PrimitiveType.PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false))
                .named("u32")
                .optional(PrimitiveType.PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.intType(64, false))
                .named("u64")
                .optional(PrimitiveType.PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.NANOS)).named("tstz_ns")
                .named("types");
        SplittableRandom random = new SplittableRandom(23);
        Path file = writeWithParquetJava(dir.resolve("left.parquet"), schema, 2000, Map.of(), (i, columns) -> {
            columns[0].write((long) i, 0, 1);
            for (int c = 1; c < columns.length; c++) {
                if ((i + c) % 11 == 0) {
                    columns[c].writeNull(0, 0);
                    continue;
                }
                long micros = random.nextLong(-100_000_000_000_000_000L, 100_000_000_000_000_000L); // ±3,170 years
                micros -= micros % (i % 3 == 0 ? 1 : i % 3 == 1 ? 1_000 : 1_000_000);
                switch (c) {
                    case 1 -> columns[c].write(Binary.fromConstantByteArray(java.nio.ByteBuffer.allocate(12)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(Math.floorMod(micros, 86_400_000_000L)
                                    * 1_000)
                            .putInt((int) (2_440_588 + Math.floorDiv(micros, 86_400_000_000L))).array()), 0, 1);
                    case 2 -> columns[c].write(micros / 1_000, 0, 1);
                    case 3 -> columns[c].write((int) Math.floorMod(micros / 1_000, 86_400_000L), 0, 1);
                    case 4 -> columns[c].write(Math.floorMod(micros, 86_400_000_000L) * 1_000, 0, 1);
                    case 5 -> columns[c].write((int) (micros % 1_000_000_000L), 0, 1);
                    case 6 -> columns[c].write(Binary.fromConstantByteArray(BigInteger.valueOf(micros)
                            .multiply(BigInteger.valueOf(micros % 100_000)).toByteArray()), 0, 1);
                    case 7 -> columns[c].write((int) micros, 0, 1);
                    case 8 -> columns[c].write(micros * 1_000, 0, 1);
                    default -> columns[c].write(micros % 9_000_000_000_000_000L * 1_000 + i % 3 * 70, 0, 1);
                }
            }
        });
        assertThat(types("read_parquet('" + file + "')")).containsExactly("BIGINT", "TIMESTAMP", "TIMESTAMP",
                "TIME", "TIME_NS", "DECIMAL(9,2)", "DECIMAL(30,6)", "UINTEGER", "UBIGINT", "TIMESTAMPTZ_NS");
        assertCsvIsDuckDbs(file, "inner", "k", "l.k = r.k");
    }

    /**
     * Joins {@code file} to itself ({@code type} join on {@code on}) into CSV and asserts that each row, field by
     * field, is the one in DuckDB's CSV of its own join of the file on {@code condition} (rows sorted; headers apart).
     */
    private void assertCsvIsDuckDbs(Path file, String type, String on, String condition) throws Exception {
        Path out = dir.resolve("out.csv");
        Run run = spilljoin("--left", file.toString(), "--right", file.toString(), "--on", on, "--type", type,
                "--output", out.toString());
        assertThat(run.code).as(run.err).isZero();
        Path expected = dir.resolve("plain.csv");
        try (Statement s = duck.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            s.execute("COPY (SELECT l.*, r.* FROM read_parquet('" + file + "') l " + type + " JOIN read_parquet('"
                    + file + "') r ON " + condition + ") TO '" + expected + "' (FORMAT csv, HEADER false)");
        }
        List<String> actualRows = Files.readAllLines(out);
        String[] names = actualRows.get(0).split(",");
        List<String> actual = actualRows.subList(1, actualRows.size()).stream().sorted().toList();
        List<String> duckRows = Files.readAllLines(expected).stream().sorted().toList();
        assertThat(actual).as("rows").hasSameSizeAs(duckRows).hasSizeGreaterThan(100);
        for (int r = 0; r < actual.size(); r++) {
            String[] fields = actual.get(r).split(",", -1);
            String[] duckFields = duckRows.get(r).split(",", -1);
            assertThat(fields).as("fields of row " + actual.get(r)).hasSameSizeAs(names);
            for (int c = 0; c < names.length; c++) {
                assertThat(fields[c]).as(names[c] + " of row " + actual.get(r)).isEqualTo(duckFields[c]);
            }
        }
    }

    /**
     * Data pages v2 (levels stored apart, values snappy-compressed; dictionary and delta encodings) join too, a
     * REQUIRED column (no definition levels at all) among them.
     */
    @Test
    void dataPagesV2Join() throws Exception {
        MessageType schema = Types.buildMessage()
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("k")
                .optional(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("tag")
                .optional(PrimitiveType.PrimitiveTypeName.INT64).named("v")
                .required(PrimitiveType.PrimitiveTypeName.INT32).named("r")
                .named("v2");
        ParquetProperties v2 = ParquetProperties.builder().withWriterVersion(
                ParquetProperties.WriterVersion.PARQUET_2_0).withPageSize(8 << 10).build();
        Path left = writeWithParquetJava(dir.resolve("left.parquet"), schema, 50_000, Map.of(), v2,
                CompressionCodecName.SNAPPY, (i, columns) -> {
                    columns[0].write((long) (i % 6000), 0, 1);
                    if (i % 9 == 0) {
                        columns[1].writeNull(0, 0);
                    } else {
                        columns[1].write(Binary.fromString("tag" + i % 40), 0, 1);
                    }
                    columns[2].write(i * 31L, 0, 1);
                    columns[3].write(i % 1000, 0, 0);
                });
        assertThat(count("(SELECT 1 FROM parquet_metadata('" + left + "') WHERE encodings LIKE '%DELTA%')"))
                .as("delta-encoded chunks").isPositive();
        Path right = write("right.parquet", RIGHT, "zstd", 1024);
        Path out = dir.resolve("out.parquet");
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", "k=rk", "--output",
                out.toString(), "--type", "left");
        assertThat(run.code).as(run.err).isZero();
        assertSameRows("read_parquet('" + out + "')", "SELECT l.*, r.* FROM read_parquet('" + left + "') l LEFT JOIN"
                + " read_parquet('" + right + "') r ON l.k = r.rk");
    }

    @Test
    void parquetJoinsCsvAndWritesCsvSideColumnsAsStrings() throws Exception {
        Path left = write("left.parquet", LEFT, "zstd", 4096);
        Path right = dir.resolve("right.csv");
        try (Statement s = duck.createStatement()) {
            s.execute("COPY (" + RIGHT + ") TO '" + right + "' (FORMAT csv, HEADER)");
        }
        Path out = dir.resolve("out.parquet");
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", "k=rk", "--output",
                out.toString());
        assertThat(run.code).as(run.err).isZero();
        assertSameRows("(SELECT id, k, rk, rv, rname FROM read_parquet('" + out + "'))",
                "SELECT l.id, l.k, r.rk, r.rv, r.rname FROM read_parquet('" + left + "') l JOIN read_csv('" + right
                        + "', all_varchar = true) r ON l.k = r.rk::BIGINT");
        assertThat(types("(SELECT rk, rv, rname FROM read_parquet('" + out + "'))"))
                .containsExactly("BIGINT", "VARCHAR", "VARCHAR");
    }

    /** Key type errors name only flags that apply: never a --schema flag for a Parquet side (its file types it). */
    @Test
    void keyTypeHintsFitEachSidesFormat() throws Exception {
        Path left = write("left.parquet", LEFT, "snappy", 4096);
        Path decimals = dir.resolve("right.csv");
        Files.writeString(decimals, "rk,rname\n1.5,a\n2.0,b\n");
        Run csvPartner = spilljoin("--left", left.toString(), "--right", decimals.toString(), "--on", "k=rk");
        assertThat(csvPartner.code).as(csvPartner.err).isEqualTo(2);
        assertThat(csvPartner.err).contains("--schema-right 'rk:integer'").doesNotContain("--schema-left");

        Path text = write("right.parquet", "SELECT 'x' || i AS rk FROM range(10) t(i)", "snappy", 1024);
        Run parquetPartner = spilljoin("--left", left.toString(), "--right", text.toString(), "--on", "k=rk");
        assertThat(parquetPartner.code).as(parquetPartner.err).isEqualTo(2);
        assertThat(parquetPartner.err).contains("both are Parquet columns").doesNotContain("--schema");

        Files.writeString(decimals, "rk,rname\n1,a\nx,b\n");
        Run badValue = spilljoin("--left", left.toString(), "--right", decimals.toString(), "--on", "k=rk",
                "--schema-right", "rk:integer", "--output", dir.resolve("out.csv").toString());
        assertThat(badValue.code).as(badValue.err).isEqualTo(3);
        assertThat(badValue.err).contains("'x'").doesNotContain("--schema-left");
        assertThat(badValue.err.split("--on-error skip", -1)).as("--on-error skip named once in " + badValue.err)
                .hasSize(2);
        assertThat(leftovers()).as("files besides the inputs").isEmpty();
    }

    @Test
    void truncatedFileIsOneLineNamingItExit3() throws Exception {
        Path whole = write("whole.parquet", LEFT, "zstd", 4096);
        Path truncated = dir.resolve("truncated.parquet");
        byte[] bytes = Files.readAllBytes(whole);
        Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        Path right = write("right.parquet", RIGHT, "zstd", 1024);
        assertInputError(spilljoin("--left", truncated.toString(), "--right", right.toString(), "--on", "k=rk",
                "--output", dir.resolve("out.parquet").toString()), truncated.toString());
    }

    @Test
    void corruptPageHeaderIsOneLineNamingFileAndColumnExit3() throws Exception {
        Path left = write("left.parquet", LEFT, "snappy", 4096);
        long offset;
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("SELECT data_page_offset FROM"
                + " parquet_metadata('" + left + "') WHERE row_group_id = 2 AND path_in_schema = 'k'")) {
            rs.next();
            offset = rs.getLong(1);
        }
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(left,
                java.nio.file.StandardOpenOption.WRITE)) {
            byte[] garbage = new byte[16];
            java.util.Arrays.fill(garbage, (byte) 0xFF);
            file.write(java.nio.ByteBuffer.wrap(garbage), offset);
        }
        Path right = write("right.parquet", RIGHT, "snappy", 1024);
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", "k=rk", "--output",
                dir.resolve("out.parquet").toString());
        assertInputError(run, left.toString());
        assertThat(run.err).contains("'k'");
    }

    @Test
    void nestedColumnIsRefusedNamingIt() throws Exception {
        Path left = write("nested.parquet", "SELECT i AS k, [i, i + 1] AS pair FROM range(10) t(i)", "zstd", 4096);
        Path right = write("right.parquet", RIGHT, "zstd", 1024);
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", "k=rk", "--output",
                dir.resolve("out.parquet").toString());
        assertInputError(run, "'pair'");
        assertThat(run.err).contains(left.toString()).contains("nested");
    }

    @Test
    void partFileWithoutTheKeyColumnIsRefusedNamingFileAndColumn() throws Exception {
        Files.createDirectory(dir.resolve("parts"));
        write("parts/part-0.parquet", "SELECT i AS k, i AS v FROM range(10) t(i)", "zstd", 4096);
        Path second = write("parts/part-1.parquet", "SELECT i AS v FROM range(10) t(i)", "zstd", 4096);
        Path right = write("right.parquet", RIGHT, "zstd", 1024);
        Run run = spilljoin("--left", dir.resolve("parts").toString(), "--right", right.toString(), "--on", "k=rk",
                "--output", dir.resolve("out.parquet").toString());
        assertInputError(run, "'k'");
        assertThat(run.err).contains(second.toString());
    }

    /** As Spark's append with another schema can leave it: the part file sorting first lacks the key column. */
    @Test
    void firstPartFileWithoutTheKeyColumnIsRefusedNamingFileAndColumn() throws Exception {
        Files.createDirectory(dir.resolve("parts"));
        Path first = write("parts/part-0.parquet", "SELECT i AS v FROM range(10) t(i)", "zstd", 4096);
        write("parts/part-1.parquet", "SELECT i AS k, i AS v FROM range(10) t(i)", "zstd", 4096);
        Path right = write("right.parquet", RIGHT, "zstd", 1024);
        Run run = spilljoin("--left", dir.resolve("parts").toString(), "--right", right.toString(), "--on", "k=rk",
                "--output", dir.resolve("out.parquet").toString());
        assertInputError(run, "'k'");
        assertThat(run.err).contains(first.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"csv.gz", "csv.zst"})
    void compressedCsvRoundTrips(String extension) throws Exception {
        Path left = dir.resolve("left." + extension);
        Path right = dir.resolve("right.csv");
        try (Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT i AS id, 'v' || i AS v FROM range(5000) t(i)) TO '" + dir.resolve("left.csv")
                    + "' (FORMAT csv, HEADER)");
            s.execute("COPY (" + RIGHT + ") TO '" + right + "' (FORMAT csv, HEADER)");
        }
        Run plain = spilljoin("--left", dir.resolve("left.csv").toString(), "--right", right.toString(), "--on",
                "id=rk", "--output", dir.resolve("plain.csv").toString(), "--threads", "1");
        assertThat(plain.code).as(plain.err).isZero();
        // the compressed input: spilljoin's own compressed output of the plain file (a semi join of it with itself)
        Run compress = spilljoin("--left", dir.resolve("left.csv").toString(), "--right", dir.resolve("left.csv")
                .toString(), "--on", "id", "--type", "semi", "--output", left.toString());
        assertThat(compress.code).as(compress.err).isZero();
        Path out = dir.resolve("out." + extension);
        Run run = spilljoin("--left", left.toString(), "--right", right.toString(), "--on", "id=rk", "--output",
                out.toString(), "--threads", "1");
        assertThat(run.code).as(run.err).isZero();
        String compression = extension.endsWith("gz") ? "gzip" : "zstd";
        assertSameRows("read_csv('" + out + "', compression = '" + compression + "', all_varchar = true)",
                "SELECT * FROM read_csv('" + dir.resolve("plain.csv") + "', all_varchar = true)");
        assertThat(count("read_csv('" + out + "', compression = '" + compression + "')")).isEqualTo(
                count("read_csv('" + dir.resolve("plain.csv") + "')")).isPositive();
    }

    private void assertInputError(Run run, String named) throws IOException {
        assertThat(run.code).as(run.err).isEqualTo(3);
        assertThat(run.err.strip().lines().count()).as(run.err).isEqualTo(1);
        assertThat(run.err).contains(named);
        assertThat(run.err).as("no Java object ids in the message").doesNotContainPattern("[A-Za-z]@[0-9a-f]{4,}");
        assertThat(leftovers()).as("files left behind").isEmpty();
    }

    /** The rows of {@code actual} and {@code expectedSql} are the same multiset, and there are some. */
    private void assertSameRows(String actual, String expectedSql) throws SQLException {
        long rows = count(actual);
        assertThat(rows).as("rows of the output").isEqualTo(count("(" + expectedSql + ")"));
        assertThat(count("(SELECT * FROM " + actual + " EXCEPT ALL (" + expectedSql + "))"))
                .as("output rows DuckDB's join does not have").isZero();
        assertThat(count("((" + expectedSql + ") EXCEPT ALL SELECT * FROM " + actual + ")"))
                .as("DuckDB's rows the output does not have").isZero();
    }

    private long count(String relation) throws SQLException {
        return ParquetDuckDb.count(duck, relation);
    }

    private List<String> types(String relation) throws SQLException {
        return ParquetDuckDb.types(duck, relation);
    }

    private Path write(String name, String query, String compression, int rowGroupRows) throws SQLException {
        Path file = dir.resolve(name);
        try (Statement s = duck.createStatement()) {
            s.execute("COPY (" + query + ") TO '" + file + "' (FORMAT parquet, COMPRESSION " + compression
                    + ", ROW_GROUP_SIZE " + rowGroupRows + ")");
        }
        return file;
    }

    /**
     * {@code rows} rows of three INT64 columns (k = row number, a and b from a SplittableRandom of seed 17) as one
     * uncompressed row group of 64 KB plain pages.
     */
    private Path oneRowGroup(String name, int rows) throws IOException {
        MessageType schema = Types.buildMessage().required(PrimitiveType.PrimitiveTypeName.INT64).named("k")
                .required(PrimitiveType.PrimitiveTypeName.INT64).named("a")
                .required(PrimitiveType.PrimitiveTypeName.INT64).named("b").named("big");
        SplittableRandom random = new SplittableRandom(17);
        return writeWithParquetJava(dir.resolve(name), schema, rows, Map.of(), (i, columns) -> {
            columns[0].write((long) i, 0, 0);
            columns[1].write(random.nextLong(), 0, 0);
            columns[2].write(random.nextLong(), 0, 0);
        });
    }

    /** {@code value} in {@code bytes} big-endian two's-complement bytes (a FIXED_LEN_BYTE_ARRAY decimal). */
    private static byte[] twosComplement(BigInteger value, int bytes) {
        byte[] minimal = value.toByteArray();
        byte[] out = new byte[bytes];
        java.util.Arrays.fill(out, 0, bytes - minimal.length, (byte) (value.signum() < 0 ? -1 : 0));
        System.arraycopy(minimal, 0, out, bytes - minimal.length, minimal.length);
        return out;
    }

    /** Writes row {@code i} to the column writers (one per column, in schema order). */
    private interface RowFiller {
        void fill(int i, ColumnWriter[] columns);
    }

    /**
     * A file of {@code rows} rows in one uncompressed row group of 64 KB plain v1 pages, written with parquet-java's
     * column writers (as Spark's writer is built on them), with {@code metadata} as the footer's key-value metadata.
     */
    private static Path writeWithParquetJava(Path file, MessageType schema, int rows, Map<String, String> metadata,
                                             RowFiller filler) throws IOException {
        return writeWithParquetJava(file, schema, rows, metadata, ParquetProperties.builder().withPageSize(64 << 10)
                .withDictionaryEncoding(false).build(), CompressionCodecName.UNCOMPRESSED, filler);
    }

    /** As above, with {@code properties} (page version, encodings) and pages compressed by {@code codec}. */
    private static Path writeWithParquetJava(Path file, MessageType schema, int rows, Map<String, String> metadata,
                                             ParquetProperties properties, CompressionCodecName codec,
                                             RowFiller filler) throws IOException {
        CompressionCodecFactory.BytesInputCompressor compressor = new CompressionCodecFactory.BytesInputCompressor() {
            @Override
            public BytesInput compress(BytesInput bytes) throws IOException {
                return codec == CompressionCodecName.SNAPPY ? BytesInput.from(Snappy.compress(bytes.toByteArray()))
                        : bytes;
            }

            @Override
            public CompressionCodecName getCodecName() {
                return codec;
            }

            @Override
            public void release() {
            }
        };
        ParquetFileWriter writer = new ParquetFileWriter(new LocalOutputFile(file), schema,
                ParquetFileWriter.Mode.CREATE, Long.MAX_VALUE, 0);
        writer.start();
        ColumnChunkPageWriteStore pages = new ColumnChunkPageWriteStore(compressor, schema,
                new HeapByteBufferAllocator(), 64);
        ColumnWriteStore store = properties.newColumnWriteStore(schema, pages);
        ColumnWriter[] columns = new ColumnWriter[schema.getColumns().size()];
        for (int c = 0; c < columns.length; c++) {
            columns[c] = store.getColumnWriter(schema.getColumns().get(c));
        }
        for (int i = 0; i < rows; i++) {
            filler.fill(i, columns);
            store.endRecord();
        }
        writer.startBlock(rows);
        store.flush();
        pages.flushToFileWriter(writer);
        writer.endBlock();
        writer.end(metadata);
        store.close();
        pages.close();
        return file;
    }

    private Path spillDir() throws IOException {
        Path spill = dir.resolve("spill");
        return Files.isDirectory(spill) ? spill : Files.createDirectory(spill);
    }

    /** Files in the temp dir besides DuckDB's, the inputs, the outputs and the (empty) spill directory. */
    private List<Path> leftovers() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !p.startsWith(dir.resolve("duck-tmp")) && !p.startsWith(dir.resolve("spark")))
                    .filter(p -> !p.getFileName().toString().matches(
                            "(left|right|out|plain|whole|truncated|nested|part-\\d|stats)\\..*|_SUCCESS"))
                    .toList();
        }
    }

    private record Run(int code, String err) {
    }

    private static Run spilljoin(String... args) {
        String[] full = Stream.concat(Stream.of("join", "--quiet"), Stream.of(args)).toArray(String[]::new);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(full, new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, err.toString(StandardCharsets.UTF_8));
    }
}
