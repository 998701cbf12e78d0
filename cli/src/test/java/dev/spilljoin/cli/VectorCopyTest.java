package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link VectorCopy#batch}: every column type, NULLs, the empty string, and a reused target batch. */
class VectorCopyTest {
    private static final Schema SCHEMA = Schema.of(Column.of("b", ColumnType.BIGINT),
            Column.of("i", ColumnType.INTEGER), Column.of("d", ColumnType.DOUBLE), Column.of("z", ColumnType.BOOLEAN),
            Column.of("s", ColumnType.VARCHAR), Column.of("v", ColumnType.VARBINARY));

    /** Row r: every column r-derived; NULL in column c when (r + c) % 3 == 0; text "" on row 1. */
    private static Batch source(int rows) {
        Batch batch = new Batch(SCHEMA, 1);
        batch.ensureCapacity(rows);
        for (int r = 0; r < rows; r++) {
            batch.column(0).setLong(r, r * 1_000_000_007L);
            batch.column(1).setInt(r, -r);
            batch.column(2).setDouble(r, r + 0.5);
            batch.column(3).setBoolean(r, r % 2 == 0);
            byte[] text = (r == 1 ? "" : "row " + r + " ✓").getBytes(StandardCharsets.UTF_8);
            batch.column(4).setBytes(r, text, 0, text.length);
            batch.column(5).setBytes(r, new byte[] {(byte) r, 0, -1}, 0, 3);
            for (int c = 0; c < SCHEMA.size(); c++) {
                if ((r + c) % 3 == 0) {
                    batch.column(c).setNull(r);
                }
            }
        }
        batch.setRowCount(rows);
        return batch;
    }

    private static void assertSameRows(Batch actual, Batch expected) {
        assertThat(actual.rowCount()).isEqualTo(expected.rowCount());
        for (int c = 0; c < SCHEMA.size(); c++) {
            ColumnVector a = actual.column(c);
            ColumnVector e = expected.column(c);
            for (int r = 0; r < expected.rowCount(); r++) {
                assertThat(a.isNull(r)).as("column %d row %d null", c, r).isEqualTo(e.isNull(r));
                if (e.isNull(r)) {
                    continue;
                }
                boolean same = switch (e.type()) {
                    case BIGINT -> a.getLong(r) == e.getLong(r);
                    case INTEGER -> a.getInt(r) == e.getInt(r);
                    case DOUBLE -> a.getDouble(r) == e.getDouble(r);
                    case BOOLEAN -> a.getBoolean(r) == e.getBoolean(r);
                    case VARCHAR, VARBINARY -> Arrays.equals(a.getBytes(r), e.getBytes(r));
                };
                assertThat(same).as("column %d row %d", c, r).isTrue();
            }
        }
    }

    @Test
    void copiesEveryTypeWithNullsAndEmptyTextIntoAReusedBatch() {
        Batch target = new Batch(SCHEMA, 1);
        Batch big = source(300);
        VectorCopy.batch(big, target);
        assertSameRows(target, big);

        // Reused for fewer rows without NULLs: the stale NULL bits of the first copy must be gone.
        Batch small = new Batch(SCHEMA, 1);
        small.ensureCapacity(2);
        for (int r = 0; r < 2; r++) {
            small.column(0).setLong(r, 7);
            small.column(1).setInt(r, 7);
            small.column(2).setDouble(r, 7);
            small.column(3).setBoolean(r, true);
            small.column(4).setBytes(r, new byte[] {'x'}, 0, 1);
            small.column(5).setBytes(r, new byte[] {'y'}, 0, 1);
        }
        small.setRowCount(2);
        VectorCopy.batch(small, target);
        assertSameRows(target, small);
        for (int c = 0; c < SCHEMA.size(); c++) {
            assertThat(target.column(c).mayHaveNulls()).as("column %d", c).isFalse();
        }

        Batch empty = new Batch(SCHEMA, 1);
        VectorCopy.batch(empty, target);
        assertThat(target.rowCount()).isZero();
    }
}
