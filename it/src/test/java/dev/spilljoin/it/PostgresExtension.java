package dev.spilljoin.it;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * JUnit 5 extension that gives tests a {@link PostgresServer} parameter, found by {@link PostgresLocator} once per
 * test run (a started container is stopped when the run ends). Tests are disabled, with the reason, when there is
 * no server — unless {@code CI=true}, where they run and fail at parameter resolution with that reason. A named
 * server that does not answer fails the tests too: naming one is a promise that it is there.
 */
public final class PostgresExtension implements ExecutionCondition, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PostgresExtension.class);

    /**
     * The located server, or the reason there is none; computed once, kept in the root store, which closes it (and
     * so stops a started container) when the test run ends.
     */
    private record Located(PostgresServer server, PostgresLocator.Unavailable unavailable) implements AutoCloseable {
        @Override
        public void close() {
            TestcontainersPostgres.stopIfStarted();
        }
    }

    private static Located located(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Located.class, k -> locate(), Located.class);
    }

    private static Located locate() {
        PostgresLocator.Decision d = PostgresLocator.decide(System.getenv(), System.getProperty("pg.jdbcUrl"),
                TestcontainersPostgres::dockerAnswers);
        if (d instanceof PostgresLocator.Use use) {
            return new Located(use.server(), null);
        }
        if (d instanceof PostgresLocator.StartContainer) {
            return new Located(TestcontainersPostgres.start(), null);
        }
        return new Located(null, (PostgresLocator.Unavailable) d);
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Located l = located(context);
        if (l.server() != null) {
            return ConditionEvaluationResult.enabled("PostgreSQL: " + l.server().description());
        }
        if (l.unavailable().required()) {
            return ConditionEvaluationResult.enabled("CI=true: runs, and fails for want of PostgreSQL");
        }
        return ConditionEvaluationResult.disabled(l.unavailable().reason());
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == PostgresServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Located l = located(context);
        if (l.server() == null) {
            throw new ParameterResolutionException("CI=true requires PostgreSQL, but there is " + l.unavailable().reason());
        }
        checkAnswers(l.server());
        return l.server();
    }

    private static void checkAnswers(PostgresServer server) {
        Properties p = new Properties();
        if (server.user() != null) {
            p.setProperty("user", server.user());
        }
        if (server.password() != null) {
            p.setProperty("password", server.password());
        }
        p.setProperty("connectTimeout", "10");
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), p)) {
            c.isValid(10);
        } catch (SQLException e) {
            throw new ParameterResolutionException("PostgreSQL named by " + server.description()
                    + " does not answer: " + e.getMessage() + ". Start it (e.g. pg_ctlcluster 15 main start) or unset "
                    + "the variable to skip the PostgreSQL tests.", e);
        }
    }
}
