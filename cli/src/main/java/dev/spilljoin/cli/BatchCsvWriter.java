package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Writes the join's result batches as CSV rows through a {@link CsvWriter}: row by row (CSV is row-major), each
 * field straight from its column's array (text from the bytes and offsets, typed keys as numbers or booleans), no
 * object per field. NULL is written as an empty field and an empty text value as {@code ""}. A column that came
 * from a Parquet input is written by its logical type ({@link ParquetValueText}: a DATE as {@code 2024-01-05}, a
 * DECIMAL as {@code 123.45}, ...), the rendering chosen once per column at opening; any other as held. A batch
 * whose columns are all integers and bytes written as held (the CSV case's) is written into room reserved for its
 * most bytes at once ({@link CsvWriter#reserveRows}), without a check for room per field: the same bytes, about a
 * tenth less CPU for W1's rows.
 *
 * <p>Lanes ({@link #lanes}): writers of the same output for threads that format batches at the same time, each
 * into a buffer of its own that goes to the stream as whole rows ({@link CsvWriter}'s {@code wholeRows}) by one
 * atomic write ({@link AtomicWrites}), so rows never interleave; a batch's rows stay together within a write, the
 * batches' order is the order their lanes write them in. The compressor, if any, compresses those writes one at a
 * time as they come.
 */
final class BatchCsvWriter implements ResultWriter {
    private final CsvWriter writer;
    /** The stream the rows go to: the compressor, else the output's stream. */
    private final OutputStream target;
    /** The compressor beneath the writer, closed (ending its stream, not the file's) by {@link #finish()}; or null. */
    private final OutputStream compressor;
    private final byte delimiter;
    /** Per output column: how its Parquet logical type is written, or null when written as held. */
    private final ParquetValueText[] texts;
    /** The lanes made by {@link #lanes}, whose rows this writer counts too. */
    private final List<BatchCsvWriter> lanes = new ArrayList<>();
    private ColumnVector[] columns = new ColumnVector[0];

    private BatchCsvWriter(CsvWriter writer, OutputStream target, OutputStream compressor, byte delimiter,
                           ParquetValueText[] texts) {
        this.writer = writer;
        this.target = target;
        this.compressor = compressor;
        this.delimiter = delimiter;
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
        OutputStream target = compressor == null ? stream : compressor;
        CsvWriter csv = new CsvWriter(target, delimiter);
        csv.writeHeader(header);
        return new BatchCsvWriter(csv, target, compressor, delimiter, texts);
    }

    /**
     * {@code count} lanes (see the class comment) with buffers of {@code bufferBytes}; what this writer holds (the
     * header) goes out before the lanes' first rows, or at {@link #finish()} if none come, so that a join that fails
     * first has written nothing. Each lane's {@link #finish()} writes out its own rows; this writer's, after every
     * lane's, ends the compressed stream. This writer writes no batch meanwhile.
     */
    @Override
    public List<ResultWriter> lanes(int count, int bufferBytes) {
        OutputStream shared = new AtomicWrites(target, writer);
        List<ResultWriter> made = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            BatchCsvWriter lane = new BatchCsvWriter(new CsvWriter(shared, delimiter, bufferBytes, true), shared,
                    null, delimiter, texts);
            lanes.add(lane);
            made.add(lane);
        }
        return made;
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
        long rows = writer.rowsWritten();
        for (BatchCsvWriter lane : lanes) {
            rows += lane.rowsWritten();
        }
        return rows;
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
        long reserve = reservableBytes(batch.rowCount());
        if (reserve >= 0 && writer.reserveRows(reserve)) {
            writeReserved(batch.rowCount());
            return;
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

    /**
     * The most bytes {@code rows} rows of {@link #columns} take as CSV, when every column is an integer or bytes
     * written as held and numbers need no quotes; else -1 (such rows are written field by field).
     */
    private long reservableBytes(int rows) {
        if (!writer.numbersNeedNoQuotes()) {
            return -1;
        }
        long bytes = (long) rows * (columns.length + 1); // delimiters and line ends
        for (int c = 0; c < columns.length; c++) {
            ColumnVector v = columns[c];
            if (texts[c] != null) {
                return -1;
            }
            switch (v.type()) {
                case BIGINT, INTEGER -> bytes += (long) rows * CsvWriter.maxLongBytes();
                case VARCHAR, VARBINARY -> bytes += rows * CsvWriter.maxTextBytes(0)
                        + CsvWriter.maxTextBytes(v.offsets()[rows] - v.offsets()[0]) - CsvWriter.maxTextBytes(0);
                default -> {
                    return -1;
                }
            }
        }
        return bytes;
    }

    /**
     * Writes {@code rows} rows of {@link #columns} into the room {@link CsvWriter#reserveRows} made for them: a loop
     * per row and field without a check for room or a rendering's quotes, which the field-by-field path has.
     */
    private void writeReserved(int rows) {
        CsvWriter w = writer;
        ColumnVector[] vectors = columns;
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < vectors.length; c++) {
                if (c > 0) {
                    w.putDelimiter();
                }
                ColumnVector v = vectors[c];
                if (v.isNull(r)) {
                    continue;
                }
                switch (v.type()) {
                    case BIGINT -> w.putLong(v.longs()[r]);
                    case INTEGER -> w.putLong(v.ints()[r]);
                    default -> {
                        int[] offsets = v.offsets();
                        w.putText(v.bytes(), offsets[r], offsets[r + 1] - offsets[r]);
                    }
                }
            }
            w.putRowEnd();
        }
    }

    /**
     * A stream whose writes, from any thread, reach the stream beneath one whole write after the other, the first
     * after what a writer before them held; a thread waiting for another's write to end leaves on an interrupt
     * ({@link InterruptedIOException}).
     */
    private static final class AtomicWrites extends OutputStream {
        private final OutputStream out;
        private final ReentrantLock lock = new ReentrantLock();
        /** The writer whose bytes go out before the first write (then null). */
        private CsvWriter before;

        AtomicWrites(OutputStream out, CsvWriter before) {
            this.out = out;
            this.before = before;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int from, int length) throws IOException {
            lock();
            try {
                if (before != null) {
                    before.flush();
                    before = null;
                }
                out.write(bytes, from, length);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void flush() throws IOException {
            lock();
            try {
                out.flush();
            } finally {
                lock.unlock();
            }
        }

        private void lock() throws InterruptedIOException {
            try {
                lock.lockInterruptibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while writing CSV");
            }
        }
    }
}
