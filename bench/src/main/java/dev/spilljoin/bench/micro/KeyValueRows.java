package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.PartitionPages;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowPages;
import dev.spilljoin.spill.MemoryReservation;

import java.util.SplittableRandom;

/**
 * The rows the microbenchmarks work on, in W1's shape {@code (k BIGINT, v BIGINT)}: as input batches of
 * {@link #BATCH_ROWS} rows, and as serialized build rows ({@link #ROW_BYTES} bytes each) in {@link RowPages},
 * written as the build writes them: keys hashed, then rows serialized, a batch at a time. The operator's internals
 * are reached through {@link #ACCESS}, their one entry point for the benchmarks. Keys are seeded, so every run and
 * the unit test see the same rows.
 */
final class KeyValueRows {
    /** Rows per input batch (the operator's default result batch size too). */
    static final int BATCH_ROWS = 1024;
    static final Schema SCHEMA = Schema.of(new Column("k", ColumnType.BIGINT, false),
            new Column("v", ColumnType.BIGINT, false));
    static final int[] KEY_COLUMNS = {0};
    /** The operator's internals for these rows (keyed by {@code k}, serialized with both columns). */
    static final MicroBenchmarkAccess ACCESS = MicroBenchmarkAccess.forRows(SCHEMA, KEY_COLUMNS);
    /** Bytes of one serialized row: a byte of flags and null bits, two 8-byte fields (a constant for JMH's annotations). */
    static final int ROW_BYTES = 17;

    static {
        if (ACCESS.rowBytes() != ROW_BYTES) {
            throw new IllegalStateException("the operator's (BIGINT, BIGINT) rows are " + ACCESS.rowBytes()
                    + " bytes, the benchmarks assume " + ROW_BYTES);
        }
    }
    /**
     * The partitions the table benchmarks' rows come in, as the build's resident partitions (the table has one
     * directory range per partition).
     */
    static final int TABLE_PARTITIONS = 16;
    /** The operator's default row page ({@code JoinConfig.DEFAULT}). */
    static final int PAGE_BYTES = 256 * 1024;

    private KeyValueRows() {
    }

    /** The payload of key {@code key}. */
    static long payload(long key) {
        return 3 * key + 1;
    }

    /** The keys {@code from, ..., from + n - 1} in a random order given by {@code seed}. */
    static long[] shuffledRange(long from, int n, long seed) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = from + i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = keys[i];
            keys[i] = keys[j];
            keys[j] = t;
        }
        return keys;
    }

    /** {@code n} keys drawn uniformly from {@code [from, from + range)} with {@code seed}. */
    static long[] uniform(long from, long range, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = from + random.nextLong(range);
        }
        return keys;
    }

    /** The batch of rows {@code keys[from, from + n)}, each with its {@link #payload}. */
    static Batch batch(long[] keys, int from, int n) {
        Batch batch = new Batch(SCHEMA, n);
        ColumnVector k = batch.column(0);
        ColumnVector v = batch.column(1);
        for (int i = 0; i < n; i++) {
            k.setLong(i, keys[from + i]);
            v.setLong(i, payload(keys[from + i]));
        }
        batch.setRowCount(n);
        return batch;
    }

    /** {@code keys} cut into batches of {@link #BATCH_ROWS} rows; {@code keys.length} must be a multiple of it. */
    static Batch[] batches(long[] keys) {
        if (keys.length % BATCH_ROWS != 0) {
            throw new IllegalArgumentException(keys.length + " keys are not a whole number of " + BATCH_ROWS
                    + "-row batches");
        }
        Batch[] batches = new Batch[keys.length / BATCH_ROWS];
        for (int b = 0; b < batches.length; b++) {
            batches[b] = batch(keys, b * BATCH_ROWS, BATCH_ROWS);
        }
        return batches;
    }

    /**
     * New row pages of {@link #PAGE_BYTES} reserved from {@code memory} holding one serialized row per key, in key
     * order; throws if the budget cannot hold them.
     */
    static RowPages serialize(long[] keys, MemoryReservation memory) {
        RowPages rows = ACCESS.newRowPages(memory, PAGE_BYTES);
        MicroBenchmarkAccess.BatchHasher hasher = ACCESS.batchHasher();
        long[] hashes = new long[BATCH_ROWS];
        long[] nullKeys = new long[BATCH_ROWS / 64];
        for (int from = 0; from < keys.length; from += BATCH_ROWS) {
            Batch batch = batch(keys, from, Math.min(BATCH_ROWS, keys.length - from));
            hasher.hash(batch, hashes, nullKeys);
            if (rows.write(batch, hashes, nullKeys) != batch.rowCount()) {
                rows.close();
                throw new IllegalStateException("the budget '" + memory.name() + "' cannot hold " + keys.length
                        + " rows of " + ROW_BYTES + " bytes");
            }
        }
        return rows;
    }

    /**
     * The rows of {@code keys}, written as the build writes them before its table is made: hashed, then scattered
     * by h1 into {@link #TABLE_PARTITIONS} partitions' pages, a batch at a time.
     */
    static PartitionPages partitioned(long[] keys, MemoryReservation memory) {
        PartitionPages rows = ACCESS.newPartitionPages(memory, TABLE_PARTITIONS, PAGE_BYTES);
        MicroBenchmarkAccess.BatchHasher hasher = ACCESS.batchHasher();
        long[] hashes = new long[BATCH_ROWS];
        long[] nullKeys = new long[BATCH_ROWS / 64];
        int bits = Integer.numberOfTrailingZeros(TABLE_PARTITIONS);
        for (int from = 0; from < keys.length; from += BATCH_ROWS) {
            Batch batch = batch(keys, from, Math.min(BATCH_ROWS, keys.length - from));
            hasher.hash(batch, hashes, nullKeys);
            if (rows.scatter(batch, hashes, nullKeys, bits) != batch.rowCount()) {
                rows.close();
                throw new IllegalStateException("the budget '" + memory.name() + "' cannot hold " + keys.length
                        + " rows of " + ROW_BYTES + " bytes in " + TABLE_PARTITIONS + " partitions");
            }
        }
        return rows;
    }

    /** Off-heap bytes {@link #partitioned} reserves at most: whole pages, a partial one per partition. */
    static long partitionedBytes(long rows) {
        return arenaBytes(rows) + (long) TABLE_PARTITIONS * PAGE_BYTES;
    }

    /** The most a table over {@code rows} rows from {@link #partitioned} reserves. */
    static long tableBytes(long rows) {
        return ACCESS.tableBytes(rows, rows * ROW_BYTES, TABLE_PARTITIONS);
    }

    /** Off-heap bytes {@link #serialize} reserves for {@code rows} rows: whole pages of whole rows. */
    static long arenaBytes(long rows) {
        long rowsPerPage = PAGE_BYTES / ROW_BYTES;
        return (rows + rowsPerPage - 1) / rowsPerPage * PAGE_BYTES;
    }
}
