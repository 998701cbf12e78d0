package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes the join's result batches as CSV rows through a {@link CsvWriter}: row by row (CSV is row-major), each
 * field straight from its column's array (text from the bytes and offsets, typed keys as numbers or booleans), no
 * object per field. NULL is written as an empty field and an empty text value as {@code ""}.
 */
final class BatchCsvWriter implements ResultWriter {
    private final CsvWriter writer;
    /** The compressor beneath the writer, closed (ending its stream, not the file's) by {@link #finish()}; or null. */
    private final OutputStream compressor;
    private ColumnVector[] columns = new ColumnVector[0];

    private BatchCsvWriter(CsvWriter writer, OutputStream compressor) {
        this.writer = writer;
        this.compressor = compressor;
    }

    /** A writer into {@code stream}, compressed as {@code compression} says, that has written the header. */
    static BatchCsvWriter open(OutputStream stream, CsvCompression compression, byte delimiter, String[] header)
            throws IOException {
        OutputStream compressor = compression == CsvCompression.NONE ? null
                : compression.compress(new UnclosedOutputStream(stream));
        CsvWriter csv = new CsvWriter(compressor == null ? stream : compressor, delimiter);
        csv.writeHeader(header);
        return new BatchCsvWriter(csv, compressor);
    }

    @Override
    public void finish() throws IOException {
        writer.flush();
        if (compressor != null) {
            compressor.close();
        }
    }

    @Override
    public long rowsWritten() {
        return writer.rowsWritten();
    }

    @Override
    public void write(Batch batch) throws IOException {
        int width = batch.columnCount();
        if (columns.length != width) {
            columns = new ColumnVector[width];
        }
        for (int c = 0; c < width; c++) {
            columns[c] = batch.column(c);
        }
        CsvWriter w = writer;
        for (int r = 0, rows = batch.rowCount(); r < rows; r++) {
            for (int c = 0; c < width; c++) {
                ColumnVector v = columns[c];
                if (v.isNull(r)) {
                    w.writeNull();
                    continue;
                }
                ColumnType type = v.type();
                switch (type) {
                    case VARCHAR, VARBINARY -> {
                        int[] offsets = v.offsets();
                        w.writeText(v.bytes(), offsets[r], offsets[r + 1] - offsets[r]);
                    }
                    case BIGINT -> w.writeLong(v.longs()[r]);
                    case INTEGER -> w.writeLong(v.ints()[r]);
                    case DOUBLE -> w.writeDouble(v.doubles()[r]);
                    case BOOLEAN -> w.writeBoolean(v.booleans()[r]);
                }
            }
            w.endRow();
        }
    }
}
