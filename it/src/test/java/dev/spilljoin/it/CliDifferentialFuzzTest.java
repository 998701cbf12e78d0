package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.it.FuzzKeyTyping.Pairing;
import dev.spilljoin.it.FuzzRuns.Run;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded randomized differential test of the {@code spilljoin join} command against DuckDB: each case
 * ({@link FuzzCase}) writes two CSV inputs in a random dialect the README supports, runs the command in process,
 * and compares the multiset of output rows (and the header) with DuckDB's join of the same rows. DuckDB is given
 * the rows as generated (not the files, whose dialects it does not all read: lone CR record ends, {@code ""} as
 * the empty string) with every key cast to the type the README's inference gives it ({@link FuzzKeyTyping}), and
 * each output value as the README says spilljoin writes it; {@code rows_out} and {@code rows_skipped} must agree.
 * Key types the README makes a usage error must exit 2 with schema flags that, followed as written, join the keys
 * as text; a malformed record or a key that does not read as its type must fail the run (exit 3) naming the input
 * and line, or with {@code --on-error skip} be skipped and counted. Every run must leave its spill directory empty
 * and no temporary beside the output.
 *
 * <p>The seed is printed; {@code -Dseed=S -Dcases=N} replays or extends a run, case i alone is
 * {@code -Dseed=S+i -Dcases=1}, and {@code -Dfuzz.keep=DIR} keeps a failed case's files there.
 */
class CliDifferentialFuzzTest {
    private static final long SEED = Long.getLong("seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("cases", 60);
    private static final Pattern SCHEMA_FLAGS = Pattern.compile("--schema-left '([^']*)' --schema-right '([^']*)'");

    @TempDir
    Path dir;
    /** How many cases reached each notable path, printed at the end. */
    private final Map<String, Integer> coverage = new TreeMap<>();

    @Test
    void cliJoinsAsDuckDbDoes() throws Exception {
        System.out.println("CliDifferentialFuzzTest: -Dseed=" + SEED + " -Dcases=" + CASES);
        try (Connection duck = ParquetDuckDb.open(dir)) {
            for (int i = 0; i < CASES; i++) {
                Path caseDir = Files.createDirectory(dir.resolve("case-" + i));
                FuzzCase fuzzCase = FuzzCase.draw(SEED + i, caseDir);
                try {
                    check(duck, fuzzCase);
                } catch (AssertionError | IOException | SQLException | InterruptedException | RuntimeException e) {
                    throw new AssertionError("case " + i + " failed (alone: -Dseed=" + (SEED + i) + " -Dcases=1"
                            + FuzzRuns.keep(caseDir) + "): " + fuzzCase + "\n" + e.getMessage(), e);
                }
                coverage.merge(fuzzCase.mismatched() ? "usage errors" : fuzzCase.type, 1, Integer::sum);
                coverage.merge("malformed", fuzzCase.skipped > 0 ? 1 : 0, Integer::sum);
                coverage.merge("FIFO", fuzzCase.pipe != null ? 1 : 0, Integer::sum);
                coverage.merge("past the sample", fuzzCase.longSide > 0 ? 1 : 0, Integer::sum);
                FuzzRuns.delete(caseDir);
            }
        }
        System.out.println("CliDifferentialFuzzTest: " + CASES + " cases passed: " + coverage);
    }

    private void check(Connection duck, FuzzCase c) throws IOException, SQLException, InterruptedException {
        Run run = run(c, c.args);
        if (c.mismatched()) {
            assertThat(run.code()).as("exit code for key types that do not pair; stderr: " + run.err()).isEqualTo(2);
            assertThat(c.output).doesNotExist();
            // The flags the message suggests must join those keys as text.
            Matcher flags = SCHEMA_FLAGS.matcher(run.err());
            assertThat(flags.find()).as("the schema flags in " + run.err()).isTrue();
            List<String> args = new ArrayList<>(c.args);
            args.addAll(List.of("--schema-left", flags.group(1), "--schema-right", flags.group(2)));
            Pairing[] asText = c.pairings.clone();
            Arrays.asList(asText).replaceAll(p -> p == null ? Pairing.VARCHAR : p);
            checkJoined(duck, c, run(c, args), asText);
        } else if (c.skipped > 0 && !c.skip) {
            assertThat(run.code()).as("exit code for a malformed record; stderr: " + run.err()).isEqualTo(3);
            assertThat(run.err()).contains(c.firstError);
            assertThat(c.output).doesNotExist();
        } else {
            checkJoined(duck, c, run, c.pairings);
        }
    }

    /**
     * Runs the command in process (feeding its FIFO, if any, from a thread); asserts it left nothing behind and
     * printed no stack trace.
     */
    private static Run run(FuzzCase c, List<String> args) throws IOException, InterruptedException {
        Thread feeder = c.pipe == null ? null : feed(c.pipe, c.pipeData);
        Run run = FuzzRuns.run(args);
        if (feeder != null) {
            // A FIFO the run never opened: opening it read-write (which never blocks) lets the feeder's open return
            // and its writes fail, so that it ends.
            FileChannel.open(c.pipe, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            feeder.join();
            Files.delete(c.pipe);
        }
        try (Stream<Path> spill = Files.list(c.spillDir)) {
            assertThat(spill).as("spill directory after the run").isEmpty();
        }
        try (Stream<Path> files = Files.list(c.output.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("files beside the output").allMatch(n -> n.matches("left.*|right.*|out.*|stats.json|spill"));
        }
        assertThat(run.err()).doesNotContain("\tat ");
        return run;
    }

    /** Makes the FIFO {@code pipe} and starts a thread writing {@code data} into it. */
    private static Thread feed(Path pipe, Path data) throws IOException, InterruptedException {
        Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor()).as("mkfifo " + pipe).isZero();
        Thread feeder = new Thread(() -> {
            try (OutputStream out = Files.newOutputStream(pipe)) {
                Files.copy(data, out);
            } catch (IOException readerStopped) {
                // the run stopped reading (it failed, or never opened the FIFO): nothing more to feed
            }
        }, "fifo-feeder");
        feeder.setDaemon(true);
        feeder.start();
        return feeder;
    }

    /** Asserts a run's success, its output against DuckDB's join with these pairings, and its stats. */
    private void checkJoined(Connection duck, FuzzCase c, Run run, Pairing[] pairings)
            throws IOException, SQLException {
        assertThat(run.err()).as("stderr (exit " + run.code() + ")").isEmpty();
        assertThat(run.code()).isZero();
        List<List<String>> records = c.output.toString().endsWith(".parquet") ? parquet(duck, c.output)
                : FuzzRuns.parseCsv(c.output, c.delimiter, StandardCharsets.UTF_8);
        assertThat(records).as("output records").isNotEmpty();
        assertThat(records.get(0)).as("output header").isEqualTo(c.outputHeader());
        FuzzRuns.compare(records.subList(1, records.size()), expected(duck, c, pairings));
        String stats = Files.readString(c.stats);
        assertThat(FuzzRuns.stat(stats, "rows_out")).as("rows_out in " + stats).isEqualTo(records.size() - 1);
        assertThat(FuzzRuns.stat(stats, "rows_skipped")).as("rows_skipped in " + stats).isEqualTo(c.skipped);
        coverage.merge("spilled", FuzzRuns.stat(stats, "partitions") > 0 ? 1 : 0, Integer::sum);
        coverage.merge("re-partitioned", FuzzRuns.stat(stats, "max_recursion_depth") > 0 ? 1 : 0, Integer::sum);
        coverage.merge("heavy hitters", FuzzRuns.stat(stats, "heavy_hitter_keys") > 0 ? 1 : 0, Integer::sum);
    }

    /** A Parquet output's header and rows, each value as text the way the CSV output writes it. */
    private static List<List<String>> parquet(Connection duck, Path file) throws SQLException {
        List<List<String>> records = new ArrayList<>();
        try (Statement s = duck.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM read_parquet('" + file + "')")) {
            ResultSetMetaData meta = rs.getMetaData();
            List<String> header = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                header.add(meta.getColumnLabel(i));
            }
            records.add(header);
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    String type = meta.getColumnTypeName(i);
                    row.add(rs.getObject(i) == null ? null
                            : type.equals("DOUBLE") ? FuzzKeyTyping.doubleText(rs.getDouble(i))
                            : type.equals("BLOB") ? new String(rs.getBytes(i), StandardCharsets.UTF_8)
                            : rs.getString(i));
                }
                records.add(row);
            }
        }
        return records;
    }

    /** DuckDB's join of the case's rows, each value as spilljoin must write it. */
    private static List<List<String>> expected(Connection duck, FuzzCase c, Pairing[] pairings) throws SQLException {
        load(duck, "l", c.left, pairings);
        load(duck, "r", c.right, pairings);
        StringBuilder on = new StringBuilder();
        for (int k = 0; k < pairings.length; k++) {
            String t = pairings[k].sqlType;
            on.append(k == 0 ? "" : " AND ").append("CAST(l.j").append(k).append(" AS ").append(t)
                    .append(") = CAST(r.j").append(k).append(" AS ").append(t).append(')');
        }
        String leftColumns = columns("l", c.left.header.length);
        String both = leftColumns + ", " + columns("r", c.right.header.length);
        String sql = switch (c.type) {
            case "inner" -> "SELECT " + both + " FROM l JOIN r ON " + on;
            case "left", "right", "full" -> "SELECT " + both + " FROM l " + c.type + " JOIN r ON " + on;
            case "semi" -> "SELECT " + leftColumns + " FROM l WHERE EXISTS (SELECT 1 FROM r WHERE " + on + ")";
            case "anti" -> "SELECT " + leftColumns + " FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE " + on + ")";
            default -> {
                String t = pairings[0].sqlType;
                yield "SELECT " + leftColumns + " FROM l WHERE CAST(l.j0 AS " + t + ") NOT IN (SELECT CAST(r.j0 AS "
                        + t + ") FROM r)";
            }
        };
        return FuzzRuns.rows(duck, sql);
    }

    /**
     * Table {@code name}: the join values {@code j0, j1…} (NULL for a NULL key) and the output values
     * {@code o0, o1…} of the input's rows.
     */
    private static void load(Connection duck, String name, FuzzInput input, Pairing[] pairings) throws SQLException {
        StringBuilder columns = new StringBuilder();
        for (int k = 0; k < pairings.length; k++) {
            columns.append("j").append(k).append(" VARCHAR, ");
        }
        for (int c = 0; c < input.header.length; c++) {
            columns.append(c == 0 ? "" : ", ").append("o").append(c).append(" VARCHAR");
        }
        try (Statement s = duck.createStatement()) {
            s.execute("CREATE OR REPLACE TABLE " + name + " (" + columns + ")");
        }
        try (DuckDBAppender appender = duck.unwrap(DuckDBConnection.class).createAppender("main", name)) {
            for (String[] row : input.rows) {
                appender.beginRow();
                String[] written = row.clone();
                for (int k = 0; k < pairings.length; k++) {
                    String key = row[input.keyColumns[k]];
                    boolean isNull = FuzzKeyTyping.isNull(pairings[k], key);
                    append(appender, isNull ? null : FuzzKeyTyping.joinValue(pairings[k], key));
                    written[input.keyColumns[k]] = isNull ? null : FuzzKeyTyping.written(pairings[k], key);
                }
                for (String value : written) {
                    append(appender, value);
                }
                appender.endRow();
            }
        }
    }

    private static void append(DuckDBAppender appender, String value) throws SQLException {
        if (value == null) {
            appender.appendNull();
        } else {
            appender.append(value);
        }
    }

    private static String columns(String table, int count) {
        StringBuilder s = new StringBuilder();
        for (int c = 0; c < count; c++) {
            s.append(c == 0 ? "" : ", ").append(table).append(".o").append(c);
        }
        return s.toString();
    }
}
