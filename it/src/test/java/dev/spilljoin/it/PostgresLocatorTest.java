package dev.spilljoin.it;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which PostgreSQL the tests use, and what happens without one. */
class PostgresLocatorTest {
    private static final boolean DOCKER_SOCKET = java.nio.file.Files.exists(java.nio.file.Path.of("/var/run/docker.sock"));

    @Test
    void aJdbcUrlPropertyWinsOverTheEnvironment() {
        PostgresLocator.Decision d = PostgresLocator.decide(Map.of("PGHOST", "elsewhere", "PG_JDBC_URL", "jdbc:postgresql://env/x"),
                "jdbc:postgresql://prop:5433/db", () -> true);
        assertThat(d).isInstanceOfSatisfying(PostgresLocator.Use.class,
                u -> assertThat(u.server().jdbcUrl()).isEqualTo("jdbc:postgresql://prop:5433/db"));
    }

    @Test
    void theUrlVariableWinsOverPgHost() {
        PostgresLocator.Decision d = PostgresLocator.decide(Map.of("PGHOST", "elsewhere", "PG_JDBC_URL", "jdbc:postgresql://env/x"),
                null, () -> true);
        assertThat(d).isInstanceOfSatisfying(PostgresLocator.Use.class,
                u -> assertThat(u.server().jdbcUrl()).isEqualTo("jdbc:postgresql://env/x"));
    }

    @Test
    void pgVariablesMakeTheUrlWithDefaults() {
        PostgresLocator.Decision d = PostgresLocator.decide(Map.of("PGHOST", "127.0.0.1"), null, () -> true);
        assertThat(d).isInstanceOfSatisfying(PostgresLocator.Use.class, u -> {
            assertThat(u.server().jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/postgres");
            assertThat(u.server().user()).isEqualTo("postgres");
        });
        PostgresLocator.Decision full = PostgresLocator.decide(Map.of("PGHOST", "h", "PGPORT", "6000", "PGUSER", "u",
                "PGDATABASE", "test", "PGPASSWORD", "pw"), null, () -> true);
        assertThat(full).isInstanceOfSatisfying(PostgresLocator.Use.class, u -> {
            assertThat(u.server().jdbcUrl()).isEqualTo("jdbc:postgresql://h:6000/test");
            assertThat(u.server().password()).isEqualTo("pw");
        });
    }

    @Test
    void dockerThatAnswersStartsAContainer() {
        PostgresLocator.Decision d = PostgresLocator.decide(Map.of("DOCKER_HOST", "tcp://localhost:2375"), null, () -> true);
        assertThat(d).isInstanceOf(PostgresLocator.StartContainer.class);
    }

    @Test
    void nothingSkipsWithTheReasonOutsideCiAndIsRequiredInCi() {
        PostgresLocator.Decision local = PostgresLocator.decide(Map.of(), null, () -> false);
        assertThat(local).isInstanceOfSatisfying(PostgresLocator.Unavailable.class, u -> {
            assertThat(u.required()).isFalse();
            assertThat(u.reason()).contains("-Dpg.jdbcUrl").contains("PGHOST").contains("Docker");
        });
        PostgresLocator.Decision ci = PostgresLocator.decide(Map.of("CI", "true", "DOCKER_HOST", "tcp://nowhere:1"), null,
                () -> false);
        assertThat(ci).isInstanceOfSatisfying(PostgresLocator.Unavailable.class, u -> {
            assertThat(u.required()).isTrue();
            assertThat(u.reason()).contains("did not answer");
        });
    }

    @Test
    void dockerIsNotAskedWhenNoneIsConfigured() {
        boolean[] asked = {false};
        PostgresLocator.decide(Map.of(), null, () -> asked[0] = true);
        assertThat(asked[0]).isEqualTo(DOCKER_SOCKET);
    }
}
