package dev.spilljoin.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;

/** The in-memory comparisons of {@link OracleJoinContract} against embedded DuckDB (2 threads, 1 GB). */
class DuckDbOracleJoinTest extends OracleJoinContract {
    @BeforeAll
    void open(@TempDir Path duckTemp) throws SQLException {
        oracle = DuckDbOracle.open(2, "1GB", duckTemp);
    }
}
