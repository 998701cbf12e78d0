package dev.spilljoin.cli;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.nio.file.Files;

/**
 * One input file of the join as the operator's {@link BatchSource}: reads {@link CsvChunk}s of up to
 * {@link BatchSizing#MAX_ROWS} rows, fewer when rows are wide ({@link #batchRows()}: sized by bytes,
 * {@link BatchSizing}), and converts each into a {@link Batch} ({@link ChunkConverter}): {@link #next()} into one
 * reused batch (made at its first use), reporting its rows to the {@link ProgressLine};
 * {@link #readInto} into the caller's (a {@link PrefetchingBatchSource} reading ahead on its own thread). Its size
 * hint is the file's size in bytes, so the join builds on the smaller file. Closing closes the file.
 */
final class CsvBatchSource implements InputBatches {
    private final Side side;
    private final CsvReader reader;
    private final CsvChunk chunk;
    private final Schema schema;
    private Batch batch;
    private final long fileBytes;
    private final ProgressLine progress;

    CsvBatchSource(Side side, InputSide input, ProgressLine progress, int batchBytes) {
        this.side = side;
        this.progress = progress;
        this.fileBytes = sizeOf(input);
        this.reader = input.openReader();
        this.chunk = reader.newChunk(BatchSizing.MAX_ROWS, batchBytes);
        this.schema = ChunkConverter.schemaOf(input);
    }

    @Override
    public Batch next() {
        if (batch == null) {
            batch = new Batch(schema, batchRows());
        }
        if (!readInto(batch)) {
            return null;
        }
        progress.rowsRead(side, batch.rowCount());
        return batch;
    }

    /** Reads the next chunk into {@code target} (a batch of {@link #schema()}); false at the end of the file. */
    boolean readInto(Batch target) {
        if (!reader.read(chunk)) {
            return false;
        }
        ChunkConverter.copy(chunk, target);
        return true;
    }

    /** As {@link #readInto(Batch)}, also copying the line where each row starts into {@code lines}. */
    @Override
    public boolean readInto(Batch target, long[] lines) {
        if (!readInto(target)) {
            return false;
        }
        System.arraycopy(chunk.lines(), 0, lines, 0, chunk.rows());
        return true;
    }

    /** The line where row {@code row} of the batch {@link #next()} returned last starts. */
    @Override
    public long positionOf(int row) {
        return chunk.lines()[row];
    }

    @Override
    public String where(long line) {
        return reader.fileName() + " line " + line;
    }

    /** The rows of this input's chunks, so of its batches: at most {@link BatchSizing#MAX_ROWS}. */
    @Override
    public int batchRows() {
        return chunk.capacity();
    }

    /** The operator schema of this input's batches ({@link ChunkConverter#schemaOf}). */
    @Override
    public Schema schema() {
        return schema;
    }

    @Override
    public Side side() {
        return side;
    }

    @Override
    public long sizeHintBytes() {
        return fileBytes;
    }

    /** Data rows read so far (skipped ones excluded). */
    @Override
    public long rowsRead() {
        return reader.rowsRead();
    }

    /** Malformed rows skipped under {@code --on-error skip}. */
    @Override
    public long rowsSkipped() {
        return reader.rowsSkipped();
    }

    @Override
    public long fileBytes() {
        return fileBytes;
    }

    @Override
    public void close() {
        reader.close();
    }

    private static long sizeOf(InputSide input) {
        if (input.opened() != null) {
            return -1;
        }
        try {
            return Files.size(input.file());
        } catch (IOException e) {
            throw new InputException("cannot read " + input.file() + ": " + e.getMessage() + "; check the path", e);
        }
    }
}
