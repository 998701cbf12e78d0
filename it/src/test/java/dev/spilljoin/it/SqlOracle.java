package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

import java.math.BigInteger;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A SQL engine used as the reference for spilljoin's results: loads the very rows the operator joins into a table
 * ({@link #load}), runs a query and digests its rows as they stream in ({@link #digest}) or returns one row of
 * aggregates ({@link #aggregates}). Subclasses supply the engine's connection, column types and fast bulk load.
 * Tables get unique names ({@link #uniqueTableName}) and are dropped by their {@link OracleTables} owner.
 */
abstract class SqlOracle implements AutoCloseable {
    protected final Connection connection;

    protected SqlOracle(Connection connection) {
        this.connection = connection;
    }

    /** The engine's name and version, for messages. */
    abstract String name();

    /** The engine's column type for a spilljoin column type. */
    abstract String sqlType(ColumnType type);

    /** Appends the batches' rows to the (empty, existing) table, with the engine's bulk-load path. */
    protected abstract void append(String table, Schema schema, List<Batch> batches) throws SQLException;

    /** {@code CREATE TABLE} prefix: e.g. PostgreSQL's UNLOGGED. */
    protected String createTable() {
        return "CREATE TABLE";
    }

    /** Creates {@code table} with the schema's columns (names quoted, nullable) and loads the batches into it. */
    final void load(String table, Schema schema, List<Batch> batches) throws SQLException {
        StringBuilder ddl = new StringBuilder(createTable()).append(' ').append(table).append(" (");
        for (int c = 0; c < schema.size(); c++) {
            ddl.append(c == 0 ? "" : ", ").append(quote(schema.column(c).name())).append(' ')
                    .append(sqlType(schema.type(c)));
        }
        execute(ddl.append(')').toString());
        append(table, schema, batches);
    }

    /** The FROM item of the integers {@code 0 .. n-1} as BIGINT column {@code i} of alias {@code s}. */
    abstract String integerSeries(long n);

    /** Creates {@code table} from a query ({@code CREATE TABLE ... AS}). */
    final void createAs(String table, String query) throws SQLException {
        execute(createTable() + " " + table + " AS " + query);
    }

    final void drop(String table) throws SQLException {
        execute("DROP TABLE IF EXISTS " + table);
    }

    final void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /** Runs {@code sql} and digests its rows, read with {@code resultSchema}'s types, as they stream in. */
    ResultDigest digest(String sql, Schema resultSchema) throws SQLException {
        ResultDigest digest = new ResultDigest(resultSchema);
        try (Statement s = streamingStatement(); ResultSet results = s.executeQuery(sql)) {
            if (results.getMetaData().getColumnCount() != resultSchema.size()) {
                throw new IllegalStateException("query returns " + results.getMetaData().getColumnCount()
                        + " columns but the result schema has " + resultSchema.size() + ": " + sql);
            }
            ResultSetRowView row = new ResultSetRowView(results, resultSchema);
            while (results.next()) {
                row.load();
                digest.add(row);
            }
        } finally {
            endStreaming();
        }
        return digest;
    }

    /** Runs a query returning one row of integer aggregates (NULL as null), e.g. {@code count(*), sum(...)}. */
    List<BigInteger> aggregates(String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet results = s.executeQuery(sql)) {
            if (!results.next()) {
                throw new IllegalStateException("aggregate query returned no row: " + sql);
            }
            List<BigInteger> values = new ArrayList<>();
            for (int c = 1; c <= results.getMetaData().getColumnCount(); c++) {
                java.math.BigDecimal v = results.getBigDecimal(c);
                values.add(v == null ? null : v.toBigIntegerExact());
            }
            return values;
        }
    }

    /** A statement whose results stream rather than arrive all at once (engine-specific). */
    protected Statement streamingStatement() throws SQLException {
        return connection.createStatement();
    }

    /** Undoes what {@link #streamingStatement()} set up. */
    protected void endStreaming() throws SQLException {
    }

    /** A table name no other test, run or helper uses: {@code sj_it_<purpose>_<random>}. */
    static String uniqueTableName(String purpose) {
        return "sj_it_" + purpose + "_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 4);
    }

    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
