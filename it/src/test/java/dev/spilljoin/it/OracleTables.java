package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The tables one test loaded into one oracle, under unique names; {@link #close()} drops them all. */
final class OracleTables implements AutoCloseable {
    private final SqlOracle oracle;
    private final List<String> tables = new ArrayList<>();

    OracleTables(SqlOracle oracle) {
        this.oracle = oracle;
    }

    SqlOracle oracle() {
        return oracle;
    }

    /** Loads the batches into a new uniquely named table and returns its name. */
    String load(String purpose, Schema schema, List<Batch> batches) throws SQLException {
        String name = SqlOracle.uniqueTableName(purpose);
        tables.add(name);
        oracle.load(name, schema, batches);
        return name;
    }

    /** Creates a new uniquely named table from a query and returns its name. */
    String createAs(String purpose, String query) throws SQLException {
        String name = SqlOracle.uniqueTableName(purpose);
        tables.add(name);
        oracle.createAs(name, query);
        return name;
    }

    @Override
    public void close() throws SQLException {
        SQLException first = null;
        for (String t : tables) {
            try {
                oracle.drop(t);
            } catch (SQLException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        tables.clear();
        if (first != null) {
            throw first;
        }
    }
}
