package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import java.io.IOException;

/**
 * Writes the join's result batches in the output's format: {@link BatchCsvWriter} (CSV, maybe compressed) or
 * {@link ParquetResultWriter}. Used by one thread at a time (the join's, or the {@link BackgroundBatchWriter}'s).
 */
interface ResultWriter extends AutoCloseable {
    /** Writes the rows of {@code batch}; the caller may reuse the batch afterwards. */
    void write(Batch batch) throws IOException;

    /**
     * Writes out everything buffered and ends the format's stream (a compressed stream's last frame, a Parquet
     * footer), without closing the file beneath: its {@link OutputFile} commits it.
     */
    void finish() throws IOException;

    /** Rows written so far. */
    long rowsWritten();

    /** Stops what the writer runs besides the caller's thread, on every path (after {@link #finish()} too). */
    @Override
    default void close() {
    }
}
