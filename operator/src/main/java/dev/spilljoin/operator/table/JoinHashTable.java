package dev.spilljoin.operator.table;

import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory.NativePage;
import dev.spilljoin.spill.NativeMemory;

/**
 * A flat, off-heap chained hash table over serialized rows ({@link RowLayout}) that live in {@link RowArena} pages.
 *
 * <pre>
 * directory: 2^bits longs, bits = ceil(log2(2 * rows)) (load factor &lt;= 0.5), indexed by h2 = the top bits of H
 *   63        48 47                                   0
 *   [ 16-bit   ][ address of the chain's first row    ]     0 = empty bucket
 *   [ filter   ]
 * chain: each row's NEXT field (RowLayout offset 16) holds the next row's address, 0 at the end
 * </pre>
 *
 * <p>The 16-bit filter is the OR of the {@link HashFunctions#tagOf tags} (2 of 16 bits) of every row in the chain:
 * a probe whose tag bits are not all in the filter misses without touching a row (most misses cost one load).
 * Within a chain the stored 64-bit hash is compared before any key byte.
 *
 * <p>Memory: {@link #directoryBytes} gives the size before the table exists; the constructor reserves it or fails
 * with {@link #tryCreate} returning null; {@link #close()} frees it. Rows are not owned by the table.
 *
 * <p>Probing is batched ({@link #loadHeads}): the directory entries of a whole batch are loaded in one loop of
 * independent loads, so the CPU overlaps their cache misses; the caller then walks the chains in rounds.
 */
public final class JoinHashTable implements AutoCloseable {
    public static final long ADDRESS_MASK = (1L << 48) - 1;
    public static final long FILTER_MASK = ~ADDRESS_MASK;

    private final MemoryReservation reservation;
    private final NativePage directory;
    private final long base;
    private final int bits;
    private final long bytes;
    private long size;

    private JoinHashTable(MemoryReservation reservation, NativePage directory, int bits, long bytes) {
        this.reservation = reservation;
        this.directory = directory;
        this.base = directory.address();
        this.bits = bits;
        this.bytes = bytes;
    }

    /**
     * The directory's bytes per row at most (beyond its 16-bucket minimum): 2 buckets per row rounded up to a power of
     * two is at most 4 buckets of 8 bytes. The partition planner's table cost per row.
     */
    public static final long MAX_DIRECTORY_BYTES_PER_ROW = 32;

    /** log2 of the bucket count for {@code rows} rows (at least 2 buckets per row, at least 16 buckets). */
    public static int bucketBits(long rows) {
        long buckets = Math.max(16, Long.highestOneBit(Math.max(1, 2 * rows - 1)) << 1);
        return Long.numberOfTrailingZeros(buckets);
    }

    /** The directory's size in bytes for a table of {@code rows} rows; reserve this before building. */
    public static long directoryBytes(long rows) {
        return 8L << bucketBits(rows);
    }

    /** A table for up to {@code rows} rows with its directory reserved from {@code reservation}, or null if refused. */
    public static JoinHashTable tryCreate(MemoryReservation reservation, long rows) {
        int bits = bucketBits(rows);
        long bytes = 8L << bits;
        if (!reservation.tryGrow(bytes)) {
            return null;
        }
        return new JoinHashTable(reservation, NativeMemory.allocate(reservation, bytes), bits, bytes);
    }

    /** Links the row at {@code row} into its bucket's chain (the row's NEXT field is overwritten). */
    public void insert(long row) {
        long hash = RowLayout.hash(row);
        long slot = base + ((long) HashFunctions.bucketOf(hash, bits) << 3);
        long entry = NativeMemory.getLong(slot);
        NativeMemory.putLong(row + RowLayout.NEXT, entry & ADDRESS_MASK);
        NativeMemory.putLong(slot, row | (entry & FILTER_MASK) | HashFunctions.tagOf(hash));
        size++;
    }

    /** Inserts every row of {@code arena} except NULL_KEY rows. */
    public void insertAll(RowArena arena) {
        for (int p = 0; p < arena.pageCount(); p++) {
            long row = arena.pageAddress(p);
            long end = row + arena.pageUsed(p);
            while (row < end) {
                if (!RowLayout.hasNullKey(row)) {
                    insert(row);
                }
                row += RowLayout.rowLength(row);
            }
        }
    }

    /**
     * For each of {@code n} hashes, the first row of its chain, or 0 when the bucket is empty or its filter rules
     * the hash out. Rows flagged in {@code skip} (bit set; e.g. NULL keys, rows of spilled partitions) get 0
     * without a load. Two branch-free loops: the rows to load are first gathered into {@code scratch} (at least
     * {@code n} long), then their entries are loaded, all independent of each other. (A branch on the skip bit inside
     * the load loop mispredicts when the skipped rows are mixed at random with the others, and every misprediction
     * throws away the loads in flight.)
     */
    public void loadHeads(long[] hashes, int n, long[] skip, long[] heads, int[] scratch) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            heads[i] = 0L;
            scratch[m] = i;
            m += (int) (~skip[i >>> 6] >>> i) & 1;
        }
        long b = base;
        int shift = 64 - bits;
        for (int j = 0; j < m; j++) {
            int i = scratch[j];
            long hash = hashes[i];
            long entry = NativeMemory.getLong(b + ((hash >>> shift) << 3));
            long tag = HashFunctions.tagOf(hash);
            heads[i] = (entry & tag) == tag ? entry & ADDRESS_MASK : 0L;
        }
    }

    /** The row after {@code row} in its chain, or 0. */
    public static long next(long row) {
        return NativeMemory.getLong(row + RowLayout.NEXT);
    }

    public long size() {
        return size;
    }

    public int bucketCount() {
        return 1 << bits;
    }

    public long directoryBytes() {
        return bytes;
    }

    @Override
    public void close() {
        if (!directory.isClosed() && !reservation.isClosed()) {
            directory.close();
            reservation.shrink(bytes);
        }
    }
}
