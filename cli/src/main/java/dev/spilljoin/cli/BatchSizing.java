package dev.spilljoin.cli;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.spill.ByteSize;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much the CLI's and the join's on-heap batches hold: the rows of a CSV chunk or batch by bytes rather than a
 * fixed count, and the largest row the Java heap takes. The join's own memory is off-heap and budgeted by
 * {@code --work-mem}; the heap holds only the batches in flight between the files, the join and the output, and the
 * launcher caps it small ({@code SPILLJOIN_HEAP}, 256 MB by default).
 *
 * <p>Rules:
 * <ul>
 *   <li>a batch holds {@code clamp(TARGET_BYTES / row width, 1, max rows)} rows, the row width being the fixed heap
 *       share of its fields ({@value #FIELD_BYTES_PER_ROW} bytes per field: the offsets, null bits, parsed value and
 *       initial value bytes of the chunk and of the batch); so a batch's fixed arrays stay near
 *       {@value #TARGET_BYTES} bytes whatever the column count;</li>
 *   <li>a chunk also stops taking rows once its field bytes reach {@value #TARGET_BYTES} ({@link CsvReader#read}),
 *       so a batch's value bytes stay below that plus one row;</li>
 *   <li>a result batch (the join's, filled by rows from both sides) holds fewer rows when the inputs' first lines
 *       are long ({@link #outputRows}), and is handed out once its values reach {@value #TARGET_BYTES} bytes (the
 *       operator's byte bound, which holds whatever the rows further on), so its value bytes stay below that plus
 *       one result row;</li>
 *   <li>with more threads the batches are smaller, so that all the batches in flight together stay within
 *       {@value #IN_FLIGHT_HEAP_PERCENT} % of the heap whatever {@code --threads} ({@link #batchBytes}): the
 *       {@value #TARGET_BYTES} bytes above are the target of up to two threads; each batch in flight (counted by
 *       {@link #batchesInFlight}) is taken as twice its target, its fixed arrays and its values; a batch's one row
 *       beyond the target is bounded by the next rule instead;</li>
 *   <li>a row is at most 1/{@value #HEAP_SHARE_PER_ROW} of the heap ({@link #maxRowBytes()}): a row is held at
 *       once by the reader's chunk and by the batches of the read-ahead ring, and (joined, beside a row of the other
 *       side) by the join's result batch and the write-behind ring, each array grown by up to half again. A few
 *       such rows in flight leave room for the rest of the heap, and only a few are: each hand-over between
 *       threads holds batches of up to {@link #ringWaitingBytes} waiting (the join's queues likewise) before its
 *       producer waits, so batches of rows far beyond their target pass about one at a time, not one in each of
 *       the {@link #batchesInFlight} batches.</li>
 * </ul>
 */
final class BatchSizing {
    /** The bytes a batch's fixed arrays and its value bytes each aim at, with up to two threads. */
    static final int TARGET_BYTES = 1 << 20;
    /** The least a batch aims at, however many threads: smaller batches would cost more per row than they save. */
    static final int MIN_TARGET_BYTES = 16 << 10;
    /** The share of the heap, in percent, that the batches in flight take together at most ({@link #batchBytes}). */
    static final int IN_FLIGHT_HEAP_PERCENT = 40;
    /**
     * A value array (of a chunk's or a batch's column) larger than this was grown by a large row, not by a batch's
     * ordinary rows (at most {@value #TARGET_BYTES} bytes and one row, in an array grown by doubling), and is given
     * back rather than kept for the next batch.
     */
    static final int MAX_KEPT_VALUE_BYTES = 2 * TARGET_BYTES;
    /** The most rows an input chunk or batch holds, however narrow its rows. */
    static final int MAX_ROWS = 4096;
    /** The fixed heap share of one field of one row, over a chunk and the batch it is converted into. */
    static final int FIELD_BYTES_PER_ROW = 24;
    static final int HEAP_SHARE_PER_ROW = 64;
    /** The CSV lanes' buffers take at most this fraction (1/n) of the heap together ({@link #laneBufferBytes}). */
    static final int LANE_HEAP_SHARE = 20;
    /** The least buffer a CSV lane has, however many there are. */
    static final int MIN_LANE_BUFFER_BYTES = 64 << 10;
    /** Rows are never refused below this, nor allowed above the other bound (about PostgreSQL's 1 GB per field). */
    private static final long MIN_ROW_LIMIT = 1 << 20;
    private static final long MAX_ROW_LIMIT = 1 << 30;

    private BatchSizing() {
    }

    /**
     * The rows of a batch of {@code columns} fields per row whose fixed arrays aim at {@code targetBytes}: at least 1,
     * at most {@code maxRows}.
     */
    static int rows(int columns, int maxRows, int targetBytes) {
        long width = Math.max(1L, (long) columns * FIELD_BYTES_PER_ROW);
        return (int) Math.max(1, Math.min(maxRows, targetBytes / width));
    }

    /** The bytes the batches of {@code plan}'s run aim at, under this JVM's heap ({@link #batchBytes(int, long)}). */
    static int batchBytes(JoinPlan plan) {
        return batchBytes(plan.threads(), Runtime.getRuntime().maxMemory());
    }

    /**
     * The bytes the batches of a run of {@code threads} aim at under a heap of {@code heapBytes}: their fixed arrays
     * and their values each, {@value #TARGET_BYTES} at most, less when {@link #batchesInFlight} batches of twice
     * that would take more than {@value #IN_FLIGHT_HEAP_PERCENT} % of the heap; never below
     * {@value #MIN_TARGET_BYTES}.
     */
    static int batchBytes(int threads, long heapBytes) {
        long share = heapBytes / 100 * IN_FLIGHT_HEAP_PERCENT / (2L * batchesInFlight(threads));
        return (int) Math.max(MIN_TARGET_BYTES, Math.min(TARGET_BYTES, share));
    }

    /**
     * The bytes ({@link dev.spilljoin.operator.data.Batch#dataBytes}) that the batches waiting at a hand-over between
     * threads (a ring's handed on and not yet taken, {@link BatchRing}; a lane's copies not yet encoded) may reach
     * before the producer waits: two batches' target, which batches of ordinary rows stay below, so that batches
     * holding rows of megabytes pass one at a time.
     */
    static long ringWaitingBytes(int batchBytes) {
        return 2L * batchBytes;
    }

    /**
     * Whether {@code batch} holds a value array a large row grew (more than {@value #MAX_KEPT_VALUE_BYTES} bytes): a
     * batch given back is then replaced by a fresh one rather than kept for reuse.
     */
    static boolean holdsLargeValues(Batch batch) {
        for (int c = 0; c < batch.columnCount(); c++) {
            byte[] values = batch.column(c).bytes();
            if (values != null && values.length > MAX_KEPT_VALUE_BYTES) {
                return true;
            }
        }
        return false;
    }

    /**
     * The most batches a run of {@code threads} holds on the heap at once: with one thread each input's chunk and
     * batch; with more, each input's chunk and read-ahead ring ({@link PrefetchingBatchSource}), the write-behind
     * ring ({@link BackgroundBatchWriter}) and the Parquet encoders' column copies ({@link EncoderLane}, at most
     * {@value EncoderLane#COPIES} batches over all the lanes); and the join's ({@link JoinConfig#heapBatches}).
     */
    static int batchesInFlight(int threads) {
        int cli = threads == 1 ? 2 * 2
                : 2 * (1 + PrefetchingBatchSource.BATCHES) + BackgroundBatchWriter.BATCHES + EncoderLane.COPIES;
        return cli + JoinConfig.heapBatches(joinThreads(threads));
    }

    /**
     * The buffer of each of {@code lanes} CSV lanes the join's workers write into ({@link LaneSink}) under a heap of
     * {@code heapBytes}: {@link CsvWriter#DEFAULT_BUFFER_BYTES}, less when that many would take more than
     * 1/{@value #LANE_HEAP_SHARE} of the heap, never below {@value #MIN_LANE_BUFFER_BYTES} (a lane grows for a
     * longer row).
     */
    static int laneBufferBytes(int lanes, long heapBytes) {
        long share = heapBytes / LANE_HEAP_SHARE / Math.max(1, lanes);
        return (int) Math.max(MIN_LANE_BUFFER_BYTES, Math.min(CsvWriter.DEFAULT_BUFFER_BYTES, share));
    }

    /** The join's workers for {@code --threads} {@code threads}: as many, up to the operator's maximum. */
    static int joinThreads(int threads) {
        return Math.min(threads, JoinConfig.MAX_THREADS);
    }

    /**
     * The most rows of a result batch written in {@code format}: {@link #MAX_ROWS} for Parquet, whose writer's work
     * per batch (a loop per column write store, the hand-off to the writer thread) is then spread over four times the
     * rows; the operator's default for CSV, where result batches that large made the run slower, not faster. Either
     * way a result batch's bytes stay bounded by {@link #outputRows} and the operator's byte bound.
     */
    static int maxOutputRows(ResultFormat format) {
        return format.format() == DataFormat.PARQUET ? MAX_ROWS : JoinConfig.DEFAULT.outputBatchRows();
    }

    /**
     * The rows of a result batch of {@code plan}'s join, at most {@code maxRows}: the result row's width is its
     * fields' fixed share plus the average line of each input ({@link #averageLineBytes}), so that a result batch of
     * wide rows (their values copied into it from both sides) also stays near the run's {@link #batchBytes}.
     */
    static int outputRows(JoinPlan plan, int maxRows) {
        long width = (long) plan.outputNames().length * FIELD_BYTES_PER_ROW + averageRowBytes(plan.left())
                + averageRowBytes(plan.right());
        return (int) Math.max(1, Math.min(maxRows, batchBytes(plan) / Math.max(1, width)));
    }

    /**
     * The average stored row of {@code input}: a Parquet input's bytes per row (compressed: an underestimate), a
     * plain CSV file's {@link #averageLineBytes}, 0 when not known without reading the input (a pipe, compressed CSV).
     */
    static long averageRowBytes(InputSide input) {
        if (input.parquet() != null) {
            return input.parquet().bytes() / Math.max(1, input.parquet().rows());
        }
        return InputStreams.isPlainFile(input.file()) ? averageLineBytes(input.file()) : 0;
    }

    /**
     * The average line length of the first {@value #TARGET_BYTES} bytes of {@code file} (a line running past them
     * counts as that long): an estimate of its rows' width; 0 if it cannot be read (the join then reports that).
     */
    static long averageLineBytes(Path file) {
        byte[] head = new byte[TARGET_BYTES];
        int length = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; length < head.length && (n = in.read(head, length, head.length - length)) > 0; ) {
                length += n;
            }
        } catch (IOException e) {
            return 0;
        }
        int lines = 0;
        for (int i = 0; i < length; i++) {
            if (head[i] == '\n') {
                lines++;
            }
        }
        return length / Math.max(1, lines);
    }

    /** The largest row (its field bytes) accepted under this JVM's heap. */
    static long maxRowBytes() {
        return maxRowBytes(Runtime.getRuntime().maxMemory());
    }

    static long maxRowBytes(long heapBytes) {
        return Math.max(MIN_ROW_LIMIT, Math.min(MAX_ROW_LIMIT, heapBytes / HEAP_SHARE_PER_ROW));
    }

    /**
     * The heap that accepts rows of {@code rowBytes}: a power of two of megabytes, for the error message, with an
     * eighth to spare (a JVM's usable heap is a little less than its {@code -Xmx}: the serial collector keeps a
     * survivor space out of it).
     */
    static String heapFor(long rowBytes) {
        long needed = Math.max(rowBytes, 1) * HEAP_SHARE_PER_ROW * 9 / 8;
        long megabytes = Long.highestOneBit(Math.max(1, (needed - 1) >> 20)) << 1;
        return megabytes >= 1024 ? (megabytes >> 10) + "g" : megabytes + "m";
    }

    /** The heap of this JVM, as the error message names it. */
    static String heapNow() {
        return ByteSize.format(Runtime.getRuntime().maxMemory());
    }
}
