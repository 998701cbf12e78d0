package dev.spilljoin.operator.table;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowReader;

import java.util.List;

/**
 * Collects result rows as (probe row index, build row address) pairs and turns them into a result batch of the
 * projected columns, column at a time. Probe index -1 or build address 0 means that side is NULL (outer padding,
 * or a side the result does not have).
 *
 * <p>Protocol: the producer {@link #append}s while {@link #room()} &gt; 0 and calls {@link #materialize} before the
 * probe batch it references goes away; when {@link #isFull()} (or at the end) the batch from {@link #batch()} is
 * handed out, then {@link #clear()}ed for reuse.
 */
public final class OutputWriter {
    private final Batch out;
    private final int capacity;
    private final boolean[] fromProbe;
    private final int[] sourceColumn;
    private final int[] buildField;
    private final RowReader reader;
    private final int[] probeRows;
    private final long[] buildRows;
    private int pending;

    public OutputWriter(Schema outputSchema, List<ColumnRef> projection, Side buildSide, RowLayout buildLayout, int capacity) {
        this(new Batch(outputSchema, capacity), projection, buildSide, buildLayout, capacity);
    }

    private OutputWriter(Batch out, List<ColumnRef> projection, Side buildSide, RowLayout buildLayout, int capacity) {
        this.out = out;
        this.capacity = capacity;
        int n = projection.size();
        fromProbe = new boolean[n];
        sourceColumn = new int[n];
        buildField = new int[n];
        for (int c = 0; c < n; c++) {
            ColumnRef ref = projection.get(c);
            fromProbe[c] = ref.side() != buildSide;
            sourceColumn[c] = ref.column();
            buildField[c] = fromProbe[c] ? -1 : buildLayout.fieldOfColumn(ref.column());
        }
        this.reader = new RowReader(buildLayout);
        this.probeRows = new int[capacity];
        this.buildRows = new long[capacity];
    }

    /**
     * A writer into the same result batch for the other orientation: rows of {@code buildSide} come as serialized
     * rows of {@code buildLayout}, the other side's from probe batches (a spilled pair joined with roles reversed).
     * Both writers see the same batch; each materializes its own pending rows.
     */
    public OutputWriter reoriented(List<ColumnRef> projection, Side buildSide, RowLayout buildLayout) {
        return new OutputWriter(out, projection, buildSide, buildLayout, capacity);
    }

    /** Rows that can still be appended before the batch is full. */
    public int room() {
        return capacity - out.rowCount() - pending;
    }

    public void append(int probeRow, long buildRow) {
        probeRows[pending] = probeRow;
        buildRows[pending] = buildRow;
        pending++;
    }

    /** Copies the pending rows into the result batch; {@code probe} is the batch the probe indexes refer to. */
    public void materialize(Batch probe) {
        if (pending == 0) {
            return;
        }
        int start = out.rowCount();
        for (int c = 0; c < fromProbe.length; c++) {
            ColumnVector target = out.column(c);
            if (fromProbe[c]) {
                copyProbeColumn(probe, sourceColumn[c], target, start);
            } else {
                reader.gather(buildField[c], buildRows, pending, target, start);
            }
        }
        out.setRowCount(start + pending);
        pending = 0;
    }

    private void copyProbeColumn(Batch probe, int column, ColumnVector target, int start) {
        int n = pending;
        int[] rows = probeRows;
        if (probe == null) {
            for (int j = 0; j < n; j++) {
                target.setNull(start + j);
            }
            return;
        }
        ColumnVector src = probe.column(column);
        boolean nulls = src.mayHaveNulls();
        switch (src.type()) {
            case BIGINT -> {
                long[] v = src.longs();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setLong(start + j, v[i]);
                    }
                }
            }
            case INTEGER -> {
                int[] v = src.ints();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setInt(start + j, v[i]);
                    }
                }
            }
            case DOUBLE -> {
                double[] v = src.doubles();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setDouble(start + j, v[i]);
                    }
                }
            }
            case BOOLEAN -> {
                boolean[] v = src.booleans();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setBoolean(start + j, v[i]);
                    }
                }
            }
            case VARCHAR, VARBINARY -> {
                int[] offsets = src.offsets();
                byte[] bytes = src.bytes();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setBytes(start + j, bytes, offsets[i], offsets[i + 1] - offsets[i]);
                    }
                }
            }
        }
    }

    public boolean isFull() {
        return out.rowCount() == capacity;
    }

    /** Rows materialized into the current batch. */
    public int rowCount() {
        return out.rowCount();
    }

    public Batch batch() {
        return out;
    }

    public void clear() {
        out.reset();
    }
}
