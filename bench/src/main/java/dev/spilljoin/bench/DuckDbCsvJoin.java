package dev.spilljoin.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * The DuckDB side of the end-to-end CSV case, run as its own process: joins two CSV files with DuckDB's
 * {@code COPY (SELECT * FROM read_csv(s) s JOIN read_csv(r) r ON s.k = r.k) TO out (HEADER)}, in an in-memory
 * database with {@code threads = 2}, the given {@code memory_limit} and {@code temp_directory}.
 *
 * <p>Arguments: {@code R.csv S.csv OUT.csv MEMORY_LIMIT_BYTES TEMP_DIRECTORY}.
 */
public final class DuckDbCsvJoin {

    private DuckDbCsvJoin() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: DuckDbCsvJoin R.csv S.csv OUT.csv MEMORY_LIMIT_BYTES TEMP_DIRECTORY");
            System.exit(2);
        }
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
             Statement statement = connection.createStatement()) {
            statement.execute("SET threads = 2");
            statement.execute("SET memory_limit = '" + Long.parseLong(args[3]) + "B'");
            statement.execute("SET temp_directory = '" + args[4] + "'");
            statement.execute("COPY (SELECT * FROM read_csv('" + args[1] + "') s JOIN read_csv('" + args[0]
                    + "') r ON s.k = r.k) TO '" + args[2] + "' (HEADER)");
        }
    }
}
