package dev.spilljoin.bench;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * PostgreSQL over JDBC, as docs/WORKLOADS.md sets it up: hash join forced ({@code enable_mergejoin = off},
 * {@code enable_nestloop = off}), {@code work_mem} = the budget (with the server's {@code hash_mem_multiplier},
 * 2 by default), and 2 parallel workers ({@code max_parallel_workers_per_gather = 2}).
 *
 * <p>Tables {@code r} and {@code s} live in a private schema (so concurrent runs and other tests in the same
 * database never meet), UNLOGGED, loaded with binary COPY and ANALYZEd. {@link #close()} drops the schema.
 * The profiled run is {@code EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)}: it must show a Hash Join (else the run
 * fails), and gives the hash table's peak memory, its batches, and the temp blocks written (the bytes spilled).
 * With {@code analyze = false} (PostgreSQL at the large scale, where a query takes a minute) the profile is a plain
 * EXPLAIN that only checks the plan.
 */
public final class PostgresEngine implements Engine {

    private static final byte[] COPY_HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0,
        0, 0, 0, 0, 0, 0, 0, 0};
    private static final int COPY_ROW_BYTES = 2 + 4 + 8 + 4 + 8;
    private static final int LOAD_CHUNK_ROWS = 1 << 16;
    private static final long BLOCK_BYTES = 8192;
    private static final Pattern PEAK_MEMORY_KB = Pattern.compile("\"Peak Memory Usage\"\\s*:\\s*(\\d+)");
    private static final Pattern HASH_BATCHES = Pattern.compile("\"Hash Batches\"\\s*:\\s*(\\d+)");
    private static final Pattern ORIGINAL_BATCHES = Pattern.compile("\"Original Hash Batches\"\\s*:\\s*(\\d+)");
    private static final Pattern TEMP_WRITTEN = Pattern.compile("\"Temp Written Blocks\"\\s*:\\s*(\\d+)");
    private static final Pattern WORKERS_LAUNCHED = Pattern.compile("\"Workers Launched\"\\s*:\\s*(\\d+)");

    private final Connection connection;
    private final String schema;
    private final boolean analyze;
    private boolean closed;

    public PostgresEngine(PostgresConnectionSettings settings, boolean analyze) throws SQLException {
        this.analyze = analyze;
        this.schema = "spilljoin_bench_" + ProcessHandle.current().pid() + "_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
        connection = settings.connect();
        try {
            execute("CREATE SCHEMA " + schema);
            execute("SET search_path = " + schema);
            execute("SET enable_mergejoin = off");
            execute("SET enable_nestloop = off");
            execute("SET max_parallel_workers_per_gather = 2");
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "postgres";
    }

    /** The private schema holding this engine's tables. */
    String schema() {
        return schema;
    }

    @Override
    public void load(TableSource rows) throws SQLException {
        String table = rows.role().tableName();
        execute("DROP TABLE IF EXISTS " + table);
        execute("CREATE UNLOGGED TABLE " + table + " (k BIGINT NOT NULL, p BIGINT NOT NULL)");
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + table + " (k, p) FROM STDIN (FORMAT binary)");
        try {
            copy.writeToCopy(COPY_HEADER, 0, COPY_HEADER.length);
            ByteBuffer buffer = ByteBuffer.allocate(LOAD_CHUNK_ROWS * COPY_ROW_BYTES);
            rows.forEachChunk(LOAD_CHUNK_ROWS, (keys, payloads, n) -> {
                buffer.clear();
                for (int j = 0; j < n; j++) {
                    buffer.putShort((short) 2).putInt(8).putLong(keys[j]).putInt(8).putLong(payloads[j]);
                }
                copy.writeToCopy(buffer.array(), 0, buffer.position());
            });
            byte[] trailer = {(byte) 0xFF, (byte) 0xFF};
            copy.writeToCopy(trailer, 0, trailer.length);
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
        execute("ANALYZE " + table);
    }

    @Override
    public EngineProfile profile(Workload workload, long budgetBytes) throws SQLException {
        setWorkMem(budgetBytes);
        String options = analyze ? "ANALYZE, BUFFERS, FORMAT JSON" : "FORMAT JSON";
        String plan;
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("EXPLAIN (" + options + ") " + workload.sql())) {
            StringBuilder text = new StringBuilder();
            while (rows.next()) {
                text.append(rows.getString(1)).append('\n');
            }
            plan = text.toString();
        }
        if (!plan.contains("\"Hash Join\"")) {
            throw new IllegalStateException("PostgreSQL did not choose a Hash Join for " + workload + " although merge and "
                    + "nested-loop joins are off; its plan:\n" + plan);
        }
        if (!analyze) {
            return new EngineProfile(OptionalLong.empty(), OptionalLong.empty(), null, "Hash Join (plain EXPLAIN)");
        }
        OptionalLong peakKb = max(PEAK_MEMORY_KB, plan);
        OptionalLong tempBlocks = first(TEMP_WRITTEN, plan);
        String note = "Hash Join, batches " + max(ORIGINAL_BATCHES, plan).orElse(-1) + " -> " + max(HASH_BATCHES, plan).orElse(-1)
                + ", workers launched " + max(WORKERS_LAUNCHED, plan).orElse(0);
        return new EngineProfile(
                peakKb.isPresent() ? OptionalLong.of(peakKb.getAsLong() * 1024) : OptionalLong.empty(),
                OptionalLong.of(tempBlocks.orElse(0) * BLOCK_BYTES), null, note);
    }

    @Override
    public TimedRun run(Workload workload, long budgetBytes) throws SQLException {
        setWorkMem(budgetBytes);
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
        try (connection) {
            execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    private void setWorkMem(long budgetBytes) throws SQLException {
        execute("SET work_mem = '" + Math.max(64, budgetBytes / 1024) + "kB'");
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The largest value of a plan property over all nodes (workers included). */
    private static OptionalLong max(Pattern pattern, String plan) {
        Matcher matcher = pattern.matcher(plan);
        OptionalLong result = OptionalLong.empty();
        while (matcher.find()) {
            long value = Long.parseLong(matcher.group(1));
            result = OptionalLong.of(Math.max(result.orElse(value), value));
        }
        return result;
    }

    /** The top node's value: PostgreSQL prints a node's properties before its children. */
    private static OptionalLong first(Pattern pattern, String plan) {
        Matcher matcher = pattern.matcher(plan);
        return matcher.find() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
    }
}
