package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.Rows;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The digest finds every kind of difference between two multisets of rows, exactly and when sampled. */
class ResultDigestTest {
    private static final Schema SCHEMA = Schema.of(Column.of("a", ColumnType.BIGINT), Column.of("d", ColumnType.DOUBLE),
            Column.of("s", ColumnType.VARCHAR), Column.of("b", ColumnType.VARBINARY), Column.of("i", ColumnType.INTEGER),
            Column.of("t", ColumnType.BOOLEAN));

    private static ResultDigest digest(List<Object[]> rows) {
        ResultDigest d = new ResultDigest(SCHEMA);
        BatchRowView view = new BatchRowView();
        for (Batch b : Rows.toBatches(SCHEMA, rows, 97)) {
            for (int r = 0; r < b.rowCount(); r++) {
                view.moveTo(b, r);
                d.add(view);
            }
        }
        return d;
    }

    private static List<Object[]> rows(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new Object[]{(long) random.nextInt(50), random.nextInt(10) == 0 ? null : (double) random.nextInt(5),
                "s" + random.nextInt(7), new byte[]{(byte) random.nextInt(3)}, random.nextInt(4), random.nextBoolean()});
        }
        return rows;
    }

    @Test
    void sameRowsInAnotherOrderAgreeExactlyAndSampled() {
        for (int n : new int[]{0, 1, 500, 3 * ResultDigest.MAX_SAMPLED_ROWS}) {
            List<Object[]> a = rows(n, n);
            List<Object[]> b = new ArrayList<>(a);
            Collections.shuffle(b, new Random(7));
            ResultDigest da = digest(a);
            assertThat(da.isExact()).isEqualTo(n <= ResultDigest.MAX_SAMPLED_ROWS);
            assertThat(da.differences(digest(b))).as("n=%d", n).isEmpty();
        }
    }

    @Test
    void aMissingDuplicatedOrChangedRowIsReported() {
        for (int n : new int[]{500, 3 * ResultDigest.MAX_SAMPLED_ROWS}) {
            List<Object[]> rows = rows(n, 11);
            ResultDigest expected = digest(rows);

            List<Object[]> missing = new ArrayList<>(rows);
            missing.remove(n / 2);
            assertThat(expected.differences(digest(missing))).contains("row counts differ").contains("row checksums differ");

            List<Object[]> duplicated = new ArrayList<>(rows);
            duplicated.add(rows.get(3));
            assertThat(expected.differences(digest(duplicated))).contains("row counts differ");

            List<Object[]> changed = new ArrayList<>(rows);
            Object[] row = changed.get(5).clone();
            row[0] = (Long) row[0] + 1;
            changed.set(5, row);
            String report = expected.differences(digest(changed));
            assertThat(report).doesNotContain("row counts differ").contains("row checksums differ");
        }
    }

    @Test
    void exactComparisonNamesTheRows() {
        List<Object[]> rows = rows(100, 3);
        List<Object[]> other = new ArrayList<>(rows);
        other.set(0, new Object[]{999L, 1.0, "new", new byte[]{9}, 1, true});
        String report = digest(rows).differences(digest(other));
        assertThat(report).contains("rows differ: 1 missing from the actual result, 1 extra in it")
                .contains("extra   [999, 1.0d, \"new\", x'09', 1i, true]");
    }

    @Test
    void valuesThatSqlTreatsAsEqualKeysAreStillDifferentValues() {
        List<Object[]> zero = List.<Object[]>of(new Object[]{1L, 0.0, "", new byte[0], 0, false});
        List<Object[]> negativeZero = List.<Object[]>of(new Object[]{1L, -0.0, "", new byte[0], 0, false});
        List<Object[]> nullString = List.<Object[]>of(new Object[]{1L, 0.0, null, new byte[0], 0, false});
        List<Object[]> nullBytes = List.<Object[]>of(new Object[]{1L, 0.0, "", null, 0, false});
        assertThat(digest(zero).differences(digest(negativeZero))).contains("row checksums differ");
        assertThat(digest(zero).differences(digest(nullString))).contains("row checksums differ");
        assertThat(digest(zero).differences(digest(nullBytes))).contains("row checksums differ");
    }

    @Test
    void everyNanIsOneNan() {
        List<Object[]> a = List.<Object[]>of(new Object[]{1L, Double.NaN, "x", new byte[0], 0, true});
        List<Object[]> b = List.<Object[]>of(new Object[]{1L, Double.longBitsToDouble(0x7ff0000000000123L), "x",
            new byte[0], 0, true});
        assertThat(digest(a).differences(digest(b))).isEmpty();
    }

    @Test
    void pairingMattersNotOnlyTheValuesPerColumn() {
        List<Object[]> a = List.of(new Object[]{1L, 1.0, "a", new byte[0], 0, true},
                new Object[]{2L, 2.0, "b", new byte[0], 0, true});
        List<Object[]> b = List.of(new Object[]{1L, 2.0, "a", new byte[0], 0, true},
                new Object[]{2L, 1.0, "b", new byte[0], 0, true});
        assertThat(digest(a).differences(digest(b))).contains("row checksums differ");
    }
}
