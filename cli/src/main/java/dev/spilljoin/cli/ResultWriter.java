package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import java.io.IOException;
import java.util.List;

/**
 * Writes the join's result batches in the output's format: {@link BatchCsvWriter} (CSV, maybe compressed) or
 * {@link ParquetResultWriter}. Used by one thread at a time (the join's, or the {@link BackgroundBatchWriter}'s),
 * or through its {@link #lanes} by the join's workers ({@link LaneSink}).
 */
interface ResultWriter extends AutoCloseable {
    /** Writes the rows of {@code batch}; the caller may reuse the batch afterwards. */
    void write(Batch batch) throws IOException;

    /**
     * Writes out everything buffered and ends the format's stream (a compressed stream's last frame, a Parquet
     * footer), without closing the file beneath: its {@link OutputFile} commits it.
     */
    void finish() throws IOException;

    /**
     * Writers of this output for {@code count} threads that write batches at the same time, one thread to a lane at
     * a time, each buffering about {@code bufferBytes}: each lane's {@link #finish()} writes out its own rows, and
     * this writer's, called after every lane's, ends the format's stream; this writer writes no batch meanwhile, and
     * its {@link #rowsWritten()} counts the lanes' rows. None (an empty list) for a format written by one thread
     * (Parquet: its encoders have threads of their own).
     */
    default List<ResultWriter> lanes(int count, int bufferBytes) {
        return List.of();
    }

    /** Rows written so far. */
    long rowsWritten();

    /** Stops what the writer runs besides the caller's thread, on every path (after {@link #finish()} too). */
    @Override
    default void close() {
    }
}
