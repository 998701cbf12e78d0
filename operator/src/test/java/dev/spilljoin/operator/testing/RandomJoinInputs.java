package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random join inputs from a seed: schemas with 1–3 key columns of mixed types at random positions plus payload
 * columns, rows drawn from small value domains (so keys repeat on both sides and across sides), NULLs, and the
 * awkward values (Long.MIN/MAX, -0.0, NaN, "", multi-byte UTF-8, strings longer than 8 bytes).
 */
public final class RandomJoinInputs {
    private static final ColumnType[] TYPES = ColumnType.values();
    private static final String[] STRINGS = {"", "a", "b", "é", "日本語", "abcdefgh", "abcdefghi", "abcdefghijklmnopq",
        "ABCDEFGH12345678", "𝄞 clef"};
    private static final double[] DOUBLES = {0.0, -0.0, Double.NaN, 1.5, -2.0, 3.0, 1e300, Double.NEGATIVE_INFINITY};
    private static final long[] LONGS = {Long.MIN_VALUE, Long.MAX_VALUE, 0, 1, -1, 1L << 32, 2L << 32, 1L << 20, 3L << 20};

    public final Schema left;
    public final Schema right;
    public final int[] leftKeys;
    public final int[] rightKeys;
    public final List<Object[]> leftRows;
    public final List<Object[]> rightRows;
    private final SplittableRandom random;

    public RandomJoinInputs(SplittableRandom random, int maxRows) {
        this(random, maxRows, 12);
    }

    /** Inputs of up to {@code maxRows} rows per side whose key values come from domains of 1..maxDomain values. */
    public RandomJoinInputs(SplittableRandom random, int maxRows, int maxDomain) {
        this.random = random;
        int keyCount = 1 + random.nextInt(3);
        ColumnType[] keyTypes = new ColumnType[keyCount];
        for (int k = 0; k < keyCount; k++) {
            keyTypes[k] = TYPES[random.nextInt(TYPES.length)];
        }
        leftKeys = new int[keyCount];
        rightKeys = new int[keyCount];
        left = schema("l", keyTypes, leftKeys);
        right = schema("r", keyTypes, rightKeys);
        int domain = 1 + random.nextInt(maxDomain);
        leftRows = rows(left, random.nextInt(8) == 0 ? 0 : random.nextInt(maxRows + 1), domain);
        rightRows = rows(right, random.nextInt(8) == 0 ? 0 : random.nextInt(maxRows + 1), domain);
    }

    private Schema schema(String prefix, ColumnType[] keyTypes, int[] keyPositions) {
        int payload = random.nextInt(4);
        List<ColumnType> types = new ArrayList<>();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < keyTypes.length + payload; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new java.util.Random(random.nextLong()));
        ColumnType[] byPosition = new ColumnType[order.size()];
        for (int k = 0; k < keyTypes.length; k++) {
            keyPositions[k] = order.get(k);
            byPosition[order.get(k)] = keyTypes[k];
        }
        for (int p = keyTypes.length; p < order.size(); p++) {
            byPosition[order.get(p)] = TYPES[random.nextInt(TYPES.length)];
        }
        List<Column> columns = new ArrayList<>();
        for (int c = 0; c < byPosition.length; c++) {
            types.add(byPosition[c]);
            columns.add(Column.of(prefix + c, byPosition[c]));
        }
        return new Schema(columns);
    }

    private List<Object[]> rows(Schema schema, int count, int domain) {
        double nullRate = random.nextInt(3) == 0 ? 0.0 : 0.1;
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Object[] row = new Object[schema.size()];
            for (int c = 0; c < row.length; c++) {
                row[c] = random.nextDouble() < nullRate ? null : value(schema.type(c), domain);
            }
            rows.add(row);
        }
        return rows;
    }

    private Object value(ColumnType type, int domain) {
        int v = random.nextInt(domain);
        return switch (type) {
            case BIGINT -> v < LONGS.length ? LONGS[v] : (long) v;
            case INTEGER -> v == 0 ? Integer.MIN_VALUE : v == 1 ? Integer.MAX_VALUE : v;
            case DOUBLE -> v < DOUBLES.length ? DOUBLES[v] : (double) v;
            case BOOLEAN -> (v & 1) == 0;
            case VARCHAR -> v < STRINGS.length ? STRINGS[v] : "s" + v;
            case VARBINARY -> v == 0 ? new byte[0] : ("bin" + v).repeat(v % 4 + 1).getBytes(StandardCharsets.UTF_8);
        };
    }

    /** A spec of these inputs joined on their keys, as {@code type}, returning {@code projection}. */
    public JoinSpec.Builder spec(JoinType type, List<ColumnRef> projection) {
        JoinSpec.Builder spec = JoinSpec.builder(left, right).joinType(type).projection(projection);
        for (int k = 0; k < leftKeys.length; k++) {
            spec.on(leftKeys[k], rightKeys[k]);
        }
        return spec;
    }

    /** A random non-empty projection (no repeats) of the columns the join type may return. */
    public List<ColumnRef> randomProjection(JoinType type) {
        List<ColumnRef> all = new ArrayList<>();
        Side only = type.returnedSideOnly();
        if (only != Side.RIGHT) {
            for (int c = 0; c < left.size(); c++) {
                all.add(new ColumnRef(Side.LEFT, c));
            }
        }
        if (only != Side.LEFT) {
            for (int c = 0; c < right.size(); c++) {
                all.add(new ColumnRef(Side.RIGHT, c));
            }
        }
        Collections.shuffle(all, new java.util.Random(random.nextLong()));
        return new ArrayList<>(all.subList(0, 1 + random.nextInt(all.size())));
    }
}
