package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;

/** A {@link RowView} over row {@link #row} of an operator result batch (valid while the batch is). */
final class BatchRowView implements RowView {
    private Batch batch;
    private int row;

    void moveTo(Batch batch, int row) {
        this.batch = batch;
        this.row = row;
    }

    @Override
    public Schema schema() {
        return batch.schema();
    }

    @Override
    public boolean isNull(int column) {
        return batch.column(column).isNull(row);
    }

    @Override
    public long getLong(int column) {
        return batch.column(column).getLong(row);
    }

    @Override
    public int getInt(int column) {
        return batch.column(column).getInt(row);
    }

    @Override
    public double getDouble(int column) {
        return batch.column(column).getDouble(row);
    }

    @Override
    public boolean getBoolean(int column) {
        return batch.column(column).getBoolean(row);
    }

    @Override
    public byte[] getBytes(int column) {
        return batch.column(column).getBytes(row);
    }
}
