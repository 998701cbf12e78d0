package dev.spilljoin.it;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.Arguments;

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

    /** Every key pairing with every one of {@code joinTypes}, each in memory (64 MB) and spilled (1 MB). */
    static Stream<Arguments> casesOf(Enum<?>[] pairings, List<String> joinTypes) {
        List<Arguments> cases = new ArrayList<>();
        for (Enum<?> pairing : pairings) {
            for (String type : joinTypes) {
                for (String workMem : List.of("64MB", "1MB")) {
                    cases.add(Arguments.of(pairing, type, workMem));
                }
            }
        }
        return cases.stream();
    }

    /** A case's name with the run's seed and how to replay it, also printed (under the test class's name). */
    String announce(Object pairing, String type, String workMem, long seed) {
        String replay = pairing + " " + type + " " + workMem + ": seed " + seed + " (replay with -Dseed=" + seed + ")";
        System.out.println(getClass().getSimpleName() + " " + replay);
        return replay;
    }
}
