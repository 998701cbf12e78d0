package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresConnectionSettingsTest {

    @Test
    void defaultsToLocalTestDatabase() {
        assertThat(PostgresConnectionSettings.from(null, Map.of()))
                .isEqualTo(new PostgresConnectionSettings("jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""));
    }

    @Test
    void pgEnvironmentVariablesBuildTheUrlAndTheJdbcUrlPropertyWins() {
        Map<String, String> env = Map.of("PGHOST", "db", "PGPORT", "6543", "PGUSER", "bench", "PGDATABASE", "joins",
                "PGPASSWORD", "pw");
        assertThat(PostgresConnectionSettings.from(null, env))
                .isEqualTo(new PostgresConnectionSettings("jdbc:postgresql://db:6543/joins", "bench", "pw"));
        assertThat(PostgresConnectionSettings.from("jdbc:postgresql://x/y", env).jdbcUrl()).isEqualTo("jdbc:postgresql://x/y");
        assertThat(PostgresConnectionSettings.from(null, Map.of("PG_JDBC_URL", "jdbc:postgresql://z/w")).jdbcUrl())
                .isEqualTo("jdbc:postgresql://z/w");
    }
}
