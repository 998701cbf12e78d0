package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Result batches are bounded by bytes as well as rows: wide rows after narrow ones, and one wide row matching many
 * rows of the other side, make batches whose values stay under {@code outputBatchBytes} plus one row (checked on
 * every batch by {@link JoinRunner}), in memory and spilled, for every join type, both build sides and every
 * driving form, with the oracle's result.
 */
class WideResultBatchTest {
    private static final Schema SCHEMA = Schema.of(Column.of("id", ColumnType.BIGINT),
            Column.of("note", ColumnType.VARCHAR));
    private static final long BYTE_LIMIT = 64 << 10;

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    private static List<Object[]> rows(int firstId, int narrow, int wide, int wideBytes, int idStep) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < narrow + wide; i++) {
            long id = firstId + (long) i * idStep;
            String unit = "w" + id + ":";
            rows.add(new Object[]{id, i < narrow ? "n" + id : unit.repeat(wideBytes / unit.length() + 1)
                    .substring(0, wideBytes)});
        }
        return rows;
    }

    private JoinConfig config(Side build, boolean spilled) {
        JoinConfig.Builder config = JoinConfig.builder().outputBatchBytes(BYTE_LIMIT).buildSide(build);
        return spilled ? config.forceSpill(true).fanoutLog2(2).spillDirectory(spillRoot.path()).build()
                : config.build();
    }

    /** Joins and checks against the oracle; returns the result batches' count. */
    private long joinAndCheck(List<Object[]> left, List<Object[]> right, JoinType type, Side build, boolean spilled,
                              JoinRunner.Mode mode) {
        try (MemoryReservation root = MemoryReservation.root("wide-result-test", 16L << 20)) {
            JoinSpec spec = JoinSpec.builder(SCHEMA, SCHEMA).joinType(type).on("id", "id").reservation(root)
                    .config(config(build, spilled)).build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(SCHEMA, left, 500),
                    Rows.toBatches(SCHEMA, right, 500), mode, root);
            List<Object[]> expected = NestedLoopOracle.join(left, right, spec.leftKeys(), spec.rightKeys(), type,
                    spec.projection());
            assertThat(Rows.multiset(result.rows())).as("%s build=%s spilled=%s mode=%s", type, build, spilled, mode)
                    .isEqualTo(Rows.multiset(expected));
            if (spilled) {
                assertThat(result.stats().partitions()).as("the join spilled").isPositive();
            }
            return result.stats().outputBatches();
        }
    }

    @Test
    void wideRowsAfterNarrowOnesMakeSmallerBatchesForEveryJoinType() {
        // ids 0..629 on the left, even ids 0..638 on the right: matches, and unmatched rows on both sides (five wide
        // ones on the right: more than a batch holds)
        List<Object[]> left = rows(0, 600, 30, 20_000, 1);
        List<Object[]> right = rows(0, 300, 20, 20_000, 2);
        for (JoinType type : JoinType.values()) {
            for (Side build : Side.values()) {
                for (boolean spilled : new boolean[]{false, true}) {
                    long batches = joinAndCheck(left, right, type, build, spilled, JoinRunner.Mode.ITERATOR);
                    assertThat(batches).as("%s build=%s spilled=%s", type, build, spilled).isGreaterThan(1);
                }
            }
        }
    }

    @Test
    void oneWideRowMatchingManyRowsOfTheOtherSideIsSpreadOverBatches() {
        List<Object[]> wide = List.<Object[]>of(new Object[]{1L, "x".repeat(50_000)}, new Object[]{2L, "unmatched"});
        List<Object[]> many = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            many.add(new Object[]{i % 50 == 0 ? 3L : 1L, "m" + i});
        }
        for (JoinType type : List.of(JoinType.INNER, JoinType.LEFT_OUTER, JoinType.RIGHT_OUTER, JoinType.FULL_OUTER)) {
            for (Side build : Side.values()) {
                for (boolean spilled : new boolean[]{false, true}) {
                    for (JoinRunner.Mode mode : JoinRunner.Mode.values()) {
                        // 392 pairs of 50 kB each: at most two per batch under the 64 kB limit
                        assertThat(joinAndCheck(wide, many, type, build, spilled, mode)).isGreaterThanOrEqualTo(196);
                        assertThat(joinAndCheck(many, wide, type, build, spilled, mode)).isGreaterThanOrEqualTo(196);
                    }
                }
            }
        }
    }
}
