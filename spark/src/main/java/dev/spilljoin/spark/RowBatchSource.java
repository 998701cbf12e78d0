package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.sql.Row;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * Spark {@link Row}s as a {@link BatchSource}: takes up to {@code batchRows} rows from the iterator into a reused
 * array, then fills one reused {@link Batch} column by column with one loop per column and type (the type switch is
 * outside the row loop). Row field {@code i} becomes batch column {@code i}; the schema's types are the rows' types
 * as mapped by {@link SparkTypes}. Size hints are unknown (-1): the caller fixes the build side.
 */
final class RowBatchSource implements BatchSource {
    private final Iterator<Row> rows;
    private final Schema schema;
    private final Row[] buffer;
    private final Batch batch;

    RowBatchSource(Iterator<Row> rows, Schema schema, int batchRows) {
        this.rows = rows;
        this.schema = schema;
        this.buffer = new Row[batchRows];
        this.batch = new Batch(schema, batchRows);
    }

    @Override
    public Batch next() {
        int n = 0;
        while (n < buffer.length && rows.hasNext()) {
            buffer[n++] = rows.next();
        }
        if (n == 0) {
            return null;
        }
        batch.reset();
        for (int c = 0; c < schema.size(); c++) {
            fillColumn(schema.type(c), batch.column(c), c, n);
        }
        batch.setRowCount(n);
        return batch;
    }

    private void fillColumn(ColumnType type, ColumnVector v, int f, int n) {
        Row[] in = buffer;
        switch (type) {
            case BIGINT -> {
                for (int r = 0; r < n; r++) {
                    if (in[r].isNullAt(f)) {
                        v.setNull(r);
                    } else {
                        v.setLong(r, in[r].getLong(f));
                    }
                }
            }
            case INTEGER -> {
                for (int r = 0; r < n; r++) {
                    if (in[r].isNullAt(f)) {
                        v.setNull(r);
                    } else {
                        v.setInt(r, in[r].getInt(f));
                    }
                }
            }
            case DOUBLE -> {
                for (int r = 0; r < n; r++) {
                    if (in[r].isNullAt(f)) {
                        v.setNull(r);
                    } else {
                        v.setDouble(r, in[r].getDouble(f));
                    }
                }
            }
            case BOOLEAN -> {
                for (int r = 0; r < n; r++) {
                    if (in[r].isNullAt(f)) {
                        v.setNull(r);
                    } else {
                        v.setBoolean(r, in[r].getBoolean(f));
                    }
                }
            }
            case VARCHAR -> {
                for (int r = 0; r < n; r++) {
                    if (in[r].isNullAt(f)) {
                        v.setNull(r);
                    } else {
                        byte[] utf8 = in[r].getString(f).getBytes(StandardCharsets.UTF_8);
                        v.setBytes(r, utf8, 0, utf8.length);
                    }
                }
            }
            case VARBINARY -> {
                for (int r = 0; r < n; r++) {
                    if (in[r].isNullAt(f)) {
                        v.setNull(r);
                    } else {
                        byte[] bytes = (byte[]) in[r].get(f);
                        v.setBytes(r, bytes, 0, bytes.length);
                    }
                }
            }
        }
    }
}
