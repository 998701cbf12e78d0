package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import java.io.IOException;
import java.util.List;

/**
 * Writes the join's result batches in the output's format: {@link BatchCsvWriter} (CSV, maybe compressed) or
 * {@link ParquetResultWriter}. Used by one thread at a time (the join's, or the {@link BackgroundBatchWriter}'s),
 * or by its {@link #lanes}, one thread each.
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
     * Writers of this output for {@code count} threads, one each, that may write batches at the same time: each
     * lane's {@link #finish()} writes out its own rows, and this writer's, called after every lane's, ends the
     * format's stream; this writer writes no batch meanwhile, and its {@link #rowsWritten()} counts the lanes' rows.
     * By default one lane, for a format written by one thread: it writes into this writer, and its finish leaves
     * the output's end to this writer's.
     */
    default List<ResultWriter> lanes(int count) throws IOException {
        return List.of(new OneLane(this));
    }

    /** Rows written so far. */
    long rowsWritten();

    /** Stops what the writer runs besides the caller's thread, on every path (after {@link #finish()} too). */
    @Override
    default void close() {
    }

    /** The one lane of a writer of a format written by one thread ({@link #lanes}). */
    final class OneLane implements ResultWriter {
        private final ResultWriter output;

        OneLane(ResultWriter output) {
            this.output = output;
        }

        @Override
        public void write(Batch batch) throws IOException {
            output.write(batch);
        }

        /** Nothing: the output's own {@code finish} writes out what it holds and ends it. */
        @Override
        public void finish() {
        }

        @Override
        public long rowsWritten() {
            return output.rowsWritten();
        }
    }
}
