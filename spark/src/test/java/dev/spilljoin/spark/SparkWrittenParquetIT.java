package dev.spilljoin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Parquet directories written by Spark itself ({@code df.write.parquet(dir)}: several snappy part files, a
 * {@code _SUCCESS} marker and Hadoop's {@code .crc} files, Spark's default physical types, checked in the footers:
 * TIMESTAMP as INT96, DECIMAL(10,2) as INT64, DECIMAL(25,4) as FIXED_LEN_BYTE_ARRAY(11), TIMESTAMP_NTZ as INT64
 * micros, DATE as INT32) joined by {@code bin/spilljoin}, the packaged CLI run as a
 * user runs it (Failsafe runs this after {@code package}; this module's pom dependency on cli packages cli first).
 * Every join type the CLI offers, in memory (64 MB) and spilled (1 MB, 128 kB for not-in: the stats must show it),
 * into CSV or into Parquet; the rows (order-free, NULLs included) equal Spark's own join of the same directories: CSV by its text
 * (Parquet columns printed by their logical types as the README says: a DATE as {@code yyyy-MM-dd}, an INT96 or
 * TIMESTAMP_NTZ as {@code yyyy-MM-dd HH:mm:ss[.ffffff]}, a DECIMAL as its exact decimal), Parquet read back by
 * Spark with the input types kept and the CLI's column names. A directory Spark appended a part file without the key
 * column to is refused in one line naming that file and the column, exit 3, nothing left behind.
 */
class SparkWrittenParquetIT {
    private static final Path LAUNCHER = Path.of("..", "bin", "spilljoin").toAbsolutePath().normalize();
    private static final String JAVA8_API = "spark.sql.datetime.java8API.enabled";
    private static final String IN_MEMORY = "64MB";
    /** 24,000 rows: int key k and string key tag (both with NULLs), then a payload column of every type. */
    private static final String[] LEFT = {
        "CASE WHEN id % 23 = 0 THEN NULL ELSE CAST(id % 4000 AS INT) END AS k",
        "CASE WHEN id % 31 = 0 THEN NULL ELSE concat('t', id % 3) END AS tag",
        "CASE WHEN id % 11 = 0 THEN NULL WHEN id % 11 = 1 THEN '' WHEN id % 11 = 2 THEN concat('a,\"q\"\\n', id)"
                + " ELSE concat('näme', id % 50) END AS name",
        "CASE WHEN id % 7 = 0 THEN NULL WHEN id % 7 = 1 THEN CAST(id AS DOUBLE) * 1e13 ELSE CAST(id AS DOUBLE) / 8"
                + " END AS amount",
        "CASE WHEN id % 13 = 0 THEN NULL ELSE date_add(DATE'1969-12-01', CAST(id % 20000 AS INT)) END AS day",
        "CASE WHEN id % 17 = 0 THEN NULL ELSE timestamp_micros(1622548800123456 + (id - 25000) * 86400000123)"
                + " END AS ts",
        "CASE WHEN id % 19 = 0 THEN NULL ELSE CAST(id * 1.37 - 30000 AS DECIMAL(10,2)) END AS price",
        "CASE WHEN id % 5 = 0 THEN NULL ELSE id % 2 = 0 END AS flag"};
    /** 16,000 rows: bigint key k and tag (with NULLs; k pairs with the left's int k as BIGINT), score for not-in. */
    private static final String[] RIGHT = {
        "CASE WHEN id % 19 = 0 THEN NULL ELSE id % 5000 END AS k",
        "CASE WHEN id % 29 = 0 THEN NULL ELSE concat('t', id % 4) END AS tag",
        "CASE WHEN id % 9 = 0 THEN NULL ELSE CAST(concat(CAST((id - 15000) * 123456789012345 AS STRING), '.',"
                + " lpad(CAST(id % 10000 AS STRING), 4, '0')) AS DECIMAL(25,4)) END AS big",
        "CASE WHEN id % 8 = 0 THEN NULL ELSE make_timestamp_ntz(2022, 1 + id % 12, 1 + id % 28, id % 24, id % 60,"
                + " CAST(id % 60000 AS DECIMAL(8,3)) / 1000) END AS ntz",
        "CAST(id % 5000 * 2 AS INT) AS score",
        "CASE WHEN id % 6 = 0 THEN NULL WHEN id % 6 = 1 THEN '' ELSE concat('n', id) END AS note",
        "CASE WHEN id % 4 = 0 THEN NULL ELSE id % 3 = 0 END AS flag"};
    private static final String[] LEFT_NAMES = names(LEFT);
    private static final String[] RIGHT_NAMES = names(RIGHT);

    @TempDir
    static Path shared;
    private static Path leftDir;
    private static Path rightDir;
    private static final Map<String, Expected> EXPECTED = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    @BeforeAll
    static void sparkWritesBothDirectories() {
        SparkSession spark = SharedSpark.session();
        spark.conf().set(JAVA8_API, "true");
        leftDir = shared.resolve("orders");
        rightDir = shared.resolve("customers");
        spark.range(24_000).selectExpr(LEFT).repartition(4).write().parquet(leftDir.toString());
        spark.range(16_000).selectExpr(RIGHT).repartition(3).write().parquet(rightDir.toString());
        for (Path written : List.of(leftDir, rightDir)) {
            assertThat(written.resolve("_SUCCESS")).as("Spark's marker").exists();
            assertThat(written.resolve("._SUCCESS.crc")).as("Hadoop's checksum file beside it").exists();
            assertThat(partFiles(written)).as("part files in " + written).hasSizeGreaterThan(2)
                    .allMatch(p -> p.getFileName().toString().matches("part-\\d{5}-.*\\.snappy\\.parquet"));
        }
        MessageType left = footerSchema(partFiles(leftDir).get(0));
        MessageType right = footerSchema(partFiles(rightDir).get(0));
        assertThat(describe(left)).as("the left part files' columns").containsExactly("k INT32", "tag BINARY STRING",
                "name BINARY STRING", "amount DOUBLE", "day INT32 DATE", "ts INT96", "price INT64 DECIMAL(10,2)",
                "flag BOOLEAN");
        assertThat(describe(right)).as("the right part files' columns").containsExactly("k INT64", "tag BINARY STRING",
                "big FIXED_LEN_BYTE_ARRAY DECIMAL(25,4)", "ntz INT64 TIMESTAMP(MICROS,false)", "score INT32",
                "note BINARY STRING", "flag BOOLEAN");
    }

    /** The schema in a part file's footer, read with Spark's own parquet-java; its column chunks are snappy. */
    private static MessageType footerSchema(Path partFile) {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(partFile.toUri()), new Configuration()))) {
            assertThat(reader.getRowGroups()).flatMap(BlockMetaData::getColumns)
                    .extracting(ColumnChunkMetaData::getCodec).containsOnly(CompressionCodecName.SNAPPY);
            return reader.getFileMetaData().getSchema();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> describe(MessageType schema) {
        return schema.getFields().stream().map(f -> f.getName() + " " + f.asPrimitiveType().getPrimitiveTypeName()
                + (f.getLogicalTypeAnnotation() == null ? "" : " " + f.getLogicalTypeAnnotation())).toList();
    }

    @AfterAll
    static void restoreTheSessionsDateTimeApi() {
        SharedSpark.session().conf().unset(JAVA8_API);
    }

    /**
     * Each join type in memory (64 MB) and spilled, one of the two into CSV and the other into Parquet, alternating
     * from type to type, so that both outputs are checked in memory and spilled (each run is a fresh process). Spilled
     * is 1 MB, but 128 kB for the not-in join: its build rows are the right side's INT key alone (5 bytes a row), and
     * 16,000 of them with their table fit in 1 MB.
     */
    static Stream<Arguments> runs() {
        List<String> types = List.of("inner", "left", "right", "full", "semi", "anti", "not-in");
        List<Arguments> runs = new ArrayList<>();
        for (int t = 0; t < types.size(); t++) {
            runs.add(Arguments.of(types.get(t), IN_MEMORY, t % 2 == 0 ? "csv" : "parquet"));
            runs.add(Arguments.of(types.get(t), types.get(t).equals("not-in") ? "128kB" : "1MB",
                    t % 2 == 0 ? "parquet" : "csv"));
        }
        return runs.stream();
    }

    @ParameterizedTest(name = "{0} join, --work-mem {1}, {2} output")
    @MethodSource("runs")
    void joinEqualsSparksJoinOfTheSameDirectories(String type, String workMem, String format) throws Exception {
        Path out = dir.resolve("out." + format);
        Path stats = dir.resolve("stats.json");
        Path spill = Files.createDirectory(dir.resolve("spill"));
        Run run = spilljoin("--left", leftDir.toString(), "--right", rightDir.toString(), "--on",
                type.equals("not-in") ? "k=score" : "k,tag", "--type", type, "--work-mem", workMem, "--output",
                out.toString(), "--stats", stats.toString(), "--spill-dir", spill.toString());
        assertThat(run.code).as(run.err).isZero();
        assertThat(run.err).isEmpty();
        assertThat(run.out).isEmpty();
        Matcher spilled = Pattern.compile("\"spilled_bytes_build\": (\\d+)").matcher(Files.readString(stats));
        assertThat(spilled.find()).as("stats with spilled_bytes_build").isTrue();
        assertThat(Long.parseLong(spilled.group(1)) > 0).as("spilled under --work-mem " + workMem)
                .isEqualTo(!workMem.equals(IN_MEMORY));
        assertThat(spill).isEmptyDirectory();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("files after the run")
                    .containsExactlyInAnyOrder(out.getFileName().toString(), "stats.json", "spill");
        }

        Expected expected = EXPECTED.computeIfAbsent(type, SparkWrittenParquetIT::sparksJoin);
        assertThat(expected.rows()).as("Spark's join has rows").isNotEmpty();
        if (format.equals("csv")) {
            List<List<String>> csv = parseCsv(Files.readAllBytes(out));
            assertThat(csv.get(0)).as("header").containsExactlyElementsOf(expected.names());
            List<List<String>> actual = csv.subList(1, csv.size()).stream().map(r -> canonicalCsv(r, expected.types()))
                    .toList();
            assertSameRows(actual, expected.rows().stream().map(r -> csvText(r, expected.types())).toList());
        } else {
            Dataset<Row> written = SharedSpark.session().read().parquet(out.toString());
            assertThat(written.schema().fieldNames()).containsExactlyElementsOf(expected.names());
            assertThat(Stream.of(written.schema().fields()).map(StructField::dataType).toList())
                    .as("column types kept").containsExactlyElementsOf(expected.types());
            assertSameRows(values(written), expected.rows());
        }
    }

    /**
     * Spark appends a part file without the key column to a directory (two writes, the second in append mode with
     * another schema): one line on stderr naming that file and the column, exit 3, no output and no spill file.
     */
    @Test
    void partFileWithoutTheKeyColumnIsOneLineNamingFileAndColumn() throws Exception {
        SparkSession spark = SharedSpark.session();
        Path appended = dir.resolve("appended");
        spark.range(100).selectExpr("CAST(id AS INT) AS k", "id AS v").coalesce(1).write()
                .parquet(appended.toString());
        Set<Path> first = new HashSet<>(partFiles(appended));
        spark.range(100).selectExpr("id AS v").coalesce(1).write().mode("append").parquet(appended.toString());
        List<Path> withoutKey = partFiles(appended).stream().filter(p -> !first.contains(p)).toList();
        assertThat(withoutKey).as("the appended part file").hasSize(1);
        Path out = dir.resolve("out.parquet");
        Path spill = Files.createDirectory(dir.resolve("spill"));
        Run run = spilljoin("--left", appended.toString(), "--right", rightDir.toString(), "--on", "k", "--output",
                out.toString(), "--spill-dir", spill.toString());
        assertThat(run.code).as(run.err).isEqualTo(3);
        assertThat(run.err.strip().lines().count()).as(run.err).isEqualTo(1);
        assertThat(run.err).contains(withoutKey.get(0).toString()).contains("'k'");
        assertThat(spill).isEmptyDirectory();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("files after the run")
                    .containsExactlyInAnyOrder("appended", "spill");
        }
    }

    /** Spark's join of the two directories for the CLI's {@code type}, with the CLI's output names. */
    private static Expected sparksJoin(String type) {
        SparkSession spark = SharedSpark.session();
        spark.read().parquet(leftDir.toString()).createOrReplaceTempView("l");
        spark.read().parquet(rightDir.toString()).createOrReplaceTempView("r");
        String on = "l.k = r.k AND l.tag = r.tag";
        String both = "SELECT l.*, r.* FROM l ";
        String sql = switch (type) {
            case "inner" -> both + "JOIN r ON " + on;
            case "left" -> both + "LEFT JOIN r ON " + on;
            case "right" -> both + "RIGHT JOIN r ON " + on;
            case "full" -> both + "FULL JOIN r ON " + on;
            case "semi" -> "SELECT * FROM l LEFT SEMI JOIN r ON " + on;
            case "anti" -> "SELECT * FROM l LEFT ANTI JOIN r ON " + on;
            case "not-in" -> "SELECT * FROM l WHERE k NOT IN (SELECT score FROM r)";
            default -> throw new IllegalArgumentException(type);
        };
        Dataset<Row> join = spark.sql(sql);
        boolean leftOnly = List.of("semi", "anti", "not-in").contains(type);
        List<String> names = new ArrayList<>();
        Set<String> rightNames = Set.of(RIGHT_NAMES);
        Set<String> leftNames = Set.of(LEFT_NAMES);
        for (String name : LEFT_NAMES) {
            names.add(!leftOnly && rightNames.contains(name) ? "left." + name : name);
        }
        if (!leftOnly) {
            for (String name : RIGHT_NAMES) {
                names.add(leftNames.contains(name) ? "right." + name : name);
            }
        }
        List<DataType> types = Stream.of(join.schema().fields()).map(StructField::dataType).toList();
        assertThat(types).as("Spark's join's columns").hasSameSizeAs(names);
        return new Expected(names, types, values(join));
    }

    private record Expected(List<String> names, List<DataType> types, List<List<Object>> rows) {
    }

    private static List<List<Object>> values(Dataset<Row> rows) {
        List<List<Object>> values = new ArrayList<>();
        for (Row row : rows.collectAsList()) {
            List<Object> fields = new ArrayList<>(row.length());
            for (int i = 0; i < row.length(); i++) {
                fields.add(row.get(i));
            }
            values.add(fields);
        }
        return values;
    }

    /**
     * A row of Spark's values as the CLI writes them to CSV: each field's bytes as ISO-8859-1 text (one char per
     * byte), NULL as null; dates, timestamps and decimals by their logical types.
     */
    private static List<String> csvText(List<Object> row, List<DataType> types) {
        List<String> fields = new ArrayList<>(row.size());
        for (int c = 0; c < row.size(); c++) {
            Object value = row.get(c);
            fields.add(value == null ? null : csvText(value, types.get(c)));
        }
        return fields;
    }

    private static String csvText(Object value, DataType type) {
        if (type.equals(DataTypes.StringType)) {
            return latin1(((String) value).getBytes(StandardCharsets.UTF_8));
        } else if (type.equals(DataTypes.TimestampNTZType)) {
            return timestampText((LocalDateTime) value);
        } else if (type.equals(DataTypes.TimestampType)) {
            return timestampText(LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC)); // INT96 holds UTC
        } else if (type instanceof DecimalType) {
            return ((BigDecimal) value).toPlainString();
        } else if (type.equals(DataTypes.DoubleType)) {
            return Double.toString((Double) value);
        }
        return value.toString(); // a DATE as yyyy-MM-dd (years 1 to 9999 here)
    }

    /** A timestamp as the CLI writes it: {@code yyyy-MM-dd HH:mm:ss}, then the fraction without trailing zeros. */
    private static String timestampText(LocalDateTime time) {
        String text = time.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
        return time.getNano() == 0 ? text
                : text + "." + String.format("%09d", time.getNano()).replaceAll("0+$", "");
    }

    /** A CSV row of the CLI with DOUBLE fields in {@link Double#toString}'s form (the CLI writes 42 as 42.0). */
    private static List<String> canonicalCsv(List<String> row, List<DataType> types) {
        List<String> fields = new ArrayList<>(row);
        for (int c = 0; c < fields.size(); c++) {
            if (fields.get(c) != null && types.get(c).equals(DataTypes.DoubleType)) {
                fields.set(c, Double.toString(Double.parseDouble(fields.get(c))));
            }
        }
        return fields;
    }

    /**
     * RFC 4180 rows of {@code csv} (LF line ends) as ISO-8859-1 text: an unquoted empty field is null, a quoted one
     * its text, quotes inside doubled.
     */
    private static List<List<String>> parseCsv(byte[] csv) {
        String text = latin1(csv);
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            String field;
            if (text.charAt(i) == '"') {
                StringBuilder quoted = new StringBuilder();
                i++;
                while (true) {
                    char ch = text.charAt(i++);
                    if (ch == '"') {
                        if (i < text.length() && text.charAt(i) == '"') {
                            quoted.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        quoted.append(ch);
                    }
                }
                field = quoted.toString();
            } else {
                int end = i;
                while (end < text.length() && text.charAt(end) != ',' && text.charAt(end) != '\n') {
                    end++;
                }
                field = end == i ? null : text.substring(i, end);
                i = end;
            }
            row.add(field);
            char separator = text.charAt(i++);
            if (separator == '\n') {
                rows.add(row);
                row = new ArrayList<>();
            } else {
                assertThat(separator).as("the character after a field").isEqualTo(',');
            }
        }
        assertThat(row).as("a last row without its line end").isEmpty();
        return rows;
    }

    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** The same multiset of rows (shown: at most 5 of each difference). */
    private static <T> void assertSameRows(List<T> actual, List<T> expected) {
        Map<T, Integer> missing = new HashMap<>();
        for (T row : expected) {
            missing.merge(row, 1, Integer::sum);
        }
        List<T> unexpected = new ArrayList<>();
        for (T row : actual) {
            Integer left = missing.get(row);
            if (left == null) {
                unexpected.add(row);
            } else if (left == 1) {
                missing.remove(row);
            } else {
                missing.put(row, left - 1);
            }
        }
        assertThat(unexpected.stream().limit(5)).as("of %d output rows, rows Spark's join does not have (%d)",
                actual.size(), unexpected.size()).isEmpty();
        assertThat(missing.keySet().stream().limit(5)).as("of %d rows of Spark's join, rows the output lacks (%d)",
                expected.size(), missing.size()).isEmpty();
    }

    private static List<Path> partFiles(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String[] names(String[] columns) {
        return Stream.of(columns).map(c -> c.substring(c.lastIndexOf(" AS ") + 4)).toArray(String[]::new);
    }

    private record Run(int code, String out, String err) {
    }

    /** {@code bin/spilljoin join --quiet args…} in {@link #dir}, with this JVM's Java; waits up to 120 s. */
    private Run spilljoin(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString(), "join", "--quiet"));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(shared, "stdout", ".txt");
        Path err = Files.createTempFile(shared, "stderr", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        process.getOutputStream().close();
        boolean ended = process.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        Run run = new Run(ended ? process.exitValue() : -1, Files.readString(out, StandardCharsets.ISO_8859_1),
                Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        assertThat(ended).as("spilljoin ended within 120 s: " + run.err).isTrue();
        return run;
    }
}
