package dev.spilljoin.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The embedded DuckDB the Parquet tests write their files and compute their references with. */
final class ParquetDuckDb {
    private ParquetDuckDb() {
    }

    /** An in-memory database on one thread, under 512 MB, its temporary files in {@code dir}/duck-tmp. */
    static Connection open(Path dir) throws SQLException, IOException {
        Connection duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement s = duck.createStatement()) {
            s.execute("SET threads = 1");
            s.execute("SET memory_limit = '512MB'");
            s.execute("SET temp_directory = '" + Files.createDirectory(dir.resolve("duck-tmp")) + "'");
        } catch (SQLException e) {
            duck.close();
            throw e;
        }
        return duck;
    }

    /** The rows of {@code relation} (a table expression). */
    static long count(Connection duck, String relation) throws SQLException {
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + relation)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The column types of {@code relation}, as DuckDB names them. */
    static List<String> types(Connection duck, String relation) throws SQLException {
        try (Statement s = duck.createStatement();
             ResultSet rs = s.executeQuery("SELECT column_type FROM (DESCRIBE SELECT * FROM " + relation + ")")) {
            List<String> types = new ArrayList<>();
            while (rs.next()) {
                types.add(rs.getString(1));
            }
            return types;
        }
    }
}
