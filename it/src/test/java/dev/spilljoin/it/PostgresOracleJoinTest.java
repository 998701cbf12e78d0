package dev.spilljoin.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.SQLException;

/**
 * The in-memory comparisons of {@link OracleJoinContract} against PostgreSQL (found by {@link PostgresExtension};
 * skipped with the reason when there is none, failed when {@code CI=true}).
 */
@ExtendWith(PostgresExtension.class)
class PostgresOracleJoinTest extends OracleJoinContract {
    @BeforeAll
    void open(PostgresServer server) throws SQLException {
        oracle = PostgresOracle.open(server, "256MB");
    }
}
