package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.row.GatherScratch;
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
 * directory: R ranges of 2^b slots, one long each, plus a sentinel; R = the sources (level-0 partitions) of the
 *            table, 2^b = the next power of two &gt;= rows / R (at least 16 slots when R = 1, 2 otherwise)
 *   slot(H)  = range(p) · 2^b + the top b bits of H     p = H's level-0 partition (partitionOf, top bits of h1),
 *                                                        range(p) = its source's index; with R = 1: the top b bits
 *   63        48 47                                   0
 *   [ 16-bit   ][ address of the slot's first row     ]    entry R·2^b (the sentinel): the end of the last slot
 *   [ tag bits ]
 * storage:   [slot 0's rows][slot 1's rows]...[slot R·2^b-1's rows][NULL-key rows (only when kept)]
 * </pre>
 *
 * <p>Ranges: the rows of one source (one resident partition) fill one contiguous range of the directory and of the
 * storage, so the build's random accesses stay within that range (its cache-sized share of the table), not the
 * whole table; a probe row finds its range by the partition the build routed it by, which costs one hash mix. A
 * table over a single source (a spilled pair, a nested-loop chunk) has one range.
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
 * <p>Memory: the directory and the storage are each reserved from the reservation before they are allocated, from
 * 2 MiB on as 2 MiB-aligned mappings advised for huge pages ({@link NativeMemory#HUGE_PAGE}) of whole 4 KiB pages
 * (what the mapping takes: the directory's 8-byte sentinel past a power-of-two slot count costs a 4 KiB page, not
 * another 2 MiB), below that in 64-byte units; a refusal frees what was
 * allocated and returns null, the sources untouched. {@link #close()} frees both. Rows are looked up by address (a
 * "ref" of {@link BuildRowReader}); NULL-key build rows lie after the last slot, outside every slot.
 */
public final class UnchainedTable implements BuildRowReader, AutoCloseable {
    public static final long ADDRESS_MASK = (1L << 48) - 1;
    public static final long TAG_MASK = ~ADDRESS_MASK;
    public static final int MIN_SLOT_BITS = 4;
    /** The directory's bytes per row at most (beyond its minimum): fewer than 2 slots per row, 8 bytes each. */
    public static final long MAX_DIRECTORY_BYTES_PER_ROW = 16;
    /** Source rows the build handles together (one loop of independent directory loads each). */
    private static final int GROUP = 32;

    private final MemoryReservation reservation;
    /** The row format: with its header until the build decides ({@link #fill}). */
    private CompactRows rowsFormat;
    private final NativePage directoryPage;
    private final long directoryBytes;
    private final long directory;
    /** log2 of the slots per range. */
    private final int bits;
    private final int ranges;
    /** log2 of the level-0 fanout the ranges stand for, 0 with a single range. */
    private final int partitionBits;
    /** The range of each level-0 partition (0 for partitions the table does not hold), null with a single range. */
    private final int[] rangeOfPartition;
    private NativePage storagePage;
    private long storageBytes;
    private long storage;
    private long nullKeyRowsStart;
    private long end;
    private long size;
    private long nullKeyRows;
    /** The longest row in the storage ({@link #maxRowBytes}). */
    private int maxRowBytes;
    /** Where the build's touching loads go, so that the JIT keeps them. */
    private long sink;

    private UnchainedTable(MemoryReservation reservation, CompactRows rows, NativePage directoryPage,
                           long directoryBytes, int bits, int partitionBits, int[] partitions) {
        this.reservation = reservation;
        this.rowsFormat = rows;
        this.directoryPage = directoryPage;
        this.directoryBytes = directoryBytes;
        this.directory = directoryPage.address();
        this.bits = bits;
        this.ranges = Math.max(1, partitions.length);
        this.partitionBits = partitionBits;
        if (partitionBits == 0) {
            this.rangeOfPartition = null;
        } else {
            this.rangeOfPartition = new int[1 << partitionBits];
            for (int k = 0; k < partitions.length; k++) {
                rangeOfPartition[partitions[k]] = k;
            }
        }
    }

    /**
     * log2 of the slots per range for {@code rows} rows in {@code ranges} ranges (none counts as one): the next
     * power of two at or above the rows per range, at least 16 slots with one range, 2 with more.
     */
    public static int slotBits(long rows, int ranges) {
        if (ranges < 1) {
            return slotBits(rows, 1);
        }
        long perRange = (rows + ranges - 1) / ranges;
        int least = ranges == 1 ? MIN_SLOT_BITS : 1;
        return Math.max(least, 64 - Long.numberOfLeadingZeros(Math.max(1, perRange - 1)));
    }

    /**
     * Bytes actually reserved for an area of {@code bytes}: from 2 MiB on whole 4 KiB pages (the huge-page aligned
     * mapping's size, {@link NativeMemory.NativePage}), else 64-byte units.
     */
    public static long allocationBytes(long bytes) {
        long unit = bytes >= NativeMemory.HUGE_PAGE ? NativeMemory.SMALL_PAGE : 64;
        return Math.max(unit, (bytes + unit - 1) / unit * unit);
    }

    /** The directory's reserved bytes for a table of {@code rows} rows in one range (its sentinel included). */
    public static long directoryBytes(long rows) {
        return directoryBytes(rows, 1);
    }

    /** The directory's reserved bytes for a table of {@code rows} rows in {@code ranges} ranges (none counts as one). */
    public static long directoryBytes(long rows, int ranges) {
        int r = Math.max(1, ranges);
        return allocationBytes(((long) r << slotBits(rows, r)) * 8 + 8);
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
        return bytesFor(layout, rows, rowBytes, 1);
    }

    /** As {@link #bytesFor(RowLayout, long, long)}, for a table of {@code ranges} sources. */
    public static long bytesFor(RowLayout layout, long rows, long rowBytes, int ranges) {
        return directoryBytes(rows, ranges) + allocationBytes(CompactRows.bytesBound(layout, rows, rowBytes));
    }

    /**
     * The partition planner's table cost per build row whose shortest RowLayout row is {@code minRowBytes}: the
     * directory's share plus the compact copy of such a row (a fixed-width row's compact copy is at most the row;
     * rows with variable-width fields take {@code rowLength - 8}, which the run-time checks count exactly).
     */
    public static long plannedBytesPerRow(int minRowBytes) {
        return MAX_DIRECTORY_BYTES_PER_ROW + minRowBytes;
    }

    /**
     * Builds the table over every row of {@code sources} ({@link RowLayout} rows of {@code layout}), clearing each
     * source as soon as its rows are copied. NULL-key rows are kept after the last slot if {@code keepNullKeys},
     * else dropped. {@code marks}: whether probes will set MATCHED flags (the rows then keep their header). Returns
     * null, with nothing allocated and the sources untouched, if the reservation refuses the table.
     */
    public static UnchainedTable tryBuild(MemoryReservation reservation, RowLayout layout, boolean marks,
                                          boolean keepNullKeys, RowArena source) {
        return tryBuild(reservation, layout, marks, keepNullKeys, 0, new int[] {0}, new RowArena[] {source},
                ParallelTasks.CALLER);
    }

    /**
     * A table over the rows of {@code sources} (see the class comment; NULL-key rows may be in any source), each
     * holding the rows of one level-0 partition: {@code sources[k]} those of partition {@code partitions[k]} of
     * {@code 2^partitionBits}; counted and scattered on {@code tasks}' threads, a source (its own directory range) at
     * a time.
     */
    public static UnchainedTable tryBuild(MemoryReservation reservation, RowLayout layout, boolean marks,
                                          boolean keepNullKeys, int partitionBits, int[] partitions,
                                          RowArena[] sources, ParallelTasks tasks) {
        long total = 0;
        for (RowArena arena : sources) {
            total += arena.rowCount();
        }
        int ranges = Math.max(1, sources.length);
        int bits = slotBits(total, ranges);
        long dirBytes = directoryBytes(total, ranges);
        if (!reservation.tryGrow(dirBytes)) {
            return null;
        }
        UnchainedTable table;
        try {
            table = new UnchainedTable(reservation, new CompactRows(layout),
                    NativeMemory.allocate(reservation, dirBytes), dirBytes, bits,
                    sources.length > 1 ? partitionBits : 0, partitions);
        } catch (RuntimeException | Error e) {
            reservation.shrink(dirBytes);
            throw e;
        }
        try {
            if (!table.fill(marks, keepNullKeys, sources, tasks)) {
                table.close();
                return null;
            }
            return table;
        } catch (RuntimeException | Error e) {
            table.close();
            throw e;
        }
    }

    /** What counting one source found (step 1 of the class comment). */
    private static final class SourceCounts {
        long slotRows;
        long slotBytes;
        long nullRows;
        long nullBytes;
        boolean header;
        long touched;
        /** The longest compact row counted. */
        int longest;
    }

    /** Steps 1 to 3 of the class comment; false (sources untouched) if the storage was refused. */
    private boolean fill(boolean marks, boolean keepNullKeys, RowArena[] sources, ParallelTasks tasks) {
        CompactRows format = rowsFormat;
        boolean variable = format.isVariable();
        SourceCounts[] counts = new SourceCounts[sources.length];
        tasks.run(sources.length, k -> counts[k] = count(format, keepNullKeys, sources[k], k));
        boolean header = marks || variable;
        long slotRows = 0;
        long slotBytes = 0;
        long nullRows = 0;
        long nullBytes = 0;
        int longest = 0;
        for (SourceCounts c : counts) {
            header |= c.header;
            slotRows += c.slotRows;
            slotBytes += c.slotBytes;
            nullRows += c.nullRows;
            nullBytes += c.nullBytes;
            sink += c.touched;
            longest = Math.max(longest, c.longest);
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
        long slotsEnd = sumSlots(unit);
        long[] nullStart = new long[sources.length];
        long nullCursor = slotsEnd;
        for (int k = 0; k < sources.length; k++) {
            nullStart[k] = nullCursor;
            nullCursor += keepNullKeys ? (variable ? counts[k].nullBytes : counts[k].nullRows * unit) : 0;
        }
        long[] touched = new long[sources.length];
        tasks.run(sources.length,
                k -> touched[k] = scatter(chosen, keepNullKeys, sources[k], k, nullStart[k]));
        for (long t : touched) {
            sink += t;
        }
        nullKeyRowsStart = slotsEnd;
        end = nullCursor;
        size = slotRows;
        nullKeyRows = nullRows;
        rowsFormat = chosen;
        maxRowBytes = chosen.isVariable() ? longest : chosen.stride();
        return true;
    }

    /** Step 1 for source {@code k}: counts its rows into their slots of directory range {@code k}. */
    private SourceCounts count(CompactRows format, boolean keepNullKeys, RowArena arena, int k) {
        boolean variable = format.isVariable();
        RowLayout layout = format.layout();
        long rangeStart = directory + ((long) k << bits << 3);
        long[] rowAt = new long[GROUP];
        long[] slotAt = new long[GROUP + 1];
        long[] hashAt = new long[GROUP];
        SourceCounts c = new SourceCounts();
        for (int p = 0; p < arena.pageCount(); p++) {
            long row = arena.pageAddress(p);
            long pageEnd = row + arena.pageUsed(p);
            while (row < pageEnd) {
                int m = loadGroup(layout, row, pageEnd, rangeStart, rowAt, slotAt, hashAt);
                c.touched += slotAt[m];
                row = rowAt[m - 1] + layout.rowLength(rowAt[m - 1]);
                for (int j = 0; j < m; j++) {
                    long source = rowAt[j];
                    int compact = format.lengthOf(source);
                    c.longest = Math.max(c.longest, compact);
                    if (layout.hasNullKey(source)) {
                        if (keepNullKeys) {
                            c.nullRows++;
                            c.nullBytes += compact;
                            c.header = true;
                        }
                    } else {
                        long at = slotAt[j];
                        NativeMemory.putLong(at, NativeMemory.getLong(at) + (variable ? compact : 1));
                        c.slotRows++;
                        c.slotBytes += compact;
                        c.header = c.header || format.needsHeader(source);
                    }
                }
            }
        }
        return c;
    }

    /**
     * Takes the next group of up to {@value #GROUP} rows of a page, from {@code row} to at most {@code pageEnd}, into
     * {@code rowAt}, and the addresses of their directory entries (in the range at {@code rangeStart}) into
     * {@code slotAt}, loading those entries in one loop of independent loads (their sum goes to {@code slotAt[m]},
     * which the caller adds to {@link #sink}, so the loads stay), and their key hashes into {@code hashAt}; returns
     * how many rows it took (at least one). {@code slotAt} has room for {@value #GROUP} + 1 longs.
     */
    private int loadGroup(RowLayout layout, long row, long pageEnd, long rangeStart, long[] rowAt, long[] slotAt,
                          long[] hashAt) {
        int m = 0;
        for (; m < GROUP && row < pageEnd; m++) {
            rowAt[m] = row;
            hashAt[m] = layout.hash(row);
            row += layout.rowLength(row);
        }
        long touched = 0;
        for (int j = 0; j < m; j++) {
            long at = rangeStart + ((long) HashFunctions.bucketOf(hashAt[j], bits) << 3);
            slotAt[j] = at;
            touched += NativeMemory.getLong(at);
        }
        slotAt[m] = touched;
        return m;
    }

    /**
     * Step 2: turns the directory's counts into each slot's end in the storage (a running sum, entry {@code slots}
     * the end of the last); returns where the NULL-key rows begin.
     */
    private long sumSlots(int unit) {
        long dir = directory;
        int slots = ranges << bits;
        long running = storage;
        for (int s = 0; s < slots; s++) {
            long at = dir + ((long) s << 3);
            running += NativeMemory.getLong(at) * unit;
            NativeMemory.putLong(at, running);
        }
        NativeMemory.putLong(dir + ((long) slots << 3), running);
        return running;
    }

    /**
     * Step 3 for source {@code k}, a group of {@value #GROUP} rows at a time in three loops (memory-level
     * parallelism: the directory entries of the group are loaded first, independently of each other, then updated,
     * then the rows copied to the targets those gave: stores, which wait for their lines in the store buffer, not the
     * loop (loading each target's line in the update loop first made the build a fifth slower); its NULL-key rows go
     * from {@code nullCursor} on. Frees the source's pages. Returns the sum of the directory entries it loaded (for
     * the sink).
     */
    private long scatter(CompactRows format, boolean keepNullKeys, RowArena arena, int k, long nullCursor) {
        RowLayout layout = format.layout();
        long rangeStart = directory + ((long) k << bits << 3);
        long[] rowAt = new long[GROUP];
        long[] slotAt = new long[GROUP + 1];
        long[] hashAt = new long[GROUP];
        long[] targetAt = new long[GROUP];
        long touched = 0;
        for (int p = 0; p < arena.pageCount(); p++) {
            long row = arena.pageAddress(p);
            long pageEnd = row + arena.pageUsed(p);
            while (row < pageEnd) {
                int m = loadGroup(layout, row, pageEnd, rangeStart, rowAt, slotAt, hashAt);
                touched += slotAt[m];
                row = rowAt[m - 1] + layout.rowLength(rowAt[m - 1]);
                for (int j = 0; j < m; j++) {
                    long source = rowAt[j];
                    long target = 0;
                    if (!layout.hasNullKey(source)) {
                        long at = slotAt[j];
                        long entry = NativeMemory.getLong(at);
                        target = (entry & ADDRESS_MASK) - format.lengthOf(source);
                        NativeMemory.putLong(at, target
                                | (entry & TAG_MASK) | HashFunctions.tagOf(hashAt[j]));
                    } else if (keepNullKeys) {
                        target = nullCursor;
                        nullCursor += format.lengthOf(source);
                    }
                    targetAt[j] = target;
                }
                for (int j = 0; j < m; j++) {
                    if (targetAt[j] != 0) {
                        format.copy(rowAt[j], targetAt[j]);
                    }
                }
            }
        }
        arena.clear();
        return touched;
    }

    /**
     * The probe's first step, for {@code n} rows with key hashes {@code hashes}: for each row not flagged in
     * {@code skip} whose tag passes its slot's filter, its slot's first row into {@code begin} and the slot's end into
     * {@code end}, and its index into {@code active}; returns how many rows are active. Branch-free loops: the rows
     * to look up are gathered first (a branch on the skip bit inside the load loop would mispredict on randomly mixed
     * rows and throw away the loads in flight), their entries' addresses computed, then the entries loaded by a loop
     * that does nothing else (so that as many of these independent misses as the core allows are in flight at once;
     * a loop doing the tag check too kept fewer), then the tags checked and the slots' ends read (the entry's line).
     */
    public int loadSlots(long[] hashes, int n, long[] skip, long[] begin, long[] end, int[] active) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            active[m] = i;
            m += (int) (~skip[i >>> 6] >>> i) & 1;
        }
        // Until the last loop, end[i] holds the address of row i's directory entry and begin[i] the entry.
        long dir = directory;
        int[] rangeOf = rangeOfPartition;
        int partitionShift = 64 - partitionBits;
        for (int j = 0; j < m; j++) {
            int i = active[j];
            long hash = hashes[i];
            long range = rangeOf == null ? 0 : rangeOf[(int) (HashFunctions.partitionHash(hash, 0) >>> partitionShift)];
            end[i] = dir + (((range << bits) + HashFunctions.bucketOf(hash, bits)) << 3);
        }
        for (int j = 0; j < m; j++) {
            int i = active[j];
            begin[i] = NativeMemory.getLong(end[i]);
        }
        int k = 0;
        for (int j = 0; j < m; j++) {
            int i = active[j];
            long entry = begin[i];
            long tag = HashFunctions.tagOf(hashes[i]);
            begin[i] = entry & ADDRESS_MASK;
            end[i] = NativeMemory.getLong(end[i] + 8) & ADDRESS_MASK;
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

    /**
     * The address of slot {@code slot}'s first row (where the previous slot's rows end); {@code slotCount()} gives
     * the end of the last slot, where the NULL-key rows begin.
     */
    long slotStart(int slot) {
        return NativeMemory.getLong(directory + ((long) slot << 3)) & ADDRESS_MASK;
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
        return ranges << bits;
    }

    /** The directory's ranges (one per source partition). */
    public int rangeCount() {
        return ranges;
    }

    /** Bytes reserved: the directory and the storage. */
    public long reservedBytes() {
        return directoryBytes + storageBytes;
    }

    /** Bytes of the rows themselves and the directory entries (no allocation rounding), per row in slots. */
    public double bytesPerRow() {
        return size == 0 ? 0 : (double) (((long) ranges << bits) * 8 + 8 + (nullKeyRowsStart - storage)) / size;
    }

    @Override
    public void gather(int field, long[] refs, int count, GatherScratch scratch, ColumnVector out, int outStart) {
        long[] at = scratch.addresses();
        CompactRows format = rowsFormat;
        RowLayout layout = format.layout();
        if (layout.fieldType(field).isVariableWidth()) {
            format.variableAddresses(field, refs, count, scratch);
        } else {
            for (int j = 0; j < count; j++) {
                long row = refs[j];
                at[j] = row == 0 || format.isNull(row, field) ? 0 : format.fixedAddress(row, field);
            }
        }
        RowReader.gatherValues(layout.fieldType(field), at, count, out, outStart);
    }

    @Override
    public int rowBytes(long ref) {
        return rowsFormat.rowLength(ref);
    }

    @Override
    public int maxRowBytes() {
        return maxRowBytes;
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
