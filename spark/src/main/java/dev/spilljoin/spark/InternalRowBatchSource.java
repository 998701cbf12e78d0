package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import java.util.Iterator;

/**
 * The fast path's input: Spark's internal rows (as a shuffle hands them out) as a {@link BatchSource}. Spark may
 * reuse one row object for every row, so each row is copied into the batch as it arrives (row by row, a switch on
 * the column's type per value, no object per row); strings are copied from their UTF-8 bytes straight into the
 * column's byte array. Size hints are unknown (-1): the caller fixes the build side.
 */
final class InternalRowBatchSource implements BatchSource {
    private final Iterator<InternalRow> rows;
    private final ColumnType[] types;
    private final Batch batch;
    private final int batchRows;

    InternalRowBatchSource(Iterator<InternalRow> rows, Schema schema, int batchRows) {
        this.rows = rows;
        this.types = new ColumnType[schema.size()];
        for (int c = 0; c < types.length; c++) {
            types[c] = schema.type(c);
        }
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
        for (int c = 0; c < types.length; c++) {
            ColumnVector v = batch.column(c);
            if (row.isNullAt(c)) {
                v.setNull(r);
                continue;
            }
            switch (types[c]) {
                case BIGINT -> v.setLong(r, row.getLong(c));
                case INTEGER -> v.setInt(r, row.getInt(c));
                case DOUBLE -> v.setDouble(r, row.getDouble(c));
                case BOOLEAN -> v.setBoolean(r, row.getBoolean(c));
                case VARCHAR -> {
                    UTF8String s = row.getUTF8String(c);
                    int start = v.reserveBytes(r, s.numBytes());
                    s.writeToMemory(v.bytes(), Platform.BYTE_ARRAY_OFFSET + start);
                }
                case VARBINARY -> {
                    byte[] bytes = row.getBinary(c);
                    v.setBytes(r, bytes, 0, bytes.length);
                }
            }
        }
    }
}
