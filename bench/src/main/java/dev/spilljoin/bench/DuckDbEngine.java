package dev.spilljoin.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * DuckDB, embedded over JDBC, as docs/WORKLOADS.md sets it up: a file-backed database in a fresh temporary
 * directory, {@code threads = 2}, an explicit {@code temp_directory} inside that directory, and
 * {@code memory_limit} = the budget (set before each query, in bytes).
 *
 * <p>A table loads by staging it as a CSV file in the engine's directory ({@link CsvWorkloadWriter}), then
 * {@code COPY ... FROM} it under DuckDB's default memory limit, deleting the file and {@code CHECKPOINT}ing into the
 * database file. (DuckDB's Appender took 2.3-3.3 us a row here, 23-40 s for 10M rows; staging plus COPY takes
 * 4 s.) The profiled run turns on DuckDB's JSON profiler for one query and reads
 * {@code system.peak_buffer_memory} (peak memory) and {@code system.peak_temp_dir_size} (peak size of the
 * temporary directory: the bytes spilled, as far as DuckDB tells) from its output. {@link #close()} deletes the
 * directory with the database and any temporary files.
 */
public final class DuckDbEngine implements Engine {

    private static final Pattern PEAK_MEMORY = Pattern.compile("\"peak_buffer_memory\"\\s*:\\s*(\\d+)");
    private static final Pattern PEAK_TEMP = Pattern.compile("\"peak_temp_dir_size\"\\s*:\\s*(\\d+)");
    private static final int THREADS = 2;

    private final Path directory;
    private final Connection connection;
    private boolean closed;

    public DuckDbEngine() throws Exception {
        directory = TempDirectories.create("spilljoin-bench-duckdb-");
        Connection opened = null;
        try {
            opened = DriverManager.getConnection("jdbc:duckdb:" + directory.resolve("bench.duckdb"));
            try (Statement settings = opened.createStatement()) {
                settings.execute("SET threads = " + THREADS);
                settings.execute("SET temp_directory = '" + directory.resolve("tmp") + "'");
            }
            connection = opened;
        } catch (Exception e) {
            if (opened != null) {
                opened.close();
            }
            TempDirectories.deleteRecursively(directory);
            throw e;
        }
    }

    @Override
    public String name() {
        return "duckdb";
    }

    /** The directory holding the database file and the temporary directory. */
    Path directory() {
        return directory;
    }

    @Override
    public void load(TableSource rows) throws IOException, SQLException {
        String table = rows.role().tableName();
        Path staged = directory.resolve(table + ".csv");
        try {
            CsvWorkloadWriter.write(rows, staged);
            execute("RESET memory_limit");
            execute("CREATE OR REPLACE TABLE " + table + " (k BIGINT, p BIGINT)");
            execute("COPY " + table + " FROM '" + staged + "' (FORMAT csv, HEADER)");
        } finally {
            Files.deleteIfExists(staged);
        }
        execute("CHECKPOINT");
    }

    @Override
    public EngineProfile profile(Workload workload, long budgetBytes) throws Exception {
        setMemoryLimit(budgetBytes);
        Path output = directory.resolve("profile.json");
        execute("PRAGMA enable_profiling = 'json'");
        execute("PRAGMA profiling_output = '" + output + "'");
        JoinResult result;
        try {
            result = QueryResults.execute(connection, workload.sql());
        } finally {
            execute("PRAGMA disable_profiling");
        }
        String json = Files.readString(output);
        Files.delete(output);
        return new EngineProfile(find(PEAK_MEMORY, json), find(PEAK_TEMP, json), result,
                "DuckDB profiler: system peak buffer memory, peak temp dir size");
    }

    @Override
    public TimedRun run(Workload workload, long budgetBytes) throws SQLException {
        setMemoryLimit(budgetBytes);
        long start = System.nanoTime();
        JoinResult result = QueryResults.execute(connection, workload.sql());
        return new TimedRun(result, System.nanoTime() - start);
    }

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            connection.close();
        } finally {
            TempDirectories.deleteRecursively(directory);
        }
    }

    private void setMemoryLimit(long budgetBytes) throws SQLException {
        execute("SET memory_limit = '" + budgetBytes + "B'");
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static OptionalLong find(Pattern pattern, String json) {
        Matcher matcher = pattern.matcher(json);
        return matcher.find() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
    }
}
