package dev.spilljoin.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Decides which PostgreSQL server the integration tests use, in this order: the JDBC URL in system property
 * {@code pg.jdbcUrl} or environment variable {@code PG_JDBC_URL}; else {@code PGHOST} (with {@code PGPORT},
 * default 5432; {@code PGUSER}, default postgres; {@code PGDATABASE}, default the user; {@code PGPASSWORD}
 * optional); else a Testcontainers container when a Docker engine is plausible ({@code DOCKER_HOST} set or
 * {@code /var/run/docker.sock} present) and answers; else none, with the reason. When {@code CI=true}, "none" is an
 * error rather than a skip. Pure decision logic over the given environment, so that it is unit-tested.
 */
final class PostgresLocator {
    /** Where the decision landed. */
    sealed interface Decision permits Use, StartContainer, Unavailable {
    }

    /** Use this (named) server. */
    record Use(PostgresServer server) implements Decision {
    }

    /** Start a Testcontainers container (Docker answered). */
    record StartContainer() implements Decision {
    }

    /** No server: skip the tests with {@code reason}, or fail them when {@code required} (CI). */
    record Unavailable(String reason, boolean required) implements Decision {
    }

    private PostgresLocator() {
    }

    static Decision decide(Map<String, String> env, String jdbcUrlProperty, Supplier<Boolean> dockerAnswers) {
        String url = jdbcUrlProperty != null && !jdbcUrlProperty.isBlank() ? jdbcUrlProperty : env.get("PG_JDBC_URL");
        String source = jdbcUrlProperty != null && !jdbcUrlProperty.isBlank() ? "-Dpg.jdbcUrl" : "PG_JDBC_URL";
        if (url != null && !url.isBlank()) {
            return new Use(new PostgresServer(url, env.get("PGUSER"), env.get("PGPASSWORD"), source + "=" + url));
        }
        String host = env.get("PGHOST");
        if (host != null && !host.isBlank()) {
            String port = env.getOrDefault("PGPORT", "5432");
            String user = env.getOrDefault("PGUSER", "postgres");
            String database = env.getOrDefault("PGDATABASE", user);
            String jdbc = "jdbc:postgresql://" + host + ":" + port + "/" + database;
            return new Use(new PostgresServer(jdbc, user, env.get("PGPASSWORD"), "PGHOST/PGPORT/PGUSER/PGDATABASE: " + jdbc
                    + " as " + user));
        }
        boolean required = "true".equalsIgnoreCase(env.get("CI"));
        String dockerHost = env.get("DOCKER_HOST");
        boolean dockerPlausible = dockerHost != null && !dockerHost.isBlank()
                || Files.exists(Path.of("/var/run/docker.sock"));
        if (dockerPlausible && dockerAnswers.get()) {
            return new StartContainer();
        }
        String reason = "no PostgreSQL server: set -Dpg.jdbcUrl=jdbc:postgresql://HOST:PORT/DB (or PG_JDBC_URL), or "
                + "PGHOST/PGPORT/PGUSER/PGDATABASE, or run a Docker engine for Testcontainers ("
                + (dockerPlausible ? "a Docker socket is configured but the engine did not answer" : "no Docker found")
                + ")";
        return new Unavailable(reason, required);
    }
}
