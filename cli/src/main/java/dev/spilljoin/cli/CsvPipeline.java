package dev.spilljoin.cli;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;

/**
 * The stages around the join and the threads they run on, as {@code --threads N} sets them. The stages: parse
 * each input file into batches, join (the operator), format the result batches as CSV and write them.
 *
 * <ul>
 *   <li>N = 1: everything on the join's (the caller's) thread, one stage after the other: the
 *       {@link InputBatches} are the join's sources and the {@link ResultWriter} writes each result batch.</li>
 *   <li>N ≥ 2: each input file is parsed ahead on a thread of its own ({@link PrefetchingBatchSource}; the join
 *       reads the build file to its end before the probe file, so one of them works at a time), and the join runs
 *       on the caller's thread and its own workers (up to N). CSV results are formatted and written by the worker
 *       that made them, in place, each worker into a lane of the output of its own ({@link #workerSink()},
 *       {@link LaneSink}); Parquet results are copied to a thread of their own that encodes them (on up to N
 *       threads, {@link ParquetResultWriter}) and writes them ({@link BackgroundBatchWriter}). So parsing, joining
 *       and writing overlap.</li>
 * </ul>
 *
 * <p>Either way the rows and every failure's exit code and message are the same; the rows' order is the join's with
 * N = 1, and with N ≥ 2 as its workers finish their batches. {@link #finish()}
 * returns when every row is flushed to the output, which the caller commits only then; {@link #close()} stops
 * every stage thread on every path (it does not close the files or the output: their owner does, after it).
 * Progress is reported as batches reach the join and as result batches leave it, or as a worker wrote them.
 */
final class CsvPipeline implements AutoCloseable {
    private final BatchSource left;
    private final BatchSource right;
    private final InputBatches leftFile;
    private final InputBatches rightFile;
    private final ProgressLine progress;
    /** N = 1: writes on the join's thread; else null. */
    private final ResultWriter direct;
    /** N ≥ 2: the stage threads; else null. */
    private final PrefetchingBatchSource leftAhead;
    private final PrefetchingBatchSource rightAhead;
    /** N ≥ 2 and an output with lanes: the sink the join's workers write into ({@link #workerSink()}); else null. */
    private final LaneSink workerSink;
    /** N ≥ 2 and an output without lanes: the writer thread (started at its first use); else null. */
    private final BackgroundBatchWriter writeBehind;

    private CsvPipeline(InputBatches left, InputBatches right, ResultWriter output, Schema resultSchema,
                        int threads, int batchBytes, ProgressLine progress) {
        this.progress = progress;
        this.leftFile = left;
        this.rightFile = right;
        if (threads == 1) {
            this.left = left;
            this.right = right;
            this.direct = output;
            this.leftAhead = null;
            this.rightAhead = null;
            this.workerSink = null;
            this.writeBehind = null;
        } else {
            this.leftAhead = new PrefetchingBatchSource(left, progress, batchBytes);
            this.rightAhead = new PrefetchingBatchSource(right, progress, batchBytes);
            this.left = leftAhead.reader();
            this.right = rightAhead.reader();
            this.direct = null;
            int lanes = BatchSizing.joinThreads(threads);
            this.workerSink = LaneSink.open(output, lanes,
                    BatchSizing.laneBufferBytes(lanes, Runtime.getRuntime().maxMemory()), progress);
            this.writeBehind = workerSink == null ? new BackgroundBatchWriter(output, resultSchema, batchBytes) : null;
        }
    }

    /**
     * N ≥ 2 and an output with lanes (CSV): the thread-safe sink the join's workers write their result batches to
     * ({@link dev.spilljoin.operator.HashJoin#run}); else null, and the caller hands each result batch to
     * {@link #write}.
     */
    LaneSink workerSink() {
        return workerSink;
    }

    /**
     * The pipeline of {@code threads} (≥ 1) threads from the two files to {@code output}, for result batches of
     * {@code resultSchema}, its batches aiming at {@code batchBytes} ({@link BatchSizing#batchBytes}). No thread
     * starts before its stage is first used.
     */
    static CsvPipeline open(int threads, int batchBytes, InputBatches left, InputBatches right, ResultWriter output,
                            Schema resultSchema, ProgressLine progress) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        return new CsvPipeline(left, right, output, resultSchema, threads, batchBytes, progress);
    }

    /** The left file's batches, for the join. */
    BatchSource left() {
        return left;
    }

    /** The right file's batches, for the join. */
    BatchSource right() {
        return right;
    }

    /**
     * The file and line of row {@code row} of the {@code side} input's batch marked {@code origin} (read ahead), or of
     * the batch it handed to the join last (N = 1, one worker), as a message names it: {@code "file line N"} (CSV) or
     * {@code "file row N"} (Parquet); null if no worker holds that batch any more. Once the join's workers stopped.
     */
    String whereIs(Side side, long origin, int row) {
        InputBatches file = side == Side.LEFT ? leftFile : rightFile;
        PrefetchingBatchSource ahead = side == Side.LEFT ? leftAhead : rightAhead;
        long position = ahead != null ? ahead.positionOf(origin, row) : file.positionOf(row);
        return position < 0 ? null : file.where(position);
    }

    /**
     * Writes (or hands on to be written) one result batch; the join may reuse it afterwards. Not with a
     * {@link #workerSink()}.
     */
    void write(Batch result) throws IOException {
        if (workerSink != null) {
            throw new IllegalStateException("the join's workers write the results (workerSink)");
        }
        if (writeBehind != null) {
            writeBehind.write(result);
        } else {
            direct.write(result);
        }
        progress.rowsWritten(result.rowCount());
    }

    /**
     * Returns when every result row is written and the output's format ended ({@link ResultWriter#finish()}; written
     * behind: by the writer thread, which has ended), so that the output may be committed.
     */
    void finish() throws IOException {
        if (workerSink != null) {
            workerSink.finish();
        } else if (writeBehind != null) {
            writeBehind.finish();
        } else {
            direct.finish();
        }
    }

    /** Stops the stage threads (the writer first, then the readers). Idempotent. */
    @Override
    public void close() {
        if (writeBehind != null) {
            writeBehind.close();
        }
        if (leftAhead != null) {
            leftAhead.close();
            rightAhead.close();
        }
    }
}
