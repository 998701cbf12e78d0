package dev.spilljoin.it;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test of spilljoin's Parquet paths against DuckDB: each test method gets a temporary directory ({@code dir}) and
 * a DuckDB connection of its own ({@code duck}, {@link ParquetDuckDb#open}: one thread, UTC, its temporary files in
 * {@code dir}), closed after it.
 */
abstract class ParquetDuckDbTest {
    @TempDir
    Path dir;
    Connection duck;

    @BeforeEach
    void openDuckDb() throws SQLException, IOException {
        duck = ParquetDuckDb.open(dir);
    }

    @AfterEach
    void closeDuckDb() throws SQLException {
        duck.close();
    }
}
