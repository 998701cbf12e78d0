package dev.spilljoin.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * The DuckDB side of the end-to-end file case, run as its own process: joins two CSV or Parquet files with DuckDB's
 * {@code COPY (SELECT * FROM 's' s JOIN 'r' r ON s.k = r.k) TO 'out' (HEADER)} (the files read by their extension;
 * a {@code .parquet} output {@code (FORMAT parquet)}), in an in-memory database with {@code threads = 2}, the given
 * {@code memory_limit} and {@code temp_directory}.
 *
 * <p>Arguments: {@code R S OUT MEMORY_LIMIT_BYTES TEMP_DIRECTORY}, each file {@code .csv} or {@code .parquet}.
 */
public final class DuckDbCsvJoin {

    private DuckDbCsvJoin() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: DuckDbCsvJoin R S OUT MEMORY_LIMIT_BYTES TEMP_DIRECTORY (.csv or .parquet)");
            System.exit(2);
        }
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
             Statement statement = connection.createStatement()) {
            statement.execute("SET threads = 2");
            statement.execute("SET memory_limit = '" + Long.parseLong(args[3]) + "B'");
            statement.execute("SET temp_directory = '" + args[4] + "'");
            statement.execute("COPY (SELECT * FROM '" + args[1] + "' s JOIN '" + args[0] + "' r ON s.k = r.k) TO '"
                    + args[2] + "' " + (args[2].endsWith(".parquet") ? "(FORMAT parquet)" : "(HEADER)"));
        }
    }
}
