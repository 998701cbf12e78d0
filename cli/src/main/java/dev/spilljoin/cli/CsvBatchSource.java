package dev.spilljoin.cli;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import java.io.IOException;
import java.nio.file.Files;

/**
 * One input file of the join as the operator's {@link BatchSource}: reads {@link CsvChunk}s of
 * {@value #CHUNK_ROWS} rows (fewer when rows are wide) and converts each into one reused {@link Batch}
 * ({@link ChunkConverter}). Its size hint is the file's size in bytes, so the join builds on the smaller file.
 * Reports each chunk's rows to the {@link ProgressLine}. Closing closes the file.
 */
final class CsvBatchSource implements BatchSource, AutoCloseable {
    static final int CHUNK_ROWS = 4096;

    private final Side side;
    private final CsvReader reader;
    private final CsvChunk chunk;
    private final Batch batch;
    private final long fileBytes;
    private final ProgressLine progress;

    CsvBatchSource(Side side, InputSide input, ProgressLine progress) {
        this.side = side;
        this.progress = progress;
        this.fileBytes = sizeOf(input);
        this.reader = input.openReader();
        this.chunk = reader.newChunk(CHUNK_ROWS);
        this.batch = new Batch(ChunkConverter.schemaOf(input), CHUNK_ROWS);
    }

    @Override
    public Batch next() {
        if (!reader.read(chunk)) {
            return null;
        }
        ChunkConverter.copy(chunk, batch);
        progress.rowsRead(side, chunk.rows());
        return batch;
    }

    @Override
    public long sizeHintBytes() {
        return fileBytes;
    }

    /** Data rows read so far (skipped ones excluded). */
    long rowsRead() {
        return reader.rowsRead();
    }

    /** Malformed rows skipped under {@code --on-error skip}. */
    long rowsSkipped() {
        return reader.rowsSkipped();
    }

    long fileBytes() {
        return fileBytes;
    }

    @Override
    public void close() {
        reader.close();
    }

    private static long sizeOf(InputSide input) {
        try {
            return Files.size(input.file());
        } catch (IOException e) {
            throw new InputException("cannot read " + input.file() + ": " + e.getMessage() + "; check the path", e);
        }
    }
}
