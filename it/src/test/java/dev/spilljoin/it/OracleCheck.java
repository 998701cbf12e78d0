package dev.spilljoin.it;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;

import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One comparison: the case's join run by spilljoin and the same join as SQL on an oracle holding the case's rows
 * (tables {@code leftTable}/{@code rightTable}), both results digested the same way ({@link ResultDigest}) and
 * required to be the same multiset.
 */
final class OracleCheck {
    /** Both results of one comparison. */
    record Comparison(String sql, ResultDigest expected, SpilljoinRun.Outcome actual) {
        /** The differences as a report; empty when the results agree. */
        String differences() {
            return expected.differences(actual.digest());
        }
    }

    private OracleCheck() {
    }

    static Comparison compare(OracleTables tables, String leftTable, String rightTable, JoinCase c, JoinType type,
                              List<ColumnRef> projection, long budgetBytes, JoinConfig config) throws SQLException {
        return compare(tables, leftTable, rightTable, c, type, projection, budgetBytes, config, HashJoin::create);
    }

    /** As above, with spilljoin's join made by {@code create} (e.g. with a test-only fault bound). */
    static Comparison compare(OracleTables tables, String leftTable, String rightTable, JoinCase c, JoinType type,
                              List<ColumnRef> projection, long budgetBytes, JoinConfig config,
                              Function<JoinSpec, HashJoin> create) throws SQLException {
        SpilljoinRun.Outcome actual = SpilljoinRun.digest(c, type, projection, budgetBytes, config, create);
        String sql = JoinSql.query(c, type, projection, leftTable, rightTable);
        ResultDigest expected = tables.oracle().digest(sql, actual.digest().schema());
        return new Comparison(sql, expected, actual);
    }

    /** Compares and fails with a full report (case, join, oracle, SQL, stats, differing rows) unless they agree. */
    static JoinStats assertSame(OracleTables tables, String leftTable, String rightTable, JoinCase c, JoinType type,
                                List<ColumnRef> projection, long budgetBytes, JoinConfig config, String replay)
            throws SQLException {
        Comparison cmp = compare(tables, leftTable, rightTable, c, type, projection, budgetBytes, config);
        assertThat(cmp.differences())
                .as("%s join of %s under %d bytes, %s, differs from %s.%n  replay: %s%n  SQL: %s%n  spilljoin: %s%n"
                                + "  oracle:    %s%n  stats: %s", type, c.description(), budgetBytes, config,
                        tables.oracle().name(), replay, cmp.sql(), cmp.actual().digest(), cmp.expected(),
                        cmp.actual().stats().toJson())
                .isEmpty();
        return cmp.actual().stats();
    }
}
