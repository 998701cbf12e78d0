package dev.spilljoin.cli;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;

/**
 * One input of the join, whatever its format, as the {@link CsvPipeline} uses it: the join's {@link BatchSource}
 * ({@link #next()} into a reused batch), {@link #readInto} into the caller's batch for reading ahead on another
 * thread ({@link PrefetchingBatchSource}), where each row came from for messages, and the counts the statistics
 * report. {@link CsvBatchSource} for CSV, {@link ParquetBatchSource} for Parquet. Closing closes the files.
 */
interface InputBatches extends BatchSource, AutoCloseable {
    /**
     * Opens {@code input} as the join's {@code side} input, in its format, in batches of about {@code batchBytes}
     * ({@link BatchSizing#batchBytes}).
     */
    static InputBatches open(Side side, InputSide input, ProgressLine progress, int batchBytes) {
        return input.parquet() != null ? new ParquetBatchSource(side, input, progress, batchBytes)
                : new CsvBatchSource(side, input, progress, batchBytes);
    }

    /**
     * Reads the next batch into {@code target} (a batch of {@link #schema()}), the position of each row (see
     * {@link #where}) into {@code positions} (of {@link #batchRows()} entries); false at the end of the input.
     */
    boolean readInto(Batch target, long[] positions);

    /** The position of row {@code row} of the batch {@link #next()} returned last. */
    long positionOf(int row);

    /** How a message names a position of this input: "file line N" or "file row N". */
    String where(long position);

    /** The rows of this input's batches. */
    int batchRows();

    /** The operator schema of this input's batches. */
    Schema schema();

    Side side();

    /** Data rows read so far (skipped ones excluded). */
    long rowsRead();

    /** Malformed rows skipped under {@code --on-error skip}. */
    long rowsSkipped();

    /** The input's size in bytes as stored, or -1 when unknown (a pipe). */
    long fileBytes();

    @Override
    void close();
}
