package dev.spilljoin.operator.data;

/**
 * A columnar batch of rows of one {@link Schema}: one {@link ColumnVector} per column and a row count. Batches are
 * reusable: {@link #reset()} empties one without giving up its arrays. A source may mark where a batch came from
 * ({@link #setOrigin}); the mark travels with the rows ({@link #copyFrom}), so that a row the join refuses can be
 * found in its input whichever worker held it.
 */
public final class Batch {
    private final Schema schema;
    private final ColumnVector[] columns;
    private int rowCount;
    private long origin = -1;

    public Batch(Schema schema, int capacity) {
        this.schema = schema;
        this.columns = new ColumnVector[schema.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = new ColumnVector(schema.type(i), capacity);
        }
    }

    public Schema schema() {
        return schema;
    }

    public ColumnVector column(int index) {
        return columns[index];
    }

    public int columnCount() {
        return columns.length;
    }

    public int rowCount() {
        return rowCount;
    }

    public void setRowCount(int rowCount) {
        this.rowCount = rowCount;
    }

    /** Grows every column to hold {@code rows} rows. */
    public void ensureCapacity(int rows) {
        for (ColumnVector c : columns) {
            c.ensureCapacity(rows);
        }
    }

    /** Makes this batch (of the same schema) a copy of {@code source}'s rows and origin, reusing its own arrays. */
    public void copyFrom(Batch source) {
        int rows = source.rowCount();
        for (int i = 0; i < columns.length; i++) {
            columns[i].copyFrom(source.column(i), rows);
        }
        rowCount = rows;
        origin = source.origin;
    }

    /**
     * The number its source gave this batch to find it by ({@link #setOrigin}), or -1 if none did: a
     * {@link dev.spilljoin.operator.RowTooLargeException} reports the origin of the refused row's batch.
     */
    public long origin() {
        return origin;
    }

    /** Marks where the batch's rows came from (the source's count of its batches, say); kept until set again. */
    public void setOrigin(long origin) {
        this.origin = origin;
    }

    public void reset() {
        for (ColumnVector c : columns) {
            c.reset(rowCount);
        }
        rowCount = 0;
    }

    /** Approximate bytes the batch's values occupy (fixed widths plus variable-width bytes), for size hints. */
    public long dataBytes() {
        long total = 0;
        for (ColumnVector c : columns) {
            total += dataBytes(c);
        }
        return total;
    }

    /** {@link #dataBytes()} of the columns {@code indexes} only (the others may hold fewer rows than the batch). */
    public long dataBytes(int[] indexes) {
        long total = 0;
        for (int index : indexes) {
            total += dataBytes(columns[index]);
        }
        return total;
    }

    private long dataBytes(ColumnVector c) {
        return c.type().isVariableWidth() ? c.offsets()[rowCount] + 4L * rowCount
                : (long) c.type().fixedWidth() * rowCount;
    }
}
