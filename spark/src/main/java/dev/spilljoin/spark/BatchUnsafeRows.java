package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter;

/**
 * The fast path's output: the rows of a result {@link Batch} as Spark {@code UnsafeRow}s, written one at a time
 * into one reused {@link UnsafeRowWriter} (no object per row; strings and binaries copied from the column's byte
 * array), each column back in its Spark representation ({@link SparkColumn}: a compact decimal as its unscaled
 * long, as {@code UnsafeRow} stores it). The row returned by {@link #row(int)} is valid until the next call, as
 * Spark's operators expect of an internal-row iterator.
 */
final class BatchUnsafeRows {
    private final UnsafeRowWriter writer;
    private final SparkColumn[] columns;
    private Batch batch;
    private int rows;

    BatchUnsafeRows(SparkColumn[] columns) {
        this.columns = columns.clone();
        this.writer = new UnsafeRowWriter(columns.length, 64);
    }

    void load(Batch result) {
        this.batch = result;
        this.rows = result.rowCount();
    }

    int rowCount() {
        return rows;
    }

    InternalRow row(int r) {
        writer.reset();
        writer.zeroOutNullBytes();
        for (int c = 0; c < columns.length; c++) {
            ColumnVector v = batch.column(c);
            if (v.isNull(r)) {
                writer.setNullAt(c);
                continue;
            }
            switch (columns[c]) {
                case LONG, TIMESTAMP, DECIMAL64 -> writer.write(c, v.getLong(r));
                case INT, DATE -> writer.write(c, v.getInt(r));
                case SHORT -> writer.write(c, (short) v.getInt(r));
                case BYTE -> writer.write(c, (byte) v.getInt(r));
                case DOUBLE -> writer.write(c, v.getDouble(r));
                case FLOAT -> writer.write(c, (float) v.getDouble(r));
                case BOOLEAN -> writer.write(c, v.getBoolean(r));
                case STRING, BINARY -> writer.write(c, v.bytes(), v.byteOffset(r), v.byteLength(r));
            }
        }
        return writer.getRow();
    }
}
