package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowReader;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.NativeMemory.NativePage;

/**
 * The join's hash table: an unchained hash table (Birler, Schmidt, Fent, Neumann, "Simple, Efficient, and Robust
 * Hash Tables for Join Processing", DaMoN 2024; as in CedarDB). The build rows are copied, once the build side is
 * complete, into one storage area in slot order, in the {@link CompactRows} format; a slot's rows lie back to back
 * and end where the next slot's begin.
 *
 * <pre>
 * directory: 2^bits + 1 longs, 2^bits = the next power of two &gt;= rows (at least 16), slot = the top bits of H (h2)
 *   63        48 47                                   0
 *   [ 16-bit   ][ address of the slot's first row     ]    entry 2^bits (the sentinel): the end of the last slot
 *   [ tag bits ]
 * storage:   [slot 0's rows][slot 1's rows]...[slot 2^bits-1's rows][NULL-key rows (only when kept)]
 * </pre>
 *
 * <p>The 16-bit tag is the OR of the {@link HashFunctions#tagOf tags} (2 of 16 bits) of the slot's rows: a probe
 * whose tag bits are not all set misses with one load. A hit costs two independent loads (the entry, whose
 * neighbour gives the slot's end, and the first row) and no dependent chain walk; equal keys share a slot, so their
 * rows lie together.
 *
 * <p>Build ({@link #tryBuild}), from the build rows in {@link RowArena}s: (1) count each slot's rows (bytes, for
 * variable-width rows) in the directory; (2) reserve and allocate the storage (whose size is known now, the header
 * left out when no row needs one, {@link CompactRows#withoutHeader}), turn the counts into each slot's end by a
 * prefix sum; (3) copy each row to its slot's end less its length, lowering the end (so the entry ends at the slot's
 * first row) and OR-ing in the row's tag; each source arena is cleared (its pages freed) as soon as it is copied.
 * The peak is therefore the source rows plus the whole table at the start of step 3; every memory check uses
 * {@link #bytesFor} beside the source rows.
 *
 * <p>Memory: the directory and the storage are each reserved from the reservation before they are allocated, in
 * multiples of 2 MiB (huge pages, {@link NativeMemory#HUGE_PAGE}) from that size on; a refusal frees what was
 * allocated and returns null, the sources untouched. {@link #close()} frees both. Rows are looked up by address (a
 * "ref" of {@link BuildRowReader}); NULL-key build rows lie after the last slot, outside every slot.
 */
public final class UnchainedTable implements BuildRowReader, AutoCloseable {
    public static final long ADDRESS_MASK = (1L << 48) - 1;
    public static final long TAG_MASK = ~ADDRESS_MASK;
    public static final int MIN_SLOT_BITS = 4;
    /** The directory's bytes per row at most (beyond its minimum): fewer than 2 slots per row, 8 bytes each. */
    public static final long MAX_DIRECTORY_BYTES_PER_ROW = 16;

    private final MemoryReservation reservation;
    /** The row format: with its header until the build decides ({@link #fill}). */
    private CompactRows rowsFormat;
    private final NativePage directoryPage;
    private final long directoryBytes;
    private final long directory;
    private final int bits;
    private NativePage storagePage;
    private long storageBytes;
    private long storage;
    private long nullKeyRowsStart;
    private long end;
    private long size;
    private long nullKeyRows;
    private long[] addresses = new long[0];

    private UnchainedTable(MemoryReservation reservation, CompactRows rows, NativePage directoryPage,
                           long directoryBytes, int bits) {
        this.reservation = reservation;
        this.rowsFormat = rows;
        this.directoryPage = directoryPage;
        this.directoryBytes = directoryBytes;
        this.directory = directoryPage.address();
        this.bits = bits;
    }

    /** log2 of the slot count for {@code rows} rows: the next power of two at or above them, at least 16 slots. */
    public static int slotBits(long rows) {
        long slots = Math.max(1L << MIN_SLOT_BITS, Long.highestOneBit(Math.max(1, rows - 1)) << 1);
        return Long.numberOfTrailingZeros(slots);
    }

    /** Bytes actually reserved for an area of {@code bytes}: whole 2 MiB pages from 2 MiB on, else 64-byte units. */
    public static long allocationBytes(long bytes) {
        long unit = bytes >= NativeMemory.HUGE_PAGE ? NativeMemory.HUGE_PAGE : 64;
        return Math.max(unit, (bytes + unit - 1) / unit * unit);
    }

    /** The directory's reserved bytes for a table of {@code rows} rows (its sentinel entry included). */
    public static long directoryBytes(long rows) {
        return allocationBytes((8L << slotBits(rows)) + 8);
    }

    /** The bytes of the smallest table (no rows). */
    public static long minimumBytes() {
        return directoryBytes(0) + allocationBytes(0);
    }

    /**
     * The most a table over {@code rows} rows of {@code layout} whose RowLayout rows total {@code rowBytes} bytes
     * reserves: the directory and the compact rows (all kept). Reserve-checks add the source rows beside it, which
     * stay until they are copied.
     */
    public static long bytesFor(RowLayout layout, long rows, long rowBytes) {
        return directoryBytes(rows) + allocationBytes(CompactRows.bytesBound(layout, rows, rowBytes));
    }

    /**
     * The partition planner's table cost per build row whose shortest RowLayout row is {@code minRowBytes}: the
     * directory's share plus the compact copy of such a row ({@code minRowBytes - 24} bounds it for fixed-width
     * rows; rows with variable-width fields take {@code rowLength - 16}, which the run-time checks count exactly).
     */
    public static long plannedBytesPerRow(int minRowBytes) {
        return MAX_DIRECTORY_BYTES_PER_ROW + Math.max(8, minRowBytes - 24);
    }

    /**
     * Builds the table over every row of {@code sources} ({@link RowLayout} rows of {@code layout}), clearing each
     * source as soon as its rows are copied. NULL-key rows are kept after the last slot if {@code keepNullKeys},
     * else dropped. {@code marks}: whether probes will set MATCHED flags (the rows then keep their header). Returns
     * null, with nothing allocated and the sources untouched, if the reservation refuses the table.
     */
    public static UnchainedTable tryBuild(MemoryReservation reservation, RowLayout layout, boolean marks,
                                          boolean keepNullKeys, RowArena... sources) {
        long total = 0;
        for (RowArena arena : sources) {
            total += arena.rowCount();
        }
        int bits = slotBits(total);
        long dirBytes = directoryBytes(total);
        if (!reservation.tryGrow(dirBytes)) {
            return null;
        }
        UnchainedTable table;
        try {
            table = new UnchainedTable(reservation, new CompactRows(layout),
                    NativeMemory.allocate(reservation, dirBytes), dirBytes, bits);
        } catch (RuntimeException | Error e) {
            reservation.shrink(dirBytes);
            throw e;
        }
        try {
            if (!table.fill(marks, keepNullKeys, sources)) {
                table.close();
                return null;
            }
            return table;
        } catch (RuntimeException | Error e) {
            table.close();
            throw e;
        }
    }

    /** Steps 1 to 3 of the class comment; false (sources untouched) if the storage was refused. */
    private boolean fill(boolean marks, boolean keepNullKeys, RowArena[] sources) {
        CompactRows format = rowsFormat;
        boolean variable = format.isVariable();
        boolean header = marks || variable;
        long dir = directory;
        int shift = 64 - bits;
        long slotRows = 0;
        long slotBytes = 0;
        long nullRows = 0;
        long nullBytes = 0;
        for (RowArena arena : sources) {
            for (int p = 0; p < arena.pageCount(); p++) {
                long row = arena.pageAddress(p);
                long pageEnd = row + arena.pageUsed(p);
                while (row < pageEnd) {
                    int length = RowLayout.rowLength(row);
                    int compact = format.lengthOf(row);
                    if (RowLayout.hasNullKey(row)) {
                        if (keepNullKeys) {
                            nullRows++;
                            nullBytes += compact;
                            header = true;
                        }
                    } else {
                        long at = dir + ((RowLayout.hash(row) >>> shift) << 3);
                        NativeMemory.putLong(at, NativeMemory.getLong(at) + (variable ? compact : 1));
                        slotRows++;
                        slotBytes += compact;
                        header = header || format.needsHeader(row);
                    }
                    row += length;
                }
            }
        }
        CompactRows chosen = header ? format : format.withoutHeader();
        int unit = variable ? 1 : chosen.stride();
        long bytes = variable ? slotBytes + nullBytes : (slotRows + nullRows) * unit;
        long reserved = allocationBytes(bytes);
        if (!reservation.tryGrow(reserved)) {
            return false;
        }
        try {
            storagePage = NativeMemory.allocate(reservation, reserved);
        } catch (RuntimeException | Error e) {
            reservation.shrink(reserved);
            throw e;
        }
        storageBytes = reserved;
        storage = storagePage.address();
        if (((storage + reserved) >>> 48) != 0) {
            throw new IllegalStateException("the hash table's storage at 0x" + Long.toHexString(storage)
                    + " lies beyond the 48-bit addresses its directory holds");
        }
        scatter(chosen, unit, slotRows, nullRows, keepNullKeys, sources);
        return true;
    }

    private void scatter(CompactRows format, int unit, long slotRows, long nullRows, boolean keepNullKeys,
                            RowArena[] sources) {
        long dir = directory;
        int slots = 1 << bits;
        long running = storage;
        for (int s = 0; s < slots; s++) {
            long at = dir + ((long) s << 3);
            running += NativeMemory.getLong(at) * unit;
            NativeMemory.putLong(at, running);
        }
        NativeMemory.putLong(dir + ((long) slots << 3), running);
        long nullCursor = running;
        nullKeyRowsStart = running;
        int shift = 64 - bits;
        for (RowArena arena : sources) {
            for (int p = 0; p < arena.pageCount(); p++) {
                long row = arena.pageAddress(p);
                long pageEnd = row + arena.pageUsed(p);
                while (row < pageEnd) {
                    int length = RowLayout.rowLength(row);
                    if (!RowLayout.hasNullKey(row)) {
                        long hash = RowLayout.hash(row);
                        long at = dir + ((hash >>> shift) << 3);
                        long entry = NativeMemory.getLong(at);
                        long target = (entry & ADDRESS_MASK) - format.lengthOf(row);
                        format.copy(row, target);
                        NativeMemory.putLong(at, target | (entry & TAG_MASK) | HashFunctions.tagOf(hash));
                    } else if (keepNullKeys) {
                        nullCursor += format.copy(row, nullCursor);
                    }
                    row += length;
                }
            }
            arena.clear();
        }
        end = nullCursor;
        size = slotRows;
        nullKeyRows = nullRows;
        rowsFormat = format;
    }

    /**
     * The probe's first step, for {@code n} rows with key hashes {@code hashes}: for each row not flagged in
     * {@code skip} whose tag passes its slot's filter, its slot's first row into {@code begin} and the slot's end into
     * {@code end}, and its index into {@code active}; returns how many rows are active. Two branch-free loops: the
     * rows to look up are gathered first, then their entries are loaded, all independent of each other (a branch on
     * the skip bit inside the load loop would mispredict on randomly mixed rows and throw away the loads in flight).
     */
    public int loadSlots(long[] hashes, int n, long[] skip, long[] begin, long[] end, int[] active) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            active[m] = i;
            m += (int) (~skip[i >>> 6] >>> i) & 1;
        }
        long dir = directory;
        int shift = 64 - bits;
        int k = 0;
        for (int j = 0; j < m; j++) {
            int i = active[j];
            long hash = hashes[i];
            long at = dir + ((hash >>> shift) << 3);
            long entry = NativeMemory.getLong(at);
            long tag = HashFunctions.tagOf(hash);
            begin[i] = entry & ADDRESS_MASK;
            end[i] = NativeMemory.getLong(at + 8) & ADDRESS_MASK;
            active[k] = i;
            k += (entry & tag) == tag ? 1 : 0;
        }
        return k;
    }

    CompactRows format() {
        return rowsFormat;
    }

    /** The first row in storage order (slot 0's first, or the first NULL-key row). */
    public long firstRow() {
        return storage;
    }

    /** The end of the storage's rows (after the NULL-key rows). */
    public long endOfRows() {
        return end;
    }

    /** Where the NULL-key rows begin (the end of the last slot). */
    public long nullKeyRowsStart() {
        return nullKeyRowsStart;
    }

    /** Rows in slots (NULL-key rows not counted). */
    public long size() {
        return size;
    }

    public long nullKeyRows() {
        return nullKeyRows;
    }

    public int slotCount() {
        return 1 << bits;
    }

    /** Bytes reserved: the directory and the storage. */
    public long reservedBytes() {
        return directoryBytes + storageBytes;
    }

    /** Bytes of the rows themselves and the directory entries (no allocation rounding), per row in slots. */
    public double bytesPerRow() {
        return size == 0 ? 0 : (double) ((8L << bits) + 8 + (nullKeyRowsStart - storage)) / size;
    }

    @Override
    public void gather(int field, long[] refs, int count, ColumnVector out, int outStart) {
        if (addresses.length < count) {
            addresses = new long[Math.max(count, 2 * addresses.length)];
        }
        long[] at = addresses;
        CompactRows format = rowsFormat;
        RowLayout layout = format.layout();
        boolean variable = layout.fieldType(field).isVariableWidth();
        for (int j = 0; j < count; j++) {
            long row = refs[j];
            at[j] = row == 0 || format.isNull(row, field) ? 0
                    : variable ? format.variableAddress(row, field) : format.fixedAddress(row, field);
        }
        RowReader.gatherValues(layout.fieldType(field), at, count, out, outStart);
    }

    @Override
    public int rowBytes(long ref) {
        return rowsFormat.rowLength(ref);
    }

    @Override
    public void close() {
        if (reservation.isClosed()) {
            return;
        }
        if (!directoryPage.isClosed()) {
            directoryPage.close();
            reservation.shrink(directoryBytes);
        }
        if (storagePage != null && !storagePage.isClosed()) {
            storagePage.close();
            reservation.shrink(storageBytes);
        }
    }
}
