package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Writes the join's result batches as CSV rows through a {@link CsvWriter}: row by row (CSV is row-major), each
 * field straight from its column's array (text from the bytes and offsets, typed keys as numbers or booleans), no
 * object per field. NULL is written as an empty field and an empty text value as {@code ""}. A column that came
 * from a Parquet input is written by its logical type ({@link ParquetValueText}: a DATE as {@code 2024-01-05}, a
 * DECIMAL as {@code 123.45}, ...), the rendering chosen once per column at opening; any other as held.
 */
final class BatchCsvWriter implements ResultWriter {
    private final CsvWriter writer;
    /** The compressor beneath the writer, closed (ending its stream, not the file's) by {@link #finish()}; or null. */
    private final OutputStream compressor;
    /** Per output column: how its Parquet logical type is written, or null when written as held. */
    private final ParquetValueText[] texts;
    private ColumnVector[] columns = new ColumnVector[0];

    private BatchCsvWriter(CsvWriter writer, OutputStream compressor, ParquetValueText[] texts) {
        this.writer = writer;
        this.compressor = compressor;
        this.texts = texts;
    }

    /**
     * A writer into {@code stream}, compressed as {@code compression} says, that has written the header; column
     * {@code c} came from a Parquet input of type {@code parquetTypes[c]} when that is not null.
     */
    static BatchCsvWriter open(OutputStream stream, CsvCompression compression, byte delimiter, String[] header,
                               PrimitiveType[] parquetTypes) throws IOException {
        ParquetValueText[] texts = new ParquetValueText[header.length];
        for (int c = 0; c < texts.length; c++) {
            texts[c] = ParquetValueText.of(parquetTypes[c]);
        }
        OutputStream compressor = compression == CsvCompression.NONE ? null
                : compression.compress(new UnclosedOutputStream(stream));
        CsvWriter csv = new CsvWriter(compressor == null ? stream : compressor, delimiter);
        csv.writeHeader(header);
        return new BatchCsvWriter(csv, compressor, texts);
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
                ParquetValueText text = texts[c];
                if (text != null) {
                    text.write(w, v, r);
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
