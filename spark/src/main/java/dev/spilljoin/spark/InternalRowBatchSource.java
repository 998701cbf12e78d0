package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import java.util.Iterator;

/**
 * The fast path's input: Spark's internal rows (as a shuffle hands them out) as a {@link BatchSource}. Spark may
 * reuse one row object for every row, so each row is copied into the batch as it arrives (row by row, a switch on
 * the column's {@link SparkColumn} reading per value, no object per row); strings are copied from their UTF-8 bytes
 * straight into the column's byte array; a compact decimal is read as its unscaled long (straight from an
 * {@code UnsafeRow}'s slot). Size hints are unknown (-1): the caller fixes the build side.
 */
final class InternalRowBatchSource implements BatchSource {
    private final Iterator<InternalRow> rows;
    private final SparkColumn[] columns;
    private final int[] precision;
    private final int[] scale;
    private final Batch batch;
    private final int batchRows;

    /**
     * @param columns   the reading of each row field, in order; {@code schema} has their carrier types
     * @param precision per column, the decimal precision (read only for DECIMAL64 columns)
     * @param scale     per column, the decimal scale (read only for DECIMAL64 columns)
     */
    InternalRowBatchSource(Iterator<InternalRow> rows, Schema schema, SparkColumn[] columns, int[] precision,
                           int[] scale, int batchRows) {
        this.rows = rows;
        this.columns = columns.clone();
        this.precision = precision.clone();
        this.scale = scale.clone();
        this.batch = new Batch(schema, batchRows);
        this.batchRows = batchRows;
    }

    @Override
    public Batch next() {
        batch.reset();
        int n = 0;
        while (n < batchRows && rows.hasNext()) {
            copyRow(rows.next(), n++);
        }
        if (n == 0) {
            return null;
        }
        batch.setRowCount(n);
        return batch;
    }

    private void copyRow(InternalRow row, int r) {
        for (int c = 0; c < columns.length; c++) {
            ColumnVector v = batch.column(c);
            if (row.isNullAt(c)) {
                v.setNull(r);
                continue;
            }
            switch (columns[c]) {
                case LONG, TIMESTAMP -> v.setLong(r, row.getLong(c));
                case INT, DATE -> v.setInt(r, row.getInt(c));
                case SHORT -> v.setInt(r, row.getShort(c));
                case BYTE -> v.setInt(r, row.getByte(c));
                case DOUBLE -> v.setDouble(r, row.getDouble(c));
                case FLOAT -> v.setDouble(r, row.getFloat(c));
                case BOOLEAN -> v.setBoolean(r, row.getBoolean(c));
                case DECIMAL64 -> v.setLong(r, row instanceof UnsafeRow ? row.getLong(c)
                        : row.getDecimal(c, precision[c], scale[c]).toUnscaledLong());
                case STRING -> {
                    UTF8String s = row.getUTF8String(c);
                    int start = v.reserveBytes(r, s.numBytes());
                    s.writeToMemory(v.bytes(), Platform.BYTE_ARRAY_OFFSET + start);
                }
                case BINARY -> {
                    byte[] bytes = row.getBinary(c);
                    v.setBytes(r, bytes, 0, bytes.length);
                }
            }
        }
    }
}
