package dev.spilljoin.operator.internal;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.operator.table.DirectIndexProbe;
import dev.spilljoin.operator.table.DirectIndexTable;
import dev.spilljoin.operator.table.KeyRange;
import dev.spilljoin.operator.table.HashProbe;
import dev.spilljoin.operator.table.JoinStrategy;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.ParallelTasks;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.PartitionWriter;

import java.io.IOException;
import java.util.List;

/**
 * INTERNAL AND UNSUPPORTED: the one entry point through which the JMH micro benchmarks ({@code bench} module,
 * package {@code dev.spilljoin.bench.micro}) reach the operator's internals ({@code dev.spilljoin.operator.row} and
 * {@code dev.spilljoin.operator.table}). It is not API: nothing but those benchmarks and their unit test may use it,
 * and it changes whenever the internals do. The operator's API is {@code dev.spilljoin.operator} and
 * {@code dev.spilljoin.operator.data}.
 *
 * <p>An instance stands for one row shape: a schema, its key columns, and the serialized row layout that keeps
 * every column ({@link #forRows}). It hands out small handles, each doing one operation the benchmarks time, a
 * batch (or a page, or a buffer) per call; every per-row loop stays inside the operator, so a benchmark times the
 * operator's own loops with one extra call per batch:
 * <ul>
 *   <li>{@link BatchHasher}: the 64-bit key hash H of every row of a batch ({@code KeyHasher});</li>
 *   <li>{@link RowPages}: serialized rows in off-heap pages reserved from a budget ({@code RowArena}), written a
 *       batch at a time ({@code RowWriter}); they append every row to a spill file's writer, copy whole rows into a
 *       buffer ({@link RowCursor}), and sum their stored key hashes;</li>
 *   <li>{@link PartitionPages}: the build's radix partitioning, one arena per partition, a batch routed by the top
 *       bits of h1 ({@link #partitionsOf}) and scattered into the arenas in one {@code RowWriter} call;</li>
 *   <li>{@link HashTable}: the join's hash table ({@code UnchainedTable}) built from the rows of a
 *       {@link PartitionPages} (which it empties, as the build frees each arena it copies) within a budget;</li>
 *   <li>{@link DirectTable}: a direct-index table ({@code DirectIndexTable}) filled from the rows of a
 *       {@link RowPages}, reserved from a budget;</li>
 *   <li>{@link InnerProbe}: an INNER join's batched probe ({@code HashProbe}, or {@code DirectIndexProbe} for a
 *       direct-index table) of one batch against a table built from the right side, its results materialized into a
 *       result batch ({@code OutputWriter}).</li>
 * </ul>
 * The static {@link #keyHash(long)}, {@link #keyHash(byte[])} and {@link #partitionHash} compute the same functions
 * for single values: reference values for the benchmarks' checks, not for timed loops. Every handle that holds
 * off-heap memory frees it on {@code close}, returning its bytes to the budget it was given.
 */
public final class MicroBenchmarkAccess {
    private final int[] keyColumns;
    private final RowLayout layout;

    private MicroBenchmarkAccess(Schema schema, int[] keyColumns) {
        this.keyColumns = keyColumns.clone();
        int[] allColumns = new int[schema.size()];
        for (int c = 0; c < allColumns.length; c++) {
            allColumns[c] = c;
        }
        this.layout = new RowLayout(schema, this.keyColumns, allColumns);
    }

    /** Access for rows of {@code schema} keyed by {@code keyColumns}, serialized with every column. */
    public static MicroBenchmarkAccess forRows(Schema schema, int[] keyColumns) {
        return new MicroBenchmarkAccess(schema, keyColumns);
    }

    /** A hasher of this shape's key columns. */
    public BatchHasher batchHasher() {
        return new BatchHasher(new KeyHasher(keyColumns));
    }

    /** Empty row pages of {@code pageBytes} each, reserved from {@code memory} as rows arrive. */
    public RowPages newRowPages(MemoryReservation memory, int pageBytes) {
        return new RowPages(this, new RowArena(memory, pageBytes), new RowWriter(layout));
    }

    /** {@code partitions} empty arenas of {@code pageBytes} pages, reserved from {@code memory} as rows arrive. */
    public PartitionPages newPartitionPages(MemoryReservation memory, int partitions, int pageBytes) {
        RowArena[] arenas = new RowArena[partitions];
        for (int p = 0; p < partitions; p++) {
            arenas[p] = new RowArena(memory, pageBytes);
        }
        return new PartitionPages(layout, arenas, new RowWriter(layout));
    }

    /**
     * The most off-heap bytes a table over {@code rows} rows of this shape (of {@code rowBytes} in all) from
     * {@code partitions} partitions reserves.
     */
    public long tableBytes(long rows, long rowBytes, int partitions) {
        return UnchainedTable.bytesFor(layout, rows, rowBytes, partitions);
    }

    /**
     * The table of an INNER join (no MATCHED flags, NULL-key rows dropped) over every row of {@code rows}, as the
     * build's finish makes it from its resident partitions (one directory range per partition), reserved from
     * {@code memory}; {@code rows} is emptied (its pages freed as they are copied). Null if refused.
     */
    public HashTable tryBuildTable(MemoryReservation memory, PartitionPages rows) {
        int count = rows.arenas.length;
        int[] partitions = new int[count];
        for (int p = 0; p < count; p++) {
            partitions[p] = p;
        }
        UnchainedTable table = UnchainedTable.tryBuild(memory, layout, false, false,
                Integer.numberOfTrailingZeros(count), partitions, rows.arenas, ParallelTasks.CALLER);
        return table == null ? null : new HashTable(table);
    }

    /**
     * An INNER join's probe of batches of this shape (the left side) against {@code table}, built from rows of this
     * shape (the right side); results are the columns {@code projection} in batches of {@code outputRows} rows of
     * {@code outputSchema}.
     */
    public InnerProbe innerProbe(HashTable table, Schema outputSchema, List<ColumnRef> projection, int outputRows) {
        HashProbe probe = new HashProbe(table.table, JoinStrategy.of(JoinType.INNER, Side.RIGHT),
                new KeyHasher(keyColumns), null, false, false, null);
        return new InnerProbe(probe, new OutputWriter(outputSchema, projection, Side.RIGHT, layout, outputRows,
                JoinConfig.DEFAULT_OUTPUT_BATCH_BYTES));
    }

    /**
     * A direct-index table over the rows of {@code rows} (one BIGINT/INTEGER key, no duplicate, a dense range;
     * built whatever the hash table would cost), reserved from {@code memory}; null if refused or not possible. The
     * rows stay where they are.
     */
    public DirectTable tryCreateDirectTable(MemoryReservation memory, RowPages rows) {
        DirectIndexTable table = DirectIndexTable.tryBuild(memory, layout,
                KeyRange.scan(layout, rows.arena), false, new RowArena[] {rows.arena}, Long.MAX_VALUE);
        return table == null ? null : new DirectTable(table);
    }

    /** As {@link #innerProbe(HashTable, Schema, List, int)}, against a direct-index table. */
    public InnerProbe innerProbe(DirectTable table, Schema outputSchema, List<ColumnRef> projection, int outputRows) {
        OutputWriter output = new OutputWriter(outputSchema, projection, Side.RIGHT, layout, outputRows,
                JoinConfig.DEFAULT_OUTPUT_BATCH_BYTES);
        return new InnerProbe(new DirectIndexProbe(table.table, JoinStrategy.of(JoinType.INNER, Side.RIGHT),
                keyColumns[0], false, false), output);
    }

    /** The level-{@code level} partition of each of {@code hashes[0..n)}, its top {@code bits} bits of h1. */
    public static void partitionsOf(long[] hashes, int n, int level, int bits, int[] partitions) {
        for (int i = 0; i < n; i++) {
            partitions[i] = HashFunctions.partitionOf(hashes[i], level, bits);
        }
    }

    /** The sum of the key hashes of this layout's serialized rows lying back to back in {@code [address, +length)}. */
    public long keyHashSum(long address, long length) {
        long sum = 0;
        long end = address + length;
        for (long row = address; row < end; row += layout.rowLength(row)) {
            sum += layout.hash(row);
        }
        return sum;
    }

    /** Bytes of a serialized row of this layout (its fixed length; the shortest row for a variable-width one). */
    public int rowBytes() {
        return layout.minRowLength();
    }

    /** Reference: the key hash H of a single BIGINT key {@code value}. */
    public static long keyHash(long value) {
        return HashFunctions.singleKeyHash(value);
    }

    /** Reference: the key hash H of a single VARCHAR or VARBINARY key of bytes {@code value}. */
    public static long keyHash(byte[] value) {
        return HashFunctions.combine(HashFunctions.KEY_SEED, HashFunctions.hashBytes(value, 0, value.length));
    }

    /** Reference: h1 of key hash {@code hash} at {@code level}, whose top bits are the row's partition. */
    public static long partitionHash(long hash, int level) {
        return HashFunctions.partitionHash(hash, level);
    }

    /** Hashes the keys of a batch. */
    public static final class BatchHasher {
        private final KeyHasher hasher;

        private BatchHasher(KeyHasher hasher) {
            this.hasher = hasher;
        }

        /**
         * Fills {@code hashes[0..n)} with the key hash of each of the batch's {@code n} rows and the bitmap
         * {@code nullKeys} with its NULL-key rows; returns whether any row has a NULL key.
         */
        public boolean hash(Batch batch, long[] hashes, long[] nullKeys) {
            return hasher.hash(batch, hashes, nullKeys);
        }
    }

    /** Serialized rows in off-heap pages, in the order written. */
    public static final class RowPages implements AutoCloseable {
        private final MicroBenchmarkAccess access;
        private final RowArena arena;
        private final RowWriter writer;

        private RowPages(MicroBenchmarkAccess access, RowArena arena, RowWriter writer) {
            this.access = access;
            this.arena = arena;
            this.writer = writer;
        }

        /**
         * Serializes the rows of {@code batch} (keys hashed into {@code hashes}, NULL keys in {@code nullKeys},
         * NULL-key rows skipped); returns the batch's first row not written: its row count, or less when a page was
         * refused.
         */
        public int write(Batch batch, long[] hashes, long[] nullKeys) {
            return writer.write(batch, 0, hashes, nullKeys, false, arena);
        }

        /** Appends every row to {@code spill}, one append per row, as the build and probe passes spill rows. */
        public void appendEachRowTo(PartitionWriter spill) throws IOException {
            for (int p = 0; p < arena.pageCount(); p++) {
                long row = arena.pageAddress(p);
                long end = row + arena.pageUsed(p);
                while (row < end) {
                    int length = access.layout.rowLength(row);
                    spill.append(row, length);
                    row += length;
                }
            }
        }

        /** A cursor at the first row, for copying the rows out whole. */
        public RowCursor cursor() {
            return new RowCursor(access.layout, arena);
        }

        /** The sum of the key hashes of rows of these pages' layout lying back to back in {@code [address, +length)}. */
        public long keyHashSum(long address, long length) {
            return access.keyHashSum(address, length);
        }

        /** The sum of every row's key hash. */
        public long keyHashSum() {
            long sum = 0;
            for (int p = 0; p < arena.pageCount(); p++) {
                sum += access.keyHashSum(arena.pageAddress(p), arena.pageUsed(p));
            }
            return sum;
        }

        public long rowCount() {
            return arena.rowCount();
        }

        /** Bytes of pages reserved. */
        public long reservedBytes() {
            return arena.reservedBytes();
        }

        /** Frees every page. */
        @Override
        public void close() {
            arena.close();
        }
    }

    /** Copies the rows of a {@link RowPages}, in order and whole, into buffers. */
    public static final class RowCursor {
        private final RowLayout layout;
        private final RowArena arena;
        private int page = -1;
        private long row;
        private long end;

        private RowCursor(RowLayout layout, RowArena arena) {
            this.layout = layout;
            this.arena = arena;
        }

        /**
         * Copies the next rows to {@code [address, address + capacity)} while the next whole row fits; returns the
         * bytes copied, 0 once every row has been copied.
         */
        public int copyTo(long address, int capacity) {
            int fill = 0;
            while (true) {
                while (row == end) {
                    if (page + 1 >= arena.pageCount()) {
                        return fill;
                    }
                    page++;
                    row = arena.pageAddress(page);
                    end = row + arena.pageUsed(page);
                }
                int length = layout.rowLength(row);
                if (fill + length > capacity) {
                    if (fill == 0) {
                        throw new IllegalArgumentException("a row of " + length + " bytes does not fit in a buffer of "
                                + capacity + " bytes");
                    }
                    return fill;
                }
                NativeMemory.copy(row, address + fill, length);
                fill += length;
                row += length;
            }
        }
    }

    /** One arena of serialized rows per partition, filled as the build routes rows to its resident partitions. */
    public static final class PartitionPages implements AutoCloseable {
        private final RowLayout layout;
        private final RowArena[] arenas;
        private final RowWriter writer;
        private int[] partitionOfRow = new int[0];

        private PartitionPages(RowLayout layout, RowArena[] arenas, RowWriter writer) {
            this.layout = layout;
            this.arenas = arenas;
            this.writer = writer;
        }

        /**
         * Routes each row of {@code batch} (keys hashed into {@code hashes}, NULL keys in {@code nullKeys}) to its
         * level-0 partition of {@code bits} bits ({@link #partitionsOf}) and serializes it into that partition's
         * arena; returns the batch's first row not written: its row count, or less when a page was refused.
         */
        public int scatter(Batch batch, long[] hashes, long[] nullKeys, int bits) {
            int n = batch.rowCount();
            if (partitionOfRow.length < n) {
                partitionOfRow = new int[n];
            }
            partitionsOf(hashes, n, 0, bits, partitionOfRow);
            return writer.write(batch, 0, hashes, nullKeys, null, partitionOfRow, arenas);
        }

        /** Rows in partition {@code partition}'s arena. */
        public long rowCount(int partition) {
            return arenas[partition].rowCount();
        }

        /** The stored key hash of every row of partition {@code partition}, in order (for checks; allocates). */
        public long[] storedHashes(int partition) {
            RowArena arena = arenas[partition];
            long[] hashes = new long[Math.toIntExact(arena.rowCount())];
            int i = 0;
            for (int p = 0; p < arena.pageCount(); p++) {
                long end = arena.pageAddress(p) + arena.pageUsed(p);
                for (long row = arena.pageAddress(p); row < end; row += layout.rowLength(row)) {
                    hashes[i++] = layout.hash(row);
                }
            }
            return hashes;
        }

        /** Empties every arena, freeing its pages. */
        public void clear() {
            for (RowArena arena : arenas) {
                arena.clear();
            }
        }

        /** Frees every page of every arena. */
        @Override
        public void close() {
            for (RowArena arena : arenas) {
                arena.close();
            }
        }
    }

    /** The join's hash table, holding compact copies of the rows it was built from. */
    public static final class HashTable implements AutoCloseable {
        private final UnchainedTable table;

        private HashTable(UnchainedTable table) {
            this.table = table;
        }

        /** Rows in the table. */
        public long size() {
            return table.size();
        }

        public int slotCount() {
            return table.slotCount();
        }

        /** The bytes of directory entries and rows per row (no allocation rounding). */
        public double bytesPerRow() {
            return table.bytesPerRow();
        }

        /** Bytes reserved for the table. */
        public long reservedBytes() {
            return table.reservedBytes();
        }

        /** Frees the table. */
        @Override
        public void close() {
            table.close();
        }
    }

    /** A direct-index table (its own copy of the rows' keys and payload). */
    public static final class DirectTable implements AutoCloseable {
        private final DirectIndexTable table;

        private DirectTable(DirectIndexTable table) {
            this.table = table;
        }

        /** Off-heap bytes reserved for the table. */
        public long bytes() {
            return table.bytes();
        }

        /** Frees the table. */
        @Override
        public void close() {
            table.close();
        }
    }

    /** An INNER join's probe of one batch at a time, its results materialized into a reused result batch. */
    public static final class InnerProbe {
        private final TableProbe probe;
        private final OutputWriter output;

        private InnerProbe(TableProbe probe, OutputWriter output) {
            this.probe = probe;
            this.output = output;
        }

        /**
         * Probes {@code batch} to the end (hash table: hash, batched directory loads, slot scans; direct-index
         * table: one occupancy load per row), each full result batch materialized and cleared; returns the result
         * rows produced.
         */
        public long probe(Batch batch) {
            probe.start(batch);
            long results = 0;
            boolean done;
            do {
                done = probe.fill(output);
                output.materialize(batch);
                results += output.rowCount();
                output.clear();
            } while (!done);
            return results;
        }
    }
}
