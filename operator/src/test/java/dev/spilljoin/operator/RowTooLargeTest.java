package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A row larger than the budget: PostgreSQL's regression case (join_hash.sql, two rows of 320,000 bytes under
 * work_mem 128kB) is refused with a {@link RowTooLargeException} naming the row and the smallest budget that holds
 * it ({@link HashJoin#budgetForRow}), and that budget joins it, in both build orientations.
 */
class RowTooLargeTest {
    private static final Schema WIDE = Schema.of(Column.of("id", ColumnType.BIGINT), Column.of("t", ColumnType.VARCHAR));
    private static final String VALUE = "x".repeat(320_000);
    private static final List<Object[]> ROWS = List.of(new Object[]{1L, VALUE}, new Object[]{2L, VALUE});

    private static JoinSpec spec(Side build, MemoryReservation root, Path spillRoot) {
        return JoinSpec.builder(WIDE, WIDE).on("id", "id").joinType(JoinType.LEFT_OUTER).reservation(root)
                .config(JoinConfig.builder().buildSide(build).spillDirectory(spillRoot).build()).build();
    }

    @Test
    void aRowLargerThanTheBudgetIsNamedWithItsSideRowSizeAndTheBudgetThatJoinsIt(@TempDir Path spillRoot) {
        for (Side build : Side.values()) {
            RowTooLargeException refused;
            try (MemoryReservation root = MemoryReservation.root("small", 128 << 10)) {
                refused = catchThrowableOfType(() -> JoinRunner.run(spec(build, root, spillRoot),
                        Rows.toBatches(WIDE, ROWS, 2), Rows.toBatches(WIDE, ROWS, 2), JoinRunner.Mode.ITERATOR, root),
                        RowTooLargeException.class);
                JoinRunner.assertMemoryReleased(root);
            }
            assertThat(refused).as("build=%s", build).isNotNull();
            assertThat(refused.side()).isEqualTo(build);
            assertThat(refused.batchRow()).isZero();
            assertThat(refused.rowBytes()).isBetween(320_000L, 320_100L);
            assertThat(refused.neededBudget()).isEqualTo(HashJoin.budgetForRow(JoinConfig.DEFAULT, refused.rowBytes()));
            assertThat(refused.getMessage()).contains("row of " + refused.rowBytes() + " bytes")
                    .contains("budget of 128kB is full");

            try (MemoryReservation root = MemoryReservation.root("needed", refused.neededBudget())) {
                JoinRunner.Result joined = JoinRunner.run(spec(build, root, spillRoot), Rows.toBatches(WIDE, ROWS, 2),
                        Rows.toBatches(WIDE, ROWS, 2), JoinRunner.Mode.ITERATOR, root);
                assertThat(joined.rows()).hasSize(2);
                for (Object[] row : joined.rows()) {
                    assertThat(row[0]).isEqualTo(row[2]);
                    assertThat(VALUE.equals(row[1]) && VALUE.equals(row[3])).as("both values whole").isTrue();
                }
            }
        }
    }

    /**
     * On several workers each may hold such rows at once: the budget named is above the one refused, counts every
     * worker's rows, and joins them on that many workers (it had named the budget of one worker, below the one given).
     * The rows are larger than the budget given, so that it is refused however the workers' turns fall (rows of a
     * fifth of it joined there now and then, when no two workers held one at once).
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 4, 8})
    void onSeveralWorkersTheBudgetNamedHoldsEveryWorkersRows(int threads, @TempDir Path spillRoot) {
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 16; k++) {
            rows.add(new Object[] {k, String.valueOf((char) ('a' + k)).repeat(2_200_000)});
        }
        JoinConfig config = JoinConfig.builder().threads(threads).rowsPerWorker(0).spillDirectory(spillRoot).build();
        long given = 2 << 20;
        RowTooLargeException refused;
        try (MemoryReservation root = MemoryReservation.root("given", given)) {
            refused = catchThrowableOfType(() -> JoinRunner.run(spec(config, root), Rows.toBatches(WIDE, rows, 2),
                    Rows.toBatches(WIDE, rows, 2), JoinRunner.Mode.ITERATOR, root), RowTooLargeException.class);
            JoinRunner.assertMemoryReleased(root);
        }
        assertThat(refused).as("refused at %d bytes on %d workers", given, threads).isNotNull();
        assertThat(refused.neededBudget()).isGreaterThan(given)
                .isEqualTo(HashJoin.budgetForRow(config, refused.largestRowBytes()));
        try (MemoryReservation root = MemoryReservation.root("needed", refused.neededBudget())) {
            JoinRunner.Result joined = JoinRunner.run(spec(config, root), Rows.toBatches(WIDE, rows, 2),
                    Rows.toBatches(WIDE, rows, 2), JoinRunner.Mode.ITERATOR, root);
            assertThat(joined.rows()).hasSize(rows.size());
            for (Object[] row : joined.rows()) {
                assertThat(row[0]).isEqualTo(row[2]);
                assertThat(row[1].equals(row[3])).as("both values whole").isTrue();
            }
        }
    }

    /**
     * A row refused on any worker is found by its batch's origin and its row in it, however the join read its input:
     * the caller's copies for the helpers (it has read further meanwhile), readers of the helpers' own, pushed
     * batches. A build of six times the budget spills every partition, so that a probe row too is written and refused.
     * (Concurrent pushers are left out: the refused batch's push throws, the other pushers' a cancellation, and the
     * runner reports whichever came first.)
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = JoinRunner.Mode.class, mode = EnumSource.Mode.EXCLUDE,
            names = {"PUSH_CONCURRENT", "PUSH_CONCURRENT_SAFE_SINK"})
    void aRowRefusedOnAnyWorkerIsFoundByItsBatchsOriginAndRow(JoinRunner.Mode mode, @TempDir Path spillRoot) {
        long given = 2 << 20;
        for (int threads : new int[] {2, 4}) {
            for (Side refusedSide : Side.values()) {
                JoinConfig config = JoinConfig.builder().threads(threads).rowsPerWorker(0).buildSide(Side.LEFT)
                        .spillDirectory(spillRoot).build();
                int batch = 150;
                int row = 37;
                int wideRow = batch * 1_000 + row;
                List<Batch> left = narrowBatches(refusedSide == Side.LEFT ? wideRow : -1);
                List<Batch> right = narrowBatches(refusedSide == Side.RIGHT ? wideRow : -1);
                RowTooLargeException refused;
                try (MemoryReservation root = MemoryReservation.root("given", given)) {
                    refused = catchThrowableOfType(() -> JoinRunner.run(spec(config, root), left, right, mode, root),
                            RowTooLargeException.class);
                    JoinRunner.assertMemoryReleased(root);
                }
                String what = threads + " workers, refused on the " + refusedSide + " side";
                assertThat(refused).as(what).isNotNull();
                assertThat(refused.side()).as(what).isEqualTo(refusedSide);
                assertThat(refused.batchOrigin()).as(what).isEqualTo(batch);
                assertThat(refused.batchRow()).as(what).isEqualTo(row);
            }
        }
    }

    /**
     * 200 batches of 1,000 rows (keys 0..199,999, values of 24 bytes but row {@code wideRow}'s of 2.2 MB), each marked
     * with its index as its origin.
     */
    private static List<Batch> narrowBatches(int wideRow) {
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 200_000; k++) {
            rows.add(new Object[] {k, k == wideRow ? "y".repeat(2_200_000) : String.format("%024d", k)});
        }
        List<Batch> batches = Rows.toBatches(WIDE, rows, 1_000);
        for (int i = 0; i < batches.size(); i++) {
            batches.get(i).setOrigin(i);
        }
        return batches;
    }

    private static JoinSpec spec(JoinConfig config, MemoryReservation root) {
        return JoinSpec.builder(WIDE, WIDE).on("id", "id").joinType(JoinType.INNER).reservation(root).config(config)
                .build();
    }

    @Test
    void theBudgetForARowGrowsWithTheRowAndIsNeverBelowTheMinimum() {
        long minimum = HashJoin.minimumBudget(JoinConfig.DEFAULT);
        long previous = 0;
        for (long row = 64; row <= 64L << 20; row *= 4) {
            long budget = HashJoin.budgetForRow(JoinConfig.DEFAULT, row);
            assertThat(budget).as("row %d", row).isGreaterThanOrEqualTo(Math.max(minimum, 4 * row))
                    .isGreaterThanOrEqualTo(previous);
            previous = budget;
        }
    }
}
