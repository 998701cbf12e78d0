package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Rows too large for a write buffer (8–48 KB) on keys that never split, so that they reach the nested-loop path: at
 * the smallest budget for its workers the join joins them or refuses them with a {@link RowTooLargeException}
 * naming a budget, never another memory error, and at that budget it joins them; with long keys at a budget that holds both the workers' minimum
 * and the largest row, it joins them on any number of workers (pair workers then take a share that holds the nested
 * loop's readers, writer and a chunk for the largest row, or fewer workers take pairs). Results against the
 * nested-loop oracle.
 */
class WideRowNestedLoopTest {
    private static final Schema WIDE = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("t", ColumnType.VARCHAR));
    private static final Schema LONG_KEYS = Schema.of(Column.of("k", ColumnType.VARCHAR),
            Column.of("v", ColumnType.VARCHAR), Column.of("p", ColumnType.BIGINT));

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    /**
     * Rows of {@code fewestChars} up to {@code chars} characters, growing by row (equal when the two are): the budget
     * named for the first row refused must hold the larger rows of its batch met after it (on two workers, 9,000 to
     * 120,000 characters, a right row of 98 KB is refused first, with a row of 120 KB behind it in its batch). Rows of
     * a later batch the join has not seen can still be larger: a budget named then is refused again.
     */
    @ParameterizedTest(name = "{0} on {1} threads, {2} x {3} rows of {4} to {5} characters")
    @CsvSource({"RIGHT_OUTER, 1, 9, 6, 48000, 48000", "RIGHT_OUTER, 2, 9, 6, 48000, 48000",
        "INNER, 2, 9, 6, 48000, 48000", "FULL_OUTER, 4, 9, 6, 48000, 48000", "INNER, 1, 9, 6, 20000, 20000",
        "INNER, 2, 9, 6, 20000, 20000", "INNER, 1, 9, 6, 12000, 60000", "FULL_OUTER, 2, 9, 6, 12000, 60000",
        "RIGHT_OUTER, 4, 9, 6, 9000, 48000", "LEFT_OUTER, 2, 9, 6, 9000, 120000",
        "FULL_OUTER, 2, 9, 6, 9000, 120000"})
    void rowsOfOneKeyJoinOrAreRefusedNamingABudgetThatJoinsThem(JoinType type, int threads, int leftRows, int rightRows,
                                                          int fewestChars, int chars) {
        List<Object[]> left = new ArrayList<>();
        List<Object[]> right = new ArrayList<>();
        for (int i = 0; i < leftRows; i++) {
            int length = fewestChars + (chars - fewestChars) * i / (leftRows - 1);
            left.add(new Object[] {0L, String.valueOf((char) ('a' + i)).repeat(length)});
        }
        for (int i = 0; i < rightRows; i++) {
            int length = fewestChars + (chars - fewestChars) * i / (rightRows - 1);
            right.add(new Object[] {0L, String.valueOf((char) ('A' + i)).repeat(length)});
        }
        List<ColumnRef> columns = List.of(new ColumnRef(Side.LEFT, 0), new ColumnRef(Side.LEFT, 1),
                new ColumnRef(Side.RIGHT, 0), new ColumnRef(Side.RIGHT, 1));
        var expected = Rows.multiset(NestedLoopOracle.join(left, right, new int[] {0}, new int[] {0}, type, columns));
        JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).threads(threads).rowsPerWorker(0)
                .build();
        long minimum = HashJoin.minimumBudget(config, threads);
        long named;
        try (MemoryReservation memory = MemoryReservation.root("minimum", minimum)) {
            // joined there (the rows fit) or refused as too large, naming a budget: never another memory error
            RowTooLargeException refused = catchThrowableOfType(() -> JoinRunner.run(spec(WIDE, type, columns,
                    memory, config), Rows.toBatches(WIDE, left, 3), Rows.toBatches(WIDE, right, 3),
                    JoinRunner.Mode.SINK, memory), RowTooLargeException.class);
            named = refused == null ? minimum : refused.neededBudget();
            JoinRunner.assertMemoryReleased(memory);
        }
        try (MemoryReservation memory = MemoryReservation.root("named", named)) {
            JoinRunner.Result result = JoinRunner.run(spec(WIDE, type, columns, memory, config),
                    Rows.toBatches(WIDE, left, 3), Rows.toBatches(WIDE, right, 3), JoinRunner.Mode.SINK, memory);
            assertThat(Rows.multiset(result.rows())).as("at the named budget %d", named).isEqualTo(expected);
        }
    }

    /** 120 keys of up to 20,000 characters (seed 1), 430 rows a side, on which every pair ends on the nested loop. */
    @ParameterizedTest(name = "{0} on {1} threads, fanout 2^{2}")
    @CsvSource({"INNER, 1, 0", "INNER, 2, 0", "INNER, 4, 0", "RIGHT_SEMI, 4, 0", "INNER, 2, 2", "INNER, 4, 2",
        "RIGHT_SEMI, 4, 3", "FULL_OUTER, 2, 1", "FULL_OUTER, 4, 4"})
    void longKeysJoinOnEveryWorkerCountAtBothBounds(JoinType type, int threads, int fanoutLog2) {
        SplittableRandom random = new SplittableRandom(1);
        String[] keys = new String[120];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "prefix-".repeat(random.nextInt(20000) / 7 + 1) + "#" + i;
        }
        List<Object[]> left = new ArrayList<>();
        List<Object[]> right = new ArrayList<>();
        long largest = 0;
        for (int i = 0; i < 430; i++) {
            left.add(new Object[] {keys[random.nextInt(keys.length)], "L".repeat(random.nextInt(200)), (long) i});
            right.add(new Object[] {keys[random.nextInt(keys.length)], "R".repeat(random.nextInt(200)), (long) -i});
            largest = Math.max(largest, Math.max(rowChars(left.get(i)), rowChars(right.get(i))));
        }
        List<ColumnRef> columns = new ArrayList<>();
        Side only = type.returnedSideOnly();
        for (int c = 0; c < 3; c++) {
            if (only != Side.RIGHT) {
                columns.add(new ColumnRef(Side.LEFT, c));
            }
            if (only != Side.LEFT) {
                columns.add(new ColumnRef(Side.RIGHT, c));
            }
        }
        var expected = Rows.multiset(NestedLoopOracle.join(left, right, new int[] {0}, new int[] {0}, type, columns));
        JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).threads(threads).rowsPerWorker(0)
                .fanoutLog2(fanoutLog2).build();
        long budget = Math.max(HashJoin.minimumBudget(config, threads), HashJoin.budgetForRow(config, largest + 64));
        try (MemoryReservation memory = MemoryReservation.root("both bounds", budget)) {
            JoinRunner.Result result = JoinRunner.run(spec(LONG_KEYS, type, columns, memory, config),
                    Rows.toBatches(LONG_KEYS, left, 64), Rows.toBatches(LONG_KEYS, right, 64), JoinRunner.Mode.SINK,
                    memory);
            assertThat(Rows.multiset(result.rows())).as("at %d", budget).isEqualTo(expected);
            assertThat(result.stats().nestedLoopChunks()).as("the nested-loop path ran").isPositive();
        }
    }

    private static long rowChars(Object[] row) {
        return ((String) row[0]).length() + ((String) row[1]).length() + 8;
    }

    private static JoinSpec spec(Schema schema, JoinType type, List<ColumnRef> columns, MemoryReservation memory,
                                 JoinConfig config) {
        return JoinSpec.builder(schema, schema).on(0, 0).joinType(type).projection(columns).reservation(memory)
                .config(config).build();
    }
}
