package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.it.FuzzRuns.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded randomized differential test of {@code spilljoin join} on Parquet inputs against DuckDB: each case
 * ({@link ParquetFuzzCase}) has DuckDB write the inputs (part files of random types, encodings, codecs and row
 * groups; now and then one side as CSV), runs the command in process with a random join type, threads, budget and
 * output format, and compares the multiset of output rows with DuckDB's join of the same files. Parquet output is
 * read back by DuckDB, its column types and every value (as text) equal to DuckDB's join; CSV output is compared
 * with DuckDB's {@code COPY … TO csv} of its join, byte for byte after the README's rules for CSV output of Parquet
 * columns ({@link ParquetFuzzType#csvText}). The run must exit 0 with nothing on stderr, the header and the stats'
 * row counts must agree, and nothing may be left in the spill directory, the snappy temporary directory, or beside
 * the output. A case that damages a side (truncated part file, a part file without a key column, a nested column)
 * must exit 3 with one line naming the file (and column), leaving nothing behind.
 *
 * <p>The seed is printed; {@code -Dseed=S -DparquetCases=N} replays or extends a run, case i alone is
 * {@code -Dseed=S+i -DparquetCases=1}, and {@code -Dfuzz.keep=DIR} keeps a failed case's files there.
 */
class ParquetDifferentialFuzzTest {
    private static final long SEED = Long.getLong("seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("parquetCases", 120);
    private static final String SNAPPY_TEMPDIR = "org.xerial.snappy.tempdir";
    private static final long MOST_ROWS_OUT = 100_000;

    @TempDir
    Path dir;
    /** How many cases reached each notable path, printed at the end. */
    private final Map<String, Integer> coverage = new TreeMap<>();

    @Test
    void cliJoinsParquetAsDuckDbDoes() throws Exception {
        System.out.println("ParquetDifferentialFuzzTest: -Dseed=" + SEED + " -DparquetCases=" + CASES);
        // snappy-java's native library is extracted here (when not loaded yet), and must not stay
        Path snappyDir = Files.createDirectory(dir.resolve("snappy-tmp"));
        String snappyBefore = System.setProperty(SNAPPY_TEMPDIR, snappyDir.toString());
        try (Connection duck = ParquetDuckDb.open(dir)) {
            for (int i = 0; i < CASES; i++) {
                Path caseDir = Files.createDirectory(dir.resolve("case-" + i));
                ParquetFuzzCase fuzzCase = null;
                try {
                    fuzzCase = drawBounded(SEED + i, caseDir, duck);
                    check(duck, fuzzCase, caseDir, snappyDir);
                } catch (AssertionError | IOException | SQLException | RuntimeException e) {
                    throw new AssertionError("case " + i + " failed (alone: -Dseed=" + (SEED + i)
                            + " -DparquetCases=1" + FuzzRuns.keep(caseDir) + "): " + fuzzCase + "\n"
                            + e.getMessage(), e);
                }
                coverage.merge(fuzzCase.failure + " " + fuzzCase.type, 1, Integer::sum);
                coverage.merge("CSV side", fuzzCase.left.csv || fuzzCase.right.csv ? 1 : 0, Integer::sum);
                coverage.merge("CSV output", fuzzCase.csvOutput ? 1 : 0, Integer::sum);
                FuzzRuns.delete(caseDir);
            }
        } finally {
            if (snappyBefore == null) {
                System.clearProperty(SNAPPY_TEMPDIR);
            } else {
                System.setProperty(SNAPPY_TEMPDIR, snappyBefore);
            }
        }
        System.out.println("ParquetDifferentialFuzzTest: " + CASES + " cases passed: " + coverage);
    }

    /**
     * The case of {@code seed}, or, when its join has {@value #MOST_ROWS_OUT} rows or more, the next of its seed's
     * sequence that has fewer: the generator bounds the rows of most cases (so that a case takes well under a
     * second), but a hot key can meet a small key domain on the other side (a join of 122,000 rows). Drawn again the
     * same way on every replay of {@code seed}; counted as "drawn again" in the coverage line.
     */
    private ParquetFuzzCase drawBounded(long seed, Path caseDir, Connection duck) throws IOException, SQLException {
        for (long attempt = 0; ; attempt++) {
            ParquetFuzzCase c = ParquetFuzzCase.draw(attempt == 0 ? seed : seed * 31 + attempt, caseDir, duck);
            if (c.failure != ParquetFuzzCase.Failure.NONE
                    || ParquetDuckDb.count(duck, "(" + c.joinSql() + ")") < MOST_ROWS_OUT) {
                return c;
            }
            coverage.merge("drawn again", 1, Integer::sum);
            FuzzRuns.delete(caseDir);
            Files.createDirectory(caseDir);
        }
    }

    private void check(Connection duck, ParquetFuzzCase c, Path caseDir, Path snappyDir)
            throws IOException, SQLException {
        Run run = FuzzRuns.run(c.args);
        assertThat(run.err()).as("stderr").doesNotContain("\tat ");
        try (Stream<Path> spill = Files.list(c.spillDir); Stream<Path> snappy = Files.list(snappyDir)) {
            assertThat(spill).as("spill directory after the run").isEmpty();
            assertThat(snappy).as("snappy's temporary directory after the run").isEmpty();
        }
        try (Stream<Path> files = Files.list(caseDir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("files beside the output")
                    .allMatch(n -> n.matches("(left|right)(\\.parquet|\\.csv)?|out\\.(csv|parquet)|stats\\.json"
                            + "|spill"));
        }
        if (c.failure != ParquetFuzzCase.Failure.NONE) {
            assertThat(run.code()).as("exit code; stderr: " + run.err()).isEqualTo(3);
            assertThat(run.err().strip().lines().count()).as("lines of " + run.err()).isOne();
            assertThat(run.err()).contains(c.failingFile.toString());
            if (c.failingColumn != null) {
                assertThat(run.err()).contains("'" + c.failingColumn + "'");
            }
            assertThat(c.output).doesNotExist();
            assertThat(c.stats).doesNotExist();
            return;
        }
        assertThat(run.err()).as("stderr (exit " + run.code() + ")").isEmpty();
        assertThat(run.code()).isZero();
        String joined = c.joinSql();
        List<List<String>> actual;
        List<List<String>> expected;
        if (c.csvOutput) {
            List<List<String>> records = FuzzRuns.parseCsv(c.output, ',', StandardCharsets.ISO_8859_1);
            assertThat(records).as("output records").isNotEmpty();
            assertThat(records.get(0)).as("output header").isEqualTo(c.outputHeader());
            actual = records.subList(1, records.size());
            expected = duckCsv(duck, joined, caseDir.resolve("expected.csv"), c.outputTypes());
        } else {
            String out = "read_parquet('" + c.output + "')";
            assertThat(columnNames(duck, out)).as("output header").isEqualTo(c.outputHeader());
            assertThat(ParquetDuckDb.types(duck, out)).as("output column types")
                    .isEqualTo(ParquetDuckDb.types(duck, "(" + joined + ")"));
            actual = FuzzRuns.rows(duck, "SELECT COLUMNS(*)::VARCHAR FROM " + out);
            expected = FuzzRuns.rows(duck, "SELECT COLUMNS(*)::VARCHAR FROM (" + joined + ")");
        }
        FuzzRuns.compare(actual, expected);
        String stats = Files.readString(c.stats);
        assertThat(FuzzRuns.stat(stats, "rows_out")).as("rows_out in " + stats).isEqualTo(actual.size());
        assertThat(FuzzRuns.stat(stats, "rows_left")).as("rows_left in " + stats).isEqualTo(c.left.rows);
        assertThat(FuzzRuns.stat(stats, "rows_right")).as("rows_right in " + stats).isEqualTo(c.right.rows);
        coverage.merge("spilled", FuzzRuns.stat(stats, "partitions") > 0 ? 1 : 0, Integer::sum);
        coverage.merge("re-partitioned", FuzzRuns.stat(stats, "max_recursion_depth") > 0 ? 1 : 0, Integer::sum);
    }

    /**
     * DuckDB's CSV of {@code sql} (time zone UTC), read back as bytes, each field as spilljoin writes it by the type
     * of its column ({@code types}; null: as DuckDB writes it).
     */
    private static List<List<String>> duckCsv(Connection duck, String sql, Path file, List<ParquetFuzzType> types)
            throws SQLException, IOException {
        try (Statement s = duck.createStatement()) {
            s.execute("COPY (" + sql + ") TO '" + file + "' (FORMAT csv, HEADER false)");
        }
        List<List<String>> rows = new ArrayList<>();
        for (List<String> record : FuzzRuns.parseCsv(file, ',', StandardCharsets.ISO_8859_1)) {
            List<String> row = new ArrayList<>(record.size());
            for (int c = 0; c < record.size(); c++) {
                String value = record.get(c);
                row.add(value == null || types.get(c) == null ? value : types.get(c).csvText(value));
            }
            rows.add(row);
        }
        Files.delete(file);
        return rows;
    }

    private static List<String> columnNames(Connection duck, String relation) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement s = duck.createStatement();
             ResultSet rs = s.executeQuery("SELECT column_name FROM (DESCRIBE SELECT * FROM " + relation + ")")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }
}
