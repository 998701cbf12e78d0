package dev.spilljoin.operator.data;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a list of batches row by row, for tests and callers that produce rows one at a time. Typed appends go
 * column by column within a row ({@code appendLong(0, 5).appendNull(1).endRow()}); {@link #addRow(Object...)} takes
 * boxed values (Long, Integer, Double, Boolean, String, byte[] or null) for convenience where speed does not matter.
 */
public final class BatchBuilder {
    private final Schema schema;
    private final int batchRows;
    private final List<Batch> batches = new ArrayList<>();
    private Batch current;
    private int row;

    public BatchBuilder(Schema schema, int batchRows) {
        if (batchRows < 1) {
            throw new IllegalArgumentException("batch size must be at least 1 row, got " + batchRows);
        }
        this.schema = schema;
        this.batchRows = batchRows;
    }

    private Batch current() {
        if (current == null) {
            current = new Batch(schema, batchRows);
            row = 0;
        }
        return current;
    }

    public BatchBuilder appendLong(int column, long value) {
        current().column(column).setLong(row, value);
        return this;
    }

    public BatchBuilder appendInt(int column, int value) {
        current().column(column).setInt(row, value);
        return this;
    }

    public BatchBuilder appendDouble(int column, double value) {
        current().column(column).setDouble(row, value);
        return this;
    }

    public BatchBuilder appendBoolean(int column, boolean value) {
        current().column(column).setBoolean(row, value);
        return this;
    }

    public BatchBuilder appendBytes(int column, byte[] value) {
        current().column(column).setBytes(row, value, 0, value.length);
        return this;
    }

    public BatchBuilder appendString(int column, String value) {
        return appendBytes(column, value.getBytes(StandardCharsets.UTF_8));
    }

    public BatchBuilder appendNull(int column) {
        current().column(column).setNull(row);
        return this;
    }

    /** Completes the row; starts a new batch when the current one is full. */
    public BatchBuilder endRow() {
        row++;
        current.setRowCount(row);
        if (row == batchRows) {
            batches.add(current);
            current = null;
        }
        return this;
    }

    /** Appends one row of boxed values in schema order (null = SQL NULL). */
    public BatchBuilder addRow(Object... values) {
        if (values.length != schema.size()) {
            throw new IllegalArgumentException("row has " + values.length + " values but schema " + schema + " has "
                    + schema.size() + " columns");
        }
        current();
        for (int c = 0; c < values.length; c++) {
            Object v = values[c];
            if (v == null) {
                appendNull(c);
                continue;
            }
            switch (schema.type(c)) {
                case BIGINT -> appendLong(c, ((Number) v).longValue());
                case INTEGER -> appendInt(c, ((Number) v).intValue());
                case DOUBLE -> appendDouble(c, ((Number) v).doubleValue());
                case BOOLEAN -> appendBoolean(c, (Boolean) v);
                case VARCHAR -> appendString(c, (String) v);
                case VARBINARY -> appendBytes(c, (byte[]) v);
            }
        }
        return endRow();
    }

    /** The batches built so far, the last one possibly partial; the builder can go on appending after this. */
    public List<Batch> build() {
        List<Batch> result = new ArrayList<>(batches);
        if (current != null && row > 0) {
            batches.add(current);
            result.add(current);
            current = null;
        }
        return result;
    }
}
