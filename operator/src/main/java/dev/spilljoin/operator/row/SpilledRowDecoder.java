package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.data.Schema;

import java.util.Arrays;

/**
 * Turns a block of spilled probe rows (as read back from a spill file, in the {@link SpillRowFormat}) into a
 * {@link Batch} of the probe side's schema, with the rows' stored hashes and NULL-key bits beside it, so that
 * spilled probe rows go through the very same {@link dev.spilljoin.operator.table.HashProbe} and {@link dev.spilljoin.operator.table.OutputWriter} as the probe pass's rows —
 * one probe path, no re-hashing.
 *
 * <p>Algorithm: walk the block's rows by their lengths, collecting up to a batch of row addresses, hashes and
 * flags; then, field at a time in field order, find every row's value address ({@link SpillRowFormat#valueAddresses},
 * a row's variable-width values walked over once with the cursors of a {@link GatherScratch}) and copy the values
 * into the field's column ({@link RowReader#gatherValues}). Only the columns the join reads (keys and
 * projected columns) are filled; the others are left empty. The row addresses stay valid while the block does (the
 * nested-loop path copies the rows on from there).
 */
public final class SpilledRowDecoder {
    private final SpillRowFormat format;
    private final Batch batch;
    private final int capacity;
    private final int[] columnOfField;
    private final long[] rows;
    private final GatherScratch scratch;
    private final long[] hashes;
    private final long[] nullKeys;
    private final long[] matchedBefore;

    public SpilledRowDecoder(SpillRowFormat format, Schema schema, int capacity) {
        RowLayout layout = format.layout();
        this.format = format;
        this.batch = new Batch(schema, capacity);
        this.capacity = capacity;
        this.columnOfField = new int[layout.fieldCount()];
        for (int f = 0; f < layout.fieldCount(); f++) {
            int column = layout.sourceColumn(f);
            columnOfField[f] = layout.fieldOfColumn(column) == f ? column : -1;
        }
        this.rows = new long[capacity];
        this.scratch = new GatherScratch(capacity);
        this.hashes = new long[capacity];
        this.nullKeys = new long[(capacity + 63) >>> 6];
        this.matchedBefore = new long[(capacity + 63) >>> 6];
    }

    /**
     * Decodes rows from {@code offset} of the block at {@code block} ({@code length} bytes) into the batch, up to its
     * capacity, with their key hashes when {@code withHashes} (else {@link #hashes} is left as it was: a row of a
     * fixed-width key recomputes its hash, a tenth of a spilled pair's probe with the direct-index table, which
     * reads keys); returns the offset after the last row decoded.
     */
    public int decode(long block, int length, int offset, boolean withHashes) {
        batch.reset();
        int n = 0;
        Arrays.fill(nullKeys, 0L);
        Arrays.fill(matchedBefore, 0L);
        while (offset < length && n < capacity) {
            long row = block + offset;
            rows[n] = row;
            if (withHashes) {
                hashes[n] = format.hash(row);
            }
            byte flags = format.flags(row);
            if ((flags & RowLayout.NULL_KEY) != 0) {
                Bitmaps.set(nullKeys, n);
            }
            if ((flags & RowLayout.MATCHED) != 0) {
                Bitmaps.set(matchedBefore, n);
            }
            offset += format.rowLength(row);
            n++;
        }
        RowLayout layout = format.layout();
        scratch.newRows();
        for (int f = 0; f < columnOfField.length; f++) {
            if (columnOfField[f] >= 0) {
                format.valueAddresses(f, rows, n, scratch);
                RowReader.gatherValues(layout.fieldType(f), scratch.addresses(), n, batch.column(columnOfField[f]), 0);
            }
        }
        batch.setRowCount(n);
        return offset;
    }

    public SpillRowFormat format() {
        return format;
    }

    public Batch batch() {
        return batch;
    }

    public long[] hashes() {
        return hashes;
    }

    public long[] nullKeys() {
        return nullKeys;
    }

    /** Rows whose MATCHED flag was set when they were written (the nested-loop path's earlier chunks). */
    public long[] matchedBefore() {
        return matchedBefore;
    }

    public long rowAddress(int i) {
        return rows[i];
    }
}
