package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The embedded DuckDB the Parquet tests write their files and compute their references with, and how they run
 * spilljoin's join and compare its rows with DuckDB's.
 */
final class ParquetDuckDb {
    private ParquetDuckDb() {
    }

    /** An in-memory database on one thread, in UTC, under 512 MB, its temporary files in {@code dir}/duck-tmp. */
    static Connection open(Path dir) throws SQLException, IOException {
        Connection duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement s = duck.createStatement()) {
            s.execute("SET threads = 1");
            s.execute("SET TimeZone = 'UTC'"); // as spilljoin writes instants adjusted to UTC
            s.execute("SET memory_limit = '512MB'");
            s.execute("SET temp_directory = '" + Files.createDirectory(dir.resolve("duck-tmp")) + "'");
        } catch (SQLException e) {
            duck.close();
            throw e;
        }
        return duck;
    }

    /** The rows of {@code relation} (a table expression). */
    static long count(Connection duck, String relation) throws SQLException {
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + relation)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The column types of {@code relation}, as DuckDB names them. */
    static List<String> types(Connection duck, String relation) throws SQLException {
        try (Statement s = duck.createStatement();
             ResultSet rs = s.executeQuery("SELECT column_type FROM (DESCRIBE SELECT * FROM " + relation + ")")) {
            List<String> types = new ArrayList<>();
            while (rs.next()) {
                types.add(rs.getString(1));
            }
            return types;
        }
    }

    /**
     * Runs spilljoin's join with {@code args} ({@link #joinChecked}) to Parquet and to CSV, and checks both against
     * DuckDB's rows {@code expected} (a table expression): the Parquet output's rows and column types, the CSV
     * output's text as DuckDB's {@code COPY … TO 'x.csv'} writes it.
     */
    static void assertJoinsAs(Connection duck, Path dir, List<String> args, boolean spilling, String expected,
                              String replay) throws IOException, SQLException {
        Path parquetOut = joinChecked(dir, args, "out.parquet", spilling, replay);
        assertSameRows(duck, "Parquet output, " + replay, "read_parquet('" + parquetOut + "')", expected);
        assertThat(types(duck, "read_parquet('" + parquetOut + "')")).as("Parquet output types, " + replay)
                .isEqualTo(types(duck, expected));

        Path csvOut = joinChecked(dir, args, "out.csv", spilling, replay);
        Path duckCsv = dir.resolve("duckdb.csv");
        try (Statement s = duck.createStatement()) {
            s.execute("COPY " + expected + " TO '" + duckCsv + "' (FORMAT csv, HEADER true)");
        }
        assertSameRows(duck, "CSV output, " + replay, csvText(csvOut), csvText(duckCsv));
    }

    /** A CSV file's rows as text, field by field (empty fields NULL). */
    static String csvText(Path csv) {
        return "read_csv('" + csv + "', header = true, all_varchar = true)";
    }

    /** The rows of {@code actual} and {@code expected} are the same multiset; a few of each difference shown. */
    static void assertSameRows(Connection duck, String what, String actual, String expected) throws SQLException {
        String extra = "(SELECT * FROM " + actual + " EXCEPT ALL SELECT * FROM " + expected + ")";
        String missing = "(SELECT * FROM " + expected + " EXCEPT ALL SELECT * FROM " + actual + ")";
        assertThat(count(duck, extra)).as(what + ": rows DuckDB's join does not have, e.g. " + sample(duck, extra))
                .isZero();
        assertThat(count(duck, missing)).as(what + ": DuckDB's rows missing, e.g. " + sample(duck, missing))
                .isZero();
        assertThat(count(duck, actual)).as(what + ": rows").isEqualTo(count(duck, expected));
    }

    private static List<String> sample(Connection duck, String relation) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + relation
                + " LIMIT 5")) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> fields = new ArrayList<>();
                for (int c = 1; c <= n; c++) {
                    fields.add(rs.getString(c));
                }
                rows.add(String.join(",", fields));
            }
        }
        return rows;
    }

    /**
     * Runs spilljoin's {@code join} with {@code args} (inputs, keys, type, budget), its rows into {@code output} and
     * its stats and spill files in {@code dir}; checks that it succeeded, spilled when {@code spilling} says and
     * left its spill directory empty. {@code replay} names the case in messages.
     */
    static Path joinChecked(Path dir, List<String> args, String output, boolean spilling, String replay)
            throws IOException {
        Path out = dir.resolve(output);
        Path stats = dir.resolve("stats.json");
        Path spill = dir.resolve("spill");
        Files.createDirectories(spill);
        List<String> all = new ArrayList<>(List.of("join", "--quiet", "--output", out.toString(), "--spill-dir",
                spill.toString(), "--stats", stats.toString()));
        all.addAll(args);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(all.toArray(new String[0]), new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as("exit code of spilljoin into " + output + ", " + replay + ": "
                + err.toString(StandardCharsets.UTF_8)).isZero();
        String spilled = Files.readString(stats).replaceAll("(?s).*\"spilled_bytes_build\":(\\d+).*", "$1");
        assertThat(Long.parseLong(spilled) > 0).as("spilled into " + output + " (" + replay + ")")
                .isEqualTo(spilling);
        try (Stream<Path> left = Files.list(spill)) {
            assertThat(left.toList()).as("spill directory after the join, " + replay).isEmpty();
        }
        return out;
    }
}
