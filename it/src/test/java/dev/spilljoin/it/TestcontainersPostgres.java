package dev.spilljoin.it;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * A PostgreSQL container for runs with a Docker engine but no named server; started at most once per test run and
 * stopped at its end. Testcontainers classes are touched only here, and only when Docker is plausible.
 */
final class TestcontainersPostgres {
    private static final String IMAGE = "postgres:16-alpine";
    private static PostgreSQLContainer<?> container;

    private TestcontainersPostgres() {
    }

    static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static synchronized PostgresServer start() {
        if (container == null) {
            PostgreSQLContainer<?> c = new PostgreSQLContainer<>(IMAGE);
            c.start();
            container = c;
        }
        return new PostgresServer(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                "Testcontainers " + IMAGE);
    }

    static synchronized void stopIfStarted() {
        if (container != null) {
            container.stop();
            container = null;
        }
    }
}
