package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Converts a result {@link Batch} into Spark {@link Row}s before the join reuses the batch: the values are copied
 * column by column (one loop per column and type) into one {@code Object[]} per row, boxed as Spark's Row API
 * expects (BIGINT → Long, INTEGER → Integer, DOUBLE → Double, BOOLEAN → Boolean, VARCHAR → String,
 * VARBINARY → byte[]; NULL → null).
 */
final class BatchRows {
    private BatchRows() {
    }

    static Row[] toRows(Batch batch) {
        int n = batch.rowCount();
        int columns = batch.columnCount();
        Object[][] values = new Object[n][columns];
        for (int c = 0; c < columns; c++) {
            ColumnVector v = batch.column(c);
            switch (v.type()) {
                case BIGINT -> {
                    for (int r = 0; r < n; r++) {
                        values[r][c] = v.isNull(r) ? null : v.getLong(r);
                    }
                }
                case INTEGER -> {
                    for (int r = 0; r < n; r++) {
                        values[r][c] = v.isNull(r) ? null : v.getInt(r);
                    }
                }
                case DOUBLE -> {
                    for (int r = 0; r < n; r++) {
                        values[r][c] = v.isNull(r) ? null : v.getDouble(r);
                    }
                }
                case BOOLEAN -> {
                    for (int r = 0; r < n; r++) {
                        values[r][c] = v.isNull(r) ? null : v.getBoolean(r);
                    }
                }
                case VARCHAR -> {
                    for (int r = 0; r < n; r++) {
                        values[r][c] = v.isNull(r) ? null : v.getString(r);
                    }
                }
                case VARBINARY -> {
                    for (int r = 0; r < n; r++) {
                        values[r][c] = v.isNull(r) ? null : v.getBytes(r);
                    }
                }
            }
        }
        Row[] rows = new Row[n];
        for (int r = 0; r < n; r++) {
            rows[r] = RowFactory.create(values[r]);
        }
        return rows;
    }
}
