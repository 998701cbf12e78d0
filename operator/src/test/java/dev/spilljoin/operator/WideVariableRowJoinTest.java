package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows with many variable-width columns (a row's values found by walking the ones before it, carried from column to
 * column by the gathers' cursors) against the nested-loop oracle: 160 columns a side, most VARCHAR (some VARBINARY,
 * some fixed-width in between), values of random lengths (empty, inline in a direct-index entry, longer, a few
 * hundred bytes) and NULLs, in every join type, both build sides, in memory and in spilled pairs (the probe rows
 * decoded from spill files), with a BIGINT key (a direct-index table when the build side's keys are unique) and
 * with a composite key of two VARCHAR and a BIGINT field (variable-width values in the key region too), under the
 * default projection, under a shuffled one (the build rows' fields then lie in another order than the columns, and
 * the result's columns are filled in another order than they are named) and under one of a few columns, with and
 * without an extra condition that reads a key and a payload column of each side. After every join: zero bytes
 * reserved, the peak within the budget, the spill root empty. Seeded; replay with {@code -Dseed=<seed>}.
 */
class WideVariableRowJoinTest {
    private static final int COLUMNS = 160;
    private static final String[] VARCHAR_KEY = {"k1", "id", "k2"};

    /** The payload columns the extra condition reads besides the key column k2 (a VARCHAR, a VARBINARY). */
    private static final int CONDITION_LEFT = 100;
    private static final int CONDITION_RIGHT = 104;

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    private static Schema schema(String prefix) {
        List<Column> columns = new ArrayList<>();
        columns.add(Column.of("id", ColumnType.BIGINT));
        columns.add(Column.of("k1", ColumnType.VARCHAR));
        columns.add(Column.of("k2", ColumnType.VARCHAR));
        for (int c = 3; c < COLUMNS; c++) {
            ColumnType type = c % 29 == 0 ? ColumnType.BIGINT : c % 31 == 0 ? ColumnType.INTEGER
                    : c % 13 == 0 ? ColumnType.VARBINARY : ColumnType.VARCHAR;
            columns.add(Column.of(prefix + c, type));
        }
        return new Schema(columns);
    }

    /** Rows of {@code schema} with ids {@code ids} (null: a NULL key), their key columns made of them. */
    private static List<Object[]> rows(Schema schema, List<Long> ids, SplittableRandom r) {
        List<Object[]> rows = new ArrayList<>();
        for (Long id : ids) {
            Object[] row = new Object[COLUMNS];
            row[0] = id;
            row[1] = id == null ? null : "key-" + (id % 7) + "-" + "x".repeat((int) Math.floorMod(id, 5) * 4);
            row[2] = id == null || r.nextInt(20) == 0 ? null : Long.toHexString(id * 0x9E3779B97F4A7C15L);
            for (int c = 3; c < COLUMNS; c++) {
                row[c] = r.nextInt(7) == 0 ? null : value(schema.type(c), r);
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object value(ColumnType type, SplittableRandom r) {
        int length = switch (r.nextInt(10)) {
            case 0 -> 0;
            case 1 -> 13 + r.nextInt(300);
            default -> r.nextInt(17);
        };
        return switch (type) {
            case BIGINT -> r.nextLong();
            case INTEGER -> r.nextInt();
            case VARCHAR -> r.ints(length, 'a', 'z' + 1)
                    .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
            case VARBINARY -> {
                byte[] bytes = new byte[length];
                for (int i = 0; i < length; i++) {
                    bytes[i] = (byte) r.nextInt(256);
                }
                yield bytes;
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    /** Left: ids with duplicates, some unmatched, some NULL. */
    private static List<Long> leftIds(int rows, SplittableRandom r) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            ids.add(r.nextInt(25) == 0 ? null : (long) (r.nextInt(260) - 20));
        }
        return ids;
    }

    /** Right: unique dense ids (a direct-index table's keys when it is the build side), shuffled, two NULLs. */
    private static List<Long> rightIds(int rows, SplittableRandom r) {
        List<Long> ids = new ArrayList<>();
        for (long id = 0; id < rows; id++) {
            ids.add(id);
        }
        ids.add(null);
        ids.add(null);
        Collections.shuffle(ids, new Random(r.nextLong()));
        return ids;
    }

    /**
     * Every column of the returned sides or, when {@code few}, one to four of each, in a random order (few columns:
     * a result batch's first gathered variable-width field is the one its last was).
     */
    private static List<ColumnRef> shuffledProjection(JoinType type, boolean few, SplittableRandom r) {
        List<ColumnRef> refs = new ArrayList<>();
        for (Side side : Side.values()) {
            if (type.returnedSideOnly() == null || type.returnedSideOnly() == side) {
                List<ColumnRef> columns = new ArrayList<>();
                for (int c = 0; c < COLUMNS; c++) {
                    columns.add(new ColumnRef(side, c));
                }
                Collections.shuffle(columns, new Random(r.nextLong()));
                refs.addAll(few ? columns.subList(0, 1 + r.nextInt(4)) : columns);
            }
        }
        Collections.shuffle(refs, new Random(r.nextLong()));
        return refs;
    }

    /**
     * The extra condition: the lengths of its four values (NULL: 0) sum to no multiple of 3. It reads a key field and
     * a payload field of each side: its gathers go from the build rows' key region to their payload region.
     */
    private static boolean accepts(Object... values) {
        int length = 0;
        for (Object v : values) {
            length += v == null ? 0 : v instanceof byte[] bytes ? bytes.length : ((String) v).length();
        }
        return length % 3 != 0;
    }

    @Test
    void wideVariableRowsJoinAsTheOracleDoesInEveryJoinTypeInMemoryAndSpilled() throws IOException {
        long seed = Seeds.logged("WideVariableRowJoinTest");
        SplittableRandom random = new SplittableRandom(seed);
        Schema left = schema("l");
        Schema right = schema("r");
        List<Object[]> leftRows = rows(left, leftIds(300, random), random);
        List<Object[]> rightRows = rows(right, rightIds(200, random), random);
        List<String> tableKinds = new ArrayList<>();
        for (boolean varcharKey : new boolean[] {false, true}) {
            for (JoinType type : JoinType.values()) {
                if (type == JoinType.NULL_AWARE_LEFT_ANTI && varcharKey) {
                    continue; // NOT IN takes one key pair
                }
                for (Side build : Side.values()) {
                    for (boolean spilled : new boolean[] {false, true}) {
                        int shape = random.nextInt(3);
                        List<ColumnRef> projection = shape == 0 ? null : shuffledProjection(type, shape == 2, random);
                        String what = "seed=" + seed + " " + type + " build=" + build + " spilled=" + spilled
                                + " varcharKey=" + varcharKey + " projection=" + (projection == null ? "default"
                                : projection.stream().map(ColumnRef::toString).collect(Collectors.joining(",")));
                        boolean condition = varcharKey && random.nextBoolean();
                        tableKinds.add(check(left, right, leftRows, rightRows, varcharKey, type, build, spilled,
                                projection, condition, random, what + " condition=" + condition));
                    }
                }
            }
        }
        assertThat(tableKinds).as("tables used, seed=%d", seed).contains("direct", "hash");
    }

    /** Runs one join, compares it with the oracle; returns the kind of table it used. */
    private String check(Schema left, Schema right, List<Object[]> leftRows, List<Object[]> rightRows,
                         boolean varcharKey, JoinType type, Side build, boolean spilled, List<ColumnRef> projection,
                         boolean condition, SplittableRandom r, String what) throws IOException {
        JoinConfig.Builder config = JoinConfig.builder().buildSide(build).spillDirectory(spillRoot.path())
                .outputBatchRows(1 + r.nextInt(300));
        if (spilled) {
            config.forceSpill(true).fanoutLog2(1 + r.nextInt(2));
        }
        try (MemoryReservation root = MemoryReservation.root("wide-variable-rows", 64L << 20)) {
            JoinSpec.Builder builder = JoinSpec.builder(left, right).joinType(type).reservation(root)
                    .config(config.build());
            String[] keys = varcharKey ? VARCHAR_KEY : new String[] {"id"};
            for (String key : keys) {
                builder.on(key, key);
            }
            if (projection != null) {
                builder.projection(projection);
            }
            if (condition) {
                builder.condition(List.of(new ColumnRef(Side.LEFT, 2), new ColumnRef(Side.LEFT, CONDITION_LEFT),
                        new ColumnRef(Side.RIGHT, 2), new ColumnRef(Side.RIGHT, CONDITION_RIGHT)),
                        (pairs, accepted) -> {
                            for (int i = 0; i < pairs.rowCount(); i++) {
                                Object[] values = new Object[4];
                                for (int c = 0; c < 4; c++) {
                                    values[c] = Rows.value(pairs.column(c), i);
                                }
                                if (!accepts(values[0], values[1], values[2], values[3])) {
                                    accepted[i >>> 6] &= ~(1L << i);
                                }
                            }
                        });
            }
            JoinSpec spec = builder.build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(left, leftRows, 1 + r.nextInt(120)),
                    Rows.toBatches(right, rightRows, 1 + r.nextInt(120)), JoinRunner.Mode.ITERATOR, root);
            List<Object[]> expected = NestedLoopOracle.join(leftRows, rightRows, spec.leftKeys(), spec.rightKeys(),
                    type, spec.projection(), (l, rr) -> !condition
                            || accepts(l[2], l[CONDITION_LEFT], rr[2], rr[CONDITION_RIGHT]));
            String context = what + " stats=" + result.stats().toJson();
            assertThat(Rows.multiset(result.rows())).as(context).isEqualTo(Rows.multiset(expected));
            if (spilled) {
                assertThat(result.stats().residentPartitions()).as(context).isZero();
            }
            try (var files = Files.list(spillRoot.path())) {
                assertThat(files).as("spill root after " + context).isEmpty();
            }
            return result.stats().tableKind();
        }
    }
}
