package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.cli.Main;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * What the CLI fuzz tests ({@link CliDifferentialFuzzTest}, {@link ParquetDifferentialFuzzTest}) share: running
 * {@code spilljoin join} in process, the README's output header, reading a CSV output back by the README's rules,
 * a query's rows as text, comparing two multisets of rows with a readable difference, reading a stats field, and
 * keeping ({@code -Dfuzz.keep=DIR}) or deleting a case's files.
 */
final class FuzzRuns {
    private static final String KEEP = System.getProperty("fuzz.keep");
    private static final int SHOWN_ROWS = 5;
    private static final int SHOWN_CHARS = 80;

    private FuzzRuns() {
    }

    /** A run's exit code and standard error. */
    record Run(int code, String err) {
    }

    /** Runs {@code spilljoin} with {@code args} in process, its standard output discarded. */
    static Run run(List<String> args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args.toArray(String[]::new), new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, err.toString(StandardCharsets.UTF_8));
    }

    /**
     * The output's column names (README "Output"): semi, anti and not-in give the left columns only; the others
     * the left then the right columns, a name both sides have prefixed with its side.
     */
    static List<String> outputHeader(String type, List<String> leftNames, List<String> rightNames) {
        if (!type.equals("inner") && !type.equals("left") && !type.equals("right") && !type.equals("full")) {
            return leftNames;
        }
        Set<String> shared = new LinkedHashSet<>(leftNames);
        shared.retainAll(rightNames);
        List<String> header = new ArrayList<>();
        leftNames.forEach(n -> header.add(shared.contains(n) ? "left." + n : n));
        rightNames.forEach(n -> header.add(shared.contains(n) ? "right." + n : n));
        return header;
    }

    /** The integer field {@code field} of a stats JSON. */
    static long stat(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":\\s*(-?\\d+)").matcher(json);
        assertThat(m.find()).as(field + " in " + json).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The rows of the query {@code sql}, each value as JDBC's string of it (NULL as null). */
    static List<List<String>> rows(Connection duck, String sql) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>(n);
                for (int i = 1; i <= n; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** Asserts that both lists hold the same rows as often, showing a few of each side's extra rows. */
    static void compare(List<List<String>> actual, List<List<String>> expected) {
        Map<List<String>, Integer> counts = new HashMap<>();
        expected.forEach(row -> counts.merge(row, 1, Integer::sum));
        actual.forEach(row -> counts.merge(row, -1, Integer::sum));
        List<String> missing = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        counts.forEach((row, n) -> {
            if (n > 0 && missing.size() < SHOWN_ROWS) {
                missing.add(n + " x " + show(row));
            } else if (n < 0 && unexpected.size() < SHOWN_ROWS) {
                unexpected.add(-n + " x " + show(row));
            }
        });
        assertThat(missing.isEmpty() && unexpected.isEmpty() && actual.size() == expected.size())
                .as("rows: spilljoin " + actual.size() + ", DuckDB " + expected.size() + "\n  missing "
                        + missing + "\n  unexpected " + unexpected)
                .isTrue();
    }

    private static String show(List<String> row) {
        return row.stream().map(v -> v == null ? "NULL" : "'" + shortened(v).replace("\r", "\\r")
                .replace("\n", "\\n") + "'").toList().toString();
    }

    private static String shortened(String value) {
        return value.length() <= SHOWN_CHARS ? value
                : value.substring(0, SHOWN_CHARS) + "… (" + value.length() + " characters)";
    }

    /**
     * The records of spilljoin's CSV output, read as a stream by the README's rules for input (so that an unquoted
     * line end shows): records end at LF, CR or CRLF; an unquoted empty field is NULL, {@code ""} the empty string.
     */
    static List<List<String>> parseCsv(Path file, char delimiter, Charset charset) throws IOException {
        try (InputStream in = file.toString().endsWith(".gz")
                ? new GZIPInputStream(Files.newInputStream(file)) : Files.newInputStream(file);
             Reader text = new BufferedReader(new InputStreamReader(in, charset))) {
            List<List<String>> records = new ArrayList<>();
            List<String> record = new ArrayList<>();
            StringBuilder field = new StringBuilder();
            boolean quoted = false;
            int ch = text.read();
            while (ch >= 0) {
                if (ch == '"' && field.length() == 0 && !quoted) {
                    quoted = true;
                    while (true) {
                        int q = text.read();
                        assertThat(q).as("a quoted field closed before the end of the output").isNotNegative();
                        if (q == '"') {
                            ch = text.read();
                            if (ch != '"') {
                                break;
                            }
                        }
                        field.append((char) q);
                    }
                    continue;
                }
                if (ch == delimiter || ch == '\n' || ch == '\r') {
                    record.add(quoted || field.length() > 0 ? field.toString() : null);
                    field.setLength(0);
                    quoted = false;
                    if (ch != delimiter) {
                        records.add(record);
                        record = new ArrayList<>();
                    }
                    int end = ch;
                    ch = text.read();
                    if (end == '\r' && ch == '\n') { // CRLF
                        ch = text.read();
                    }
                } else {
                    field.append((char) ch);
                    ch = text.read();
                }
            }
            assertThat(record).as("an output record without its line end").isEmpty();
            return records;
        }
    }

    static String keep(Path caseDir) throws IOException {
        if (KEEP == null) {
            return "; -Dfuzz.keep=DIR keeps its files";
        }
        Path target = Files.createDirectories(Path.of(KEEP)).resolve(caseDir.getFileName() + "-" + System.nanoTime());
        try (Stream<Path> files = Files.walk(caseDir)) {
            for (Path p : files.toList()) {
                Files.copy(p, target.resolve(caseDir.relativize(p).toString()));
            }
        }
        return "; files kept in " + target;
    }

    static void delete(Path path) throws IOException {
        try (Stream<Path> files = Files.walk(path)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
