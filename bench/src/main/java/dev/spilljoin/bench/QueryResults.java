package dev.spilljoin.bench;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Runs a workload query and reads its single {@code (count, sum)} row of a workload query over JDBC, whatever numeric type the engine returns. */
final class QueryResults {

    private QueryResults() {
    }

    static JoinResult execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            if (!rows.next()) {
                throw new SQLException("query returned no row: " + sql);
            }
            long count = rows.getLong(1);
            // DuckDB returns HUGEINT and PostgreSQL NUMERIC for sum(BIGINT); NULL when nothing matched.
            BigDecimal sum = rows.getBigDecimal(2);
            return new JoinResult(count, sum == null ? 0 : sum.longValueExact());
        }
    }
}
