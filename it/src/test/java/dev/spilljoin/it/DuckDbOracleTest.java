package dev.spilljoin.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;

/** Every oracle comparison against embedded DuckDB (in-memory database, 2 threads, 1 GB, a temp directory). */
class DuckDbOracleTest implements InMemoryJoinCases, SpillingJoinCases, TableKindJoinCases, ManyOutputRowsCases,
        ComparisonTeethCases {
    private DuckDbOracle oracle;

    @BeforeAll
    void open(@TempDir Path duckTemp) throws SQLException {
        oracle = DuckDbOracle.open(2, "1GB", duckTemp);
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
