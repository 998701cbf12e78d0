package dev.spilljoin.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * Where the PostgreSQL server is: {@code -Dpg.jdbcUrl} (or env {@code PG_JDBC_URL}), else built from
 * {@code PGHOST}/{@code PGPORT}/{@code PGUSER}/{@code PGDATABASE} (and {@code PGPASSWORD}), defaulting to
 * {@code postgres@127.0.0.1:5432/test} with trust authentication.
 */
public record PostgresConnectionSettings(String jdbcUrl, String user, String password) {

    public static PostgresConnectionSettings fromEnvironment() {
        return from(System.getProperty("pg.jdbcUrl"), System.getenv());
    }

    static PostgresConnectionSettings from(String jdbcUrlProperty, Map<String, String> env) {
        String user = env.getOrDefault("PGUSER", "postgres");
        String password = env.getOrDefault("PGPASSWORD", "");
        String url = jdbcUrlProperty != null ? jdbcUrlProperty : env.get("PG_JDBC_URL");
        if (url == null) {
            url = "jdbc:postgresql://" + env.getOrDefault("PGHOST", "127.0.0.1") + ":" + env.getOrDefault("PGPORT", "5432")
                    + "/" + env.getOrDefault("PGDATABASE", "test");
        }
        return new PostgresConnectionSettings(url, user, password);
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /** Empty when a connection opens; otherwise why not, naming the URL and how to point elsewhere. */
    public Optional<String> unreachableReason() {
        try (Connection connection = connect()) {
            return connection.isValid(5) ? Optional.empty() : Optional.of("PostgreSQL at " + jdbcUrl + " opened a connection that is not valid");
        } catch (SQLException e) {
            return Optional.of("PostgreSQL at " + jdbcUrl + " (user " + user + ") is unreachable: " + e.getMessage()
                    + " (set -Dpg.jdbcUrl=... or PGHOST/PGPORT/PGUSER/PGDATABASE)");
        }
    }
}
