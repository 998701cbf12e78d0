package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * The reference join: a plain nested loop over boxed rows, straight from the SQL definitions, sharing no code with
 * the operator. Keys are equal when every key column is non-NULL and equal; DOUBLE keys compare with -0.0 = 0.0 and
 * NaN = NaN; strings and byte arrays by content.
 */
public final class NestedLoopOracle {
    private NestedLoopOracle() {
    }

    public static List<Object[]> join(List<Object[]> left, List<Object[]> right, int[] leftKeys, int[] rightKeys,
                                      JoinType type, List<ColumnRef> projection) {
        return join(left, right, leftKeys, rightKeys, type, projection, (l, r) -> true);
    }

    /** The join where a pair matches when its keys are equal and {@code condition} holds for (left row, right row). */
    public static List<Object[]> join(List<Object[]> left, List<Object[]> right, int[] leftKeys, int[] rightKeys,
                                      JoinType type, List<ColumnRef> projection,
                                      BiPredicate<Object[], Object[]> condition) {
        List<Object[]> out = new ArrayList<>();
        boolean[] rightMatched = new boolean[right.size()];
        boolean rightHasNullKey = right.stream().anyMatch(r -> hasNullKey(r, rightKeys));
        for (Object[] l : left) {
            boolean matched = false;
            for (int j = 0; j < right.size(); j++) {
                Object[] r = right.get(j);
                if (keysEqual(l, leftKeys, r, rightKeys) && condition.test(l, r)) {
                    matched = true;
                    rightMatched[j] = true;
                    if (type == JoinType.INNER || type == JoinType.LEFT_OUTER || type == JoinType.RIGHT_OUTER
                            || type == JoinType.FULL_OUTER) {
                        out.add(project(l, r, projection));
                    }
                }
            }
            switch (type) {
                case LEFT_OUTER, FULL_OUTER -> {
                    if (!matched) {
                        out.add(project(l, null, projection));
                    }
                }
                case LEFT_SEMI -> {
                    if (matched) {
                        out.add(project(l, null, projection));
                    }
                }
                case LEFT_ANTI -> {
                    if (!matched) {
                        out.add(project(l, null, projection));
                    }
                }
                case NULL_AWARE_LEFT_ANTI -> {
                    // x NOT IN (S): true iff S is empty, or x is not NULL, matches nothing and S has no NULL.
                    boolean qualifies = right.isEmpty() || !hasNullKey(l, leftKeys) && !matched && !rightHasNullKey;
                    if (qualifies) {
                        out.add(project(l, null, projection));
                    }
                }
                default -> {
                }
            }
        }
        for (int j = 0; j < right.size(); j++) {
            Object[] r = right.get(j);
            boolean m = rightMatched[j];
            if ((type == JoinType.RIGHT_OUTER || type == JoinType.FULL_OUTER) && !m
                    || type == JoinType.RIGHT_SEMI && m || type == JoinType.RIGHT_ANTI && !m) {
                out.add(project(null, r, projection));
            }
        }
        return out;
    }

    private static Object[] project(Object[] l, Object[] r, List<ColumnRef> projection) {
        Object[] row = new Object[projection.size()];
        for (int c = 0; c < row.length; c++) {
            ColumnRef ref = projection.get(c);
            Object[] src = ref.side() == Side.LEFT ? l : r;
            row[c] = src == null ? null : src[ref.column()];
        }
        return row;
    }

    static boolean hasNullKey(Object[] row, int[] keys) {
        for (int k : keys) {
            if (row[k] == null) {
                return true;
            }
        }
        return false;
    }

    static boolean keysEqual(Object[] l, int[] lk, Object[] r, int[] rk) {
        for (int k = 0; k < lk.length; k++) {
            if (!valueEquals(l[lk[k]], r[rk[k]])) {
                return false;
            }
        }
        return true;
    }

    private static boolean valueEquals(Object a, Object b) {
        if (a == null || b == null) {
            return false;
        }
        if (a instanceof Double x && b instanceof Double y) {
            return x.doubleValue() == y.doubleValue() || x.isNaN() && y.isNaN();
        }
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        return a.equals(b);
    }
}
