package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

/**
 * DuckDB, embedded (in-memory database, {@code jdbc:duckdb:}), as an oracle. Threads, memory limit and temporary
 * directory are set explicitly so that it behaves the same on every machine; rows are loaded with the Appender.
 *
 * <p>Semantics checked against spilljoin's (and documented in it/README-it.md): {@code -0.0 = 0.0} and
 * {@code NaN = NaN} (any NaN payload) are true in joins, NULL never equals anything, VARCHAR and BLOB compare by
 * bytes; -0.0 and NaN come back as stored.
 */
final class DuckDbOracle extends SqlOracle {
    private final String version;

    private DuckDbOracle(DuckDBConnection connection, String version) {
        super(connection);
        this.version = version;
    }

    /** Opens an in-memory database limited to {@code threads} threads and {@code memoryLimit} (e.g. "1GB"). */
    static DuckDbOracle open(int threads, String memoryLimit, Path tempDirectory) throws SQLException {
        DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
        try (var s = c.createStatement()) {
            s.execute("SET threads = " + threads);
            s.execute("SET memory_limit = '" + memoryLimit + "'");
            s.execute("SET temp_directory = '" + tempDirectory.toAbsolutePath().toString().replace("'", "''") + "'");
            s.execute("SET preserve_insertion_order = false");
            var rs = s.executeQuery("SELECT version()");
            rs.next();
            return new DuckDbOracle(c, "DuckDB " + rs.getString(1));
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    @Override
    String name() {
        return version;
    }

    @Override
    String sqlType(ColumnType type) {
        return switch (type) {
            case BIGINT -> "BIGINT";
            case INTEGER -> "INTEGER";
            case DOUBLE -> "DOUBLE";
            case BOOLEAN -> "BOOLEAN";
            case VARCHAR -> "VARCHAR";
            case VARBINARY -> "BLOB";
        };
    }

    @Override
    String integerSeries(long n) {
        return "range(" + n + ") s(i)";
    }

    @Override
    protected void append(String table, Schema schema, List<Batch> batches) throws SQLException {
        try (DuckDBAppender appender = ((DuckDBConnection) connection).createAppender("main", table)) {
            for (Batch batch : batches) {
                for (int r = 0; r < batch.rowCount(); r++) {
                    appender.beginRow();
                    for (int c = 0; c < schema.size(); c++) {
                        appendValue(appender, batch.column(c), r);
                    }
                    appender.endRow();
                }
            }
        }
    }

    private static void appendValue(DuckDBAppender appender, ColumnVector v, int row) throws SQLException {
        if (v.isNull(row)) {
            appender.appendNull();
            return;
        }
        switch (v.type()) {
            case BIGINT -> appender.append(v.getLong(row));
            case INTEGER -> appender.append(v.getInt(row));
            case DOUBLE -> appender.append(v.getDouble(row));
            case BOOLEAN -> appender.append(v.getBoolean(row));
            case VARCHAR -> appender.append(v.getString(row));
            case VARBINARY -> appender.append(v.getBytes(row)); // append(byte[]) writes a BLOB value
        }
    }
}
