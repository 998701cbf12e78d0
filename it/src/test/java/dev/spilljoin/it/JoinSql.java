package dev.spilljoin.it;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The SQL query that means the same as a spilljoin join, in the dialect DuckDB and PostgreSQL share: INNER, LEFT,
 * RIGHT and FULL joins; semi and anti joins as {@code [NOT] EXISTS} (the right-side ones with the sides swapped);
 * the null-aware anti join as {@code NOT IN}. The select list is the join's projection in order, so the query's
 * columns line up with the operator's output schema. Tables are aliased {@code l} and {@code r}.
 */
final class JoinSql {
    private JoinSql() {
    }

    static String query(JoinCase c, JoinType type, List<ColumnRef> projection, String leftTable, String rightTable) {
        String select = "SELECT " + projection.stream()
                .map(ref -> (ref.side() == Side.LEFT ? "l." : "r.") + SqlOracle.quote(c.schema(ref.side())
                        .column(ref.column()).name()))
                .collect(Collectors.joining(", "));
        String l = leftTable + " l";
        String r = rightTable + " r";
        String on = keyCondition(c);
        return switch (type) {
            case INNER -> select + " FROM " + l + " JOIN " + r + " ON " + on;
            case LEFT_OUTER -> select + " FROM " + l + " LEFT JOIN " + r + " ON " + on;
            case RIGHT_OUTER -> select + " FROM " + l + " RIGHT JOIN " + r + " ON " + on;
            case FULL_OUTER -> select + " FROM " + l + " FULL JOIN " + r + " ON " + on;
            case LEFT_SEMI -> select + " FROM " + l + " WHERE EXISTS (SELECT 1 FROM " + r + " WHERE " + on + ")";
            case LEFT_ANTI -> select + " FROM " + l + " WHERE NOT EXISTS (SELECT 1 FROM " + r + " WHERE " + on + ")";
            case RIGHT_SEMI -> select + " FROM " + r + " WHERE EXISTS (SELECT 1 FROM " + l + " WHERE " + on + ")";
            case RIGHT_ANTI -> select + " FROM " + r + " WHERE NOT EXISTS (SELECT 1 FROM " + l + " WHERE " + on + ")";
            case NULL_AWARE_LEFT_ANTI -> select + " FROM " + l + " WHERE " + column(c, Side.LEFT, 0) + " NOT IN (SELECT "
                    + column(c, Side.RIGHT, 0) + " FROM " + r + ")";
        };
    }

    /** {@code l.a = r.x AND l.b = r.y ...} over the key pairs. */
    static String keyCondition(JoinCase c) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < c.leftKeys().length; k++) {
            sb.append(k == 0 ? "" : " AND ").append(column(c, Side.LEFT, k)).append(" = ").append(column(c, Side.RIGHT, k));
        }
        return sb.toString();
    }

    private static String column(JoinCase c, Side side, int key) {
        int index = side == Side.LEFT ? c.leftKeys()[key] : c.rightKeys()[key];
        return (side == Side.LEFT ? "l." : "r.") + SqlOracle.quote(c.schema(side).column(index).name());
    }
}
