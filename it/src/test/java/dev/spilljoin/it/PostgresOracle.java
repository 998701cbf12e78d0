package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;

/**
 * PostgreSQL as an oracle: rows go in with {@code COPY ... FROM STDIN} (text format) into UNLOGGED tables, results
 * stream back with a cursor (autocommit off, fetch size set).
 *
 * <p>Semantics checked against spilljoin's (it/README-it.md): float8 {@code -0 = 0} and {@code 'NaN' = 'NaN'} are
 * true (NaN payloads are not kept: every NaN is one NaN, as spilljoin's digests treat them), NULL never equals,
 * text and bytea compare by bytes (deterministic collations compare equal only byte-equal strings).
 */
final class PostgresOracle extends SqlOracle {
    private static final int FETCH_ROWS = 10_000;
    private final String version;

    private PostgresOracle(Connection connection, String version) {
        super(connection);
        this.version = version;
    }

    static PostgresOracle open(PostgresServer server, String workMem) throws SQLException {
        Properties p = new Properties();
        if (server.user() != null) {
            p.setProperty("user", server.user());
        }
        if (server.password() != null) {
            p.setProperty("password", server.password());
        }
        Connection c = DriverManager.getConnection(server.jdbcUrl(), p);
        try (Statement s = c.createStatement()) {
            s.execute("SET work_mem = '" + workMem + "'");
            s.execute("SET extra_float_digits = 3");
            var rs = s.executeQuery("SELECT current_setting('server_version')");
            rs.next();
            return new PostgresOracle(c, "PostgreSQL " + rs.getString(1) + " (" + server.description() + ")");
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
            case BIGINT -> "bigint";
            case INTEGER -> "integer";
            case DOUBLE -> "double precision";
            case BOOLEAN -> "boolean";
            case VARCHAR -> "text";
            case VARBINARY -> "bytea";
        };
    }

    @Override
    String integerSeries(long n) {
        return "generate_series(0::bigint, " + (n - 1) + "::bigint) s(i)";
    }

    @Override
    protected String createTable() {
        return "CREATE UNLOGGED TABLE";
    }

    @Override
    protected void append(String table, Schema schema, List<Batch> batches) throws SQLException {
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + table + " FROM STDIN");
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 20);
            StringBuilder line = new StringBuilder();
            for (Batch batch : batches) {
                for (int r = 0; r < batch.rowCount(); r++) {
                    line.setLength(0);
                    for (int c = 0; c < schema.size(); c++) {
                        if (c > 0) {
                            line.append('\t');
                        }
                        appendText(line, batch.column(c), r);
                    }
                    line.append('\n');
                    byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
                    buffer.write(bytes, 0, bytes.length);
                }
                if (buffer.size() >= 1 << 20) {
                    copy.writeToCopy(buffer.toByteArray(), 0, buffer.size());
                    buffer.reset();
                }
            }
            copy.writeToCopy(buffer.toByteArray(), 0, buffer.size());
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    /** One value in COPY's text format: {@code \N} for NULL, backslash escapes, bytea as {@code \\x<hex>}. */
    private static void appendText(StringBuilder line, ColumnVector v, int row) {
        if (v.isNull(row)) {
            line.append("\\N");
            return;
        }
        switch (v.type()) {
            case BIGINT -> line.append(v.getLong(row));
            case INTEGER -> line.append(v.getInt(row));
            case DOUBLE -> {
                double d = v.getDouble(row);
                // Java's Double.toString round-trips exactly; PostgreSQL spells the specials NaN/Infinity/-Infinity.
                line.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity")
                        : Double.toString(d));
            }
            case BOOLEAN -> line.append(v.getBoolean(row) ? 't' : 'f');
            case VARCHAR -> {
                String s = v.getString(row);
                for (int i = 0; i < s.length(); i++) {
                    char ch = s.charAt(i);
                    switch (ch) {
                        case '\\' -> line.append("\\\\");
                        case '\t' -> line.append("\\t");
                        case '\n' -> line.append("\\n");
                        case '\r' -> line.append("\\r");
                        default -> line.append(ch);
                    }
                }
            }
            case VARBINARY -> line.append("\\\\x").append(HexFormat.of().formatHex(v.getBytes(row)));
        }
    }

    @Override
    protected Statement streamingStatement() throws SQLException {
        connection.setAutoCommit(false);
        Statement s = connection.createStatement();
        s.setFetchSize(FETCH_ROWS);
        return s;
    }

    @Override
    protected void endStreaming() throws SQLException {
        connection.rollback(); // read-only; and a failed query leaves nothing to commit
        connection.setAutoCommit(true);
    }
}
