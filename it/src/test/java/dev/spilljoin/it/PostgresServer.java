package dev.spilljoin.it;

/**
 * A PostgreSQL server the tests may use: its JDBC URL, credentials (null = none or in the URL) and where it came
 * from (for messages: the system property, the environment, or a Testcontainers container).
 */
record PostgresServer(String jdbcUrl, String user, String password, String description) {
}
