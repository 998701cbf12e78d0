package dev.spilljoin.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.SQLException;

/**
 * Every oracle comparison against PostgreSQL, found by {@link PostgresExtension}: skipped with the reason when there
 * is none, failed when {@code CI=true}.
 */
@ExtendWith(PostgresExtension.class)
class PostgresOracleTest implements InMemoryJoinCases, SpillingJoinCases, TableKindJoinCases, ManyOutputRowsCases,
        ComparisonTeethCases {
    private PostgresOracle oracle;

    @BeforeAll
    void open(PostgresServer server) throws SQLException {
        oracle = PostgresOracle.open(server, "256MB");
        System.out.println("oracle: " + oracle.name());
    }

    @AfterAll
    void close() throws SQLException {
        if (oracle != null) {
            oracle.close();
        }
    }

    @Override
    public SqlOracle oracle() {
        return oracle;
    }
}
