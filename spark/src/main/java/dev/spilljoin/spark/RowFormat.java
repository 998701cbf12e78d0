package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;

import java.io.Serializable;
import java.util.Iterator;

/**
 * How a task's input rows become batches and its result batches become rows: Spark's public {@link Row} API
 * ({@link #PUBLIC}) or Spark's internal rows ({@link #INTERNAL}, the fast path: no conversion to and from external
 * Java objects, but it relies on Spark's internal row classes).
 *
 * @param <T> the row class
 */
interface RowFormat<T> extends Serializable {
    RowFormat<Row> PUBLIC = new Public();
    RowFormat<InternalRow> INTERNAL = new Internal();

    BatchSource source(Iterator<T> rows, Schema schema, int batchRows);

    ResultRows<T> results(Schema output);

    /** The rows of one result batch, taken out before the join reuses the batch. */
    interface ResultRows<T> {
        void load(Batch batch);

        int rowCount();

        /** Row {@code r} of the loaded batch; with internal rows it is valid until the next call. */
        T row(int r);
    }

    /** {@link RowBatchSource} in, {@link BatchRows} out. */
    final class Public implements RowFormat<Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public BatchSource source(Iterator<Row> rows, Schema schema, int batchRows) {
            return new RowBatchSource(rows, schema, batchRows);
        }

        @Override
        public ResultRows<Row> results(Schema output) {
            return new ResultRows<>() {
                private Row[] rows = new Row[0];

                @Override
                public void load(Batch batch) {
                    rows = BatchRows.toRows(batch);
                }

                @Override
                public int rowCount() {
                    return rows.length;
                }

                @Override
                public Row row(int r) {
                    return rows[r];
                }
            };
        }
    }

    /** {@link InternalRowBatchSource} in, {@link BatchUnsafeRows} out. */
    final class Internal implements RowFormat<InternalRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public BatchSource source(Iterator<InternalRow> rows, Schema schema, int batchRows) {
            SparkColumn[] columns = new SparkColumn[schema.size()];
            for (int c = 0; c < columns.length; c++) {
                columns[c] = SparkColumn.ofCarrier(schema.type(c));
            }
            int[] noDecimals = new int[columns.length];
            return new InternalRowBatchSource(rows, schema, columns, noDecimals, noDecimals, batchRows);
        }

        @Override
        public ResultRows<InternalRow> results(Schema output) {
            SparkColumn[] columns = new SparkColumn[output.size()];
            for (int c = 0; c < columns.length; c++) {
                columns[c] = SparkColumn.ofCarrier(output.type(c));
            }
            BatchUnsafeRows rows = new BatchUnsafeRows(columns);
            return new ResultRows<>() {
                @Override
                public void load(Batch batch) {
                    rows.load(batch);
                }

                @Override
                public int rowCount() {
                    return rows.rowCount();
                }

                @Override
                public InternalRow row(int r) {
                    return rows.row(r);
                }
            };
        }
    }
}
