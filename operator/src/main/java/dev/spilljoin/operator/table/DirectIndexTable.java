package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.row.GatherScratch;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowReader;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.NativeMemory.NativePage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A build table for a single BIGINT or INTEGER key without duplicate non-NULL keys, indexed by
 * {@code (key - min) / stride} instead of a hash: a rank bitmap over the key range plus columnar payload (the concise
 * hash table's layout, Barber et al., "Memory-Efficient Hash Joins", VLDB 2014, without its overflow table). The
 * stride is the greatest common divisor of the keys' differences ({@link KeyStride}; 1 for most keys): keys that
 * are all a multiple of some step apart (timestamps at day precision, ids times 10) take a table over
 * {@code (max - min) / stride + 1} values, the range below. Off-heap, in one page:
 *
 * <pre>
 * occupancy: ceil(range / 64) x 8 B  block b's long: bit i set when key min+(64b+i)*stride is a row's
 * ranks:     ceil(range / 64) x 4 B  block b's int: the rank of its first set bit (the set bits before the block);
 *                                    padded to 8 bytes
 * payload:  one column per payload field of the layout, rows x width B, at the row's rank (BIGINT/DOUBLE 8,
 *           INTEGER 4, BOOLEAN 1; VARCHAR/VARBINARY 16, see below; the key is not stored: min + index * stride)
 * nulls:    one bitmap (rows bits) per payload field that held a NULL, by rank
 * matched:  one bitmap (rows bits) by rank, when the join type marks build rows
 * heap:     the variable-width values longer than 12 bytes, each [int length][bytes] (as in a serialized row), a
 *           row page's values after the previous page's
 *
 * a variable-width value's wide entry, 16 bytes (as Umbra's and DuckDB's strings):
 *   up to 12 bytes   [int length][the bytes, zero-padded to 12]      the entry itself is [int length][bytes]
 *   longer           [int length][4 unused][long address in heap]    the heap holds [int length][bytes]
 * or, when the caller asks for narrow entries and the field's longest value L is at most 15 bytes, 1 + L bytes:
 *                    [byte length][the bytes, zero-padded to L]      floor(64 / (1 + L)) to a cache line, none
 *                                                                    across two (the column starts on a line)
 * </pre>
 *
 * <p>A build row is referred to by {@code ref = rank << 32 | index + 1} ({@link #refOf}; 0 = no row): index
 * {@code (key - min) / stride} in {@code [0, range)} for a non-NULL key; NULL-key build rows (kept only when the
 * finish pass may emit them) take the indexes {@code [range, range + nullKeyRows)} after the range, and the ranks
 * after the keyed rows'. A probe costs one occupancy load per probe row (the occupancy is a bit per range value,
 * small and cached) and, per hit, its block's rank (a row's rank: its block's rank plus the set bits before it in
 * the word), found once and carried in the reference, so that each projected payload column of the hit, its size
 * and its MATCHED bit cost one load each. The ranks lie apart from the occupancy so that a probe, which needs
 * only the bits, has half the bytes to keep cached (a range of 100M keys: 12.5 MB of occupancy, where occupancy and
 * ranks side by side took 25 MB, more than a 32 MB cache keeps beside the probe's other data). A full table (every
 * value of the range a key, {@link #full}) needs neither load: a key in the range is a hit, and its rank is its index.
 *
 * <p>Chosen ({@link #tryBuild}) when the key range spans at most {@value #MAX_RANGE_PER_ROW} values per keyed row,
 * fits {@link #MAX_RANGE}, and the table costs no more memory than the caller's alternative. A variable-width
 * payload value of up to 12 bytes lies in its 16-byte entry, so that a hit loads one line for it (and sizing the
 * result row, {@link #rowBytes}, the same line); a longer one costs its entry, its bytes and their length. Against
 * the hash table's whole row (lengths, flags, key, every value) and its directory entry: a (BIGINT key, 10-byte
 * VARCHAR) row takes 16 bytes here and 34-42 there, 12.8 with narrow entries. Narrow entries save a third or more
 * of a short-string column, but gathering a value from one cost about 20 ns more in the CSV case (a line's place
 * found by a multiply, a byte of length), so the build asks for them only when the wide entries do not fit its
 * budget and the narrow ones do, or hold more rows. Not chosen for a join with an extra condition
 * ({@link dev.spilljoin.operator.PairCondition}): its candidate pairs mark MATCHED flags in serialized rows.
 *
 * <p>Filling: the rows' {@link KeyRange} first (min, max, stride, rows, fields with NULLs, longest values: a
 * sequential pass, or taken as the rows were written elsewhere); then the
 * occupancy bits are set from every row, and a bit already set is a duplicate: the build is abandoned (null; the
 * caller builds the hash table over the same rows, which is why the rows are freed by the caller only after a
 * success). No overflow area: it would put a second lookup and a branch behind every hit. A caller that gives a
 * {@link DuplicateKeys} learns the duplicate keys instead, when they are few, and may move their rows elsewhere (the
 * build pass: to the heavy keys' pair) and build again; more, and the key is not unique, so the hash table's cost
 * per row is the better bet. Then the ranks are summed, then
 * the payload is copied to the rows' ranks (a row page's long variable-width values to its share of the heap, whose
 * start a count per page gave). Rows that do not fit in memory in their row form may come from sealed spill files
 * instead, each pass reading them back block by block after the arenas' pages ({@link SpilledRowPages}: a block is
 * a page). Each of these passes reads a row's variable-width values in field order, each found
 * after the one before it, so a row costs O(fields), however many of them are variable-width. On several threads
 * (a row page per task) each helper thread sets its occupancy bits in a bitmap of its own, ORed into the table's
 * afterwards (a bit in two bitmaps is a duplicate too). The table is sized by the statistics, so a fill checks that
 * they hold for the rows it meets (every key on the range's grid, as many keyed and NULL-key rows and long values'
 * bytes as counted, no text longer than its narrow entry holds) and fails rather than write past a column:
 * statistics taken apart from the rows cannot go wrong quietly.
 *
 * <p>Memory: {@link #bytes} before the table exists; {@link #tryBuild} reserves it or returns null; {@link #close}
 * frees it, also after a failed build. The helper threads' bitmaps (a bit per range value each) are reserved only
 * while the occupancy is set, and only when they leave room for a pass's reads of spilled rows; refused, the threads
 * set the table's bits atomically instead.
 */
public final class DirectIndexTable implements BuildRowReader, AutoCloseable {
    /** The most key-range values per keyed build row (sparser: the rank bitmap costs more than it saves). */
    public static final long MAX_RANGE_PER_ROW = 64;
    /** The largest key range (larger ranges: the hash table). */
    public static final long MAX_RANGE = 1L << 31;
    /** A variable-width value's wide entry: 16 bytes, its length first, then its bytes or its heap address. */
    private static final int ENTRY_BYTES = 16;
    /** The longest value a narrow entry holds: a byte of length and its bytes, no wider than a wide entry. */
    private static final int NARROW_MAX_LENGTH = ENTRY_BYTES - 1;
    /** A cache line: a column of narrow entries packs as many as fit in each, none across two (one load per value). */
    private static final int LINE = 64;
    /** The longest value an entry holds itself. */
    private static final int INLINE_BYTES = ENTRY_BYTES - Integer.BYTES;
    /** Where a long value's heap address lies in its entry. */
    private static final int ADDRESS_OFFSET = 8;
    /** Rows whose ranks {@link #copyPayload} finds before it copies their fields. */
    private static final int COPY_RUN = 256;

    private final MemoryReservation reservation;
    private final NativePage page;
    private final long bytes;
    private final RowLayout layout;
    private final long min;
    /** The keys' stride: a key's index is {@code (key - min) / stride}. */
    private final KeyStride stride;
    private final long range;
    private final long keyedRows;
    /**
     * Whether every value of the range is a key (as many keyed rows as range values, none twice: a dense surrogate key,
     * the usual foreign-key target): then a row's rank is its index, and a key in the range always has its row, so
     * neither the probe nor the payload's gather loads the occupancy or the ranks (DuckDB's perfect hash join).
     */
    private final boolean full;
    private final long nullKeyRows;
    /** Blocks of 64 range values: an occupancy word and a rank each. */
    private final long blocks;
    /** The occupancy bitmap's address (the page's start). */
    private final long occupancy;
    /** The ranks' address: an int per block. */
    private final long ranks;
    /** Per layout field: the address of its payload column, 0 for the key field. */
    private final long[] column;
    /** Per layout field: the bytes of a value in its column ({@link #entryWidth}; a wide or narrow entry's). */
    private final int[] width;
    /**
     * Per layout field with narrow entries ([byte length][bytes]; no heap): the entries in each cache line of its
     * column; 0 for every other field.
     */
    private final int[] perLine;
    /**
     * Per layout field with narrow entries: floor((2^64 - 1) / perLine) + 1, so that the high half of a rank's product
     * with it is the rank's line: exact for ranks below 2^32 (the error, rank / 2^64 at most, stays below the
     * 1 / perLine a quotient's fraction is below 1 by).
     */
    private final long[] lineReciprocal;
    /** Per layout field: the address of its null bitmap, 0 if it held no NULL. */
    private final long[] nulls;
    /** The MATCHED bitmap's address, 0 when the join type does not mark build rows. */
    private final long matched;
    /** The heap's start (its end is the page's), where the long variable-width values lie. */
    private final long heap;
    /** The heap's bytes (0: every variable-width value lies in its entry). */
    private final long heapBytes;
    /** The fixed widths of the payload fields, what a row's {@link #rowBytes} adds its variable-width values to. */
    private final int fixedRowBytes;
    /** The most {@link #rowBytes} gives for a row of this table. */
    private final int maxRowBytes;
    /** The variable-width payload fields, in field order. */
    private final int[] variableFields;

    private DirectIndexTable(MemoryReservation reservation, NativePage page, long bytes, RowLayout layout,
                             KeyRange keys, boolean marks, boolean narrowEntries) {
        this.reservation = reservation;
        this.page = page;
        this.bytes = bytes;
        this.layout = layout;
        this.min = keys.min;
        this.stride = keys.stride();
        this.range = keys.range();
        this.keyedRows = keys.keyedRows;
        this.full = keyedRows == range; // a duplicate, the only other way to get as many rows, fails the build
        this.nullKeyRows = keys.nullKeyRows;
        this.blocks = (range + 63) >>> 6;
        long rows = Math.min(keyedRows, range) + nullKeyRows; // more keyed rows: duplicates, the build fails
        long bitmapBytes = ((rows + 63) >>> 6) << 3;
        int fields = layout.fieldCount();
        column = new long[fields];
        width = new int[fields];
        perLine = new int[fields];
        lineReciprocal = new long[fields];
        nulls = new long[fields];
        occupancy = page.address();
        ranks = occupancy + blocks * Long.BYTES;
        long at = ranks + rankBytes(blocks);
        int fixedWidths = 0;
        for (int f = 1; f < fields; f++) {
            ColumnType type = layout.fieldType(f);
            boolean narrow = isNarrow(type, keys, f, narrowEntries);
            width[f] = entryWidth(type, keys, f, narrowEntries);
            perLine[f] = narrow ? LINE / width[f] : 0;
            lineReciprocal[f] = narrow ? Long.divideUnsigned(-1L, perLine[f]) + 1 : 0;
            column[f] = narrow ? (at + LINE - 1) & -LINE : at; // the slack columnBytes counts
            at += columnBytes(width[f], rows, narrow);
            fixedWidths += type.isVariableWidth() ? 0 : type.fixedWidth();
        }
        for (int f = 1; f < fields; f++) {
            if (keys.fieldHasNull(f)) {
                nulls[f] = at;
                at += bitmapBytes;
            }
        }
        matched = marks ? at : 0;
        heap = at + (marks ? bitmapBytes : 0);
        heapBytes = heapBytes(layout, keys, narrowEntries);
        fixedRowBytes = fixedWidths;
        maxRowBytes = fixedWidths + keys.maxVariableRowBytes;
        variableFields = variableFields(layout);
    }

    /** Whether rows of {@code layout} can go into a direct-index table: a single BIGINT/INTEGER key. */
    public static boolean supports(RowLayout layout) {
        return layout.keyCount() == 1
                && (layout.fieldType(0) == ColumnType.BIGINT || layout.fieldType(0) == ColumnType.INTEGER);
    }

    /** The bytes of the ranks of {@code blocks} blocks: an int each, padded to 8 bytes. */
    private static long rankBytes(long blocks) {
        return (blocks * Integer.BYTES + 7) & ~7L;
    }

    /**
     * The bytes of a payload column of {@code rows} values of {@code width} bytes (a narrow-entry column: whole cache
     * lines, and one more for aligning the column's start), padded to 8 bytes.
     */
    private static long columnBytes(int width, long rows, boolean narrow) {
        if (narrow) {
            int perLine = LINE / width;
            return ((rows + perLine - 1) / perLine + 1) * LINE;
        }
        return (width * rows + 7) & ~7L;
    }

    /**
     * The bytes of a value of payload field {@code f} of {@code type} in its column: a fixed-width type's width; for a
     * variable-width field, when {@code narrow} entries are asked for and its values ({@code keys}) are at most
     * {@value #NARROW_MAX_LENGTH} bytes long, a narrow entry of a length byte and the longest value's bytes; else a
     * wide entry of {@value #ENTRY_BYTES}.
     */
    private static int entryWidth(ColumnType type, KeyRange keys, int f, boolean narrow) {
        if (!type.isVariableWidth()) {
            return type.fixedWidth();
        }
        return isNarrow(type, keys, f, narrow) ? 1 + keys.maxLength(f) : ENTRY_BYTES;
    }

    /** Whether payload field {@code f} of {@code type} takes narrow entries (see {@link #entryWidth}). */
    private static boolean isNarrow(ColumnType type, KeyRange keys, int f, boolean narrow) {
        return narrow && type.isVariableWidth() && keys.maxLength(f) <= NARROW_MAX_LENGTH;
    }

    /** Whether this table's field {@code f} has narrow entries. */
    private boolean isNarrow(int f) {
        return perLine[f] > 0;
    }

    /**
     * The heap's bytes of a table over {@code keys} ({@code narrow}: with narrow entries where they can be): the long
     * values, with their lengths, of the variable-width fields with wide entries.
     */
    private static long heapBytes(RowLayout layout, KeyRange keys, boolean narrow) {
        long bytes = 0;
        for (int f = 1; f < layout.fieldCount(); f++) {
            ColumnType type = layout.fieldType(f);
            bytes += type.isVariableWidth() && !isNarrow(type, keys, f, narrow) ? keys.longValueBytes(f) : 0;
        }
        return bytes;
    }

    /** The variable-width payload fields of {@code layout}. */
    static int[] variableFields(RowLayout layout) {
        int n = 0;
        for (int f = 1; f < layout.fieldCount(); f++) {
            n += layout.fieldType(f).isVariableWidth() ? 1 : 0;
        }
        int[] fields = new int[n];
        for (int f = 1, k = 0; f < layout.fieldCount(); f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                fields[k++] = f;
            }
        }
        return fields;
    }

    /**
     * The heap bytes of the row at {@code row}: its non-NULL values of the variable-width fields with wide entries
     * longer than such an entry holds, with their lengths.
     */
    private long heapBytesOfRow(long row) {
        long bytes = 0;
        long value = layout.variableValues(row, false);
        for (int f : variableFields) { // every variable-width field, in field order: each value follows the last
            bytes += isNarrow(f) ? 0 : heapBytes(valueLength(layout, row, f, value));
            value = RowLayout.skipValues(value, 1);
        }
        return bytes;
    }

    /**
     * The length of variable-width field {@code f}'s value at {@code value} in the row at {@code row}, 0 when it is
     * NULL. (A row's variable-width values are read in field order, each after the one before: the key is
     * fixed-width, so every variable-width field is a payload field, at its index among them.)
     */
    static int valueLength(RowLayout layout, long row, int f, long value) {
        return layout.isNull(row, f) ? 0 : NativeMemory.getInt(value);
    }

    /** A value's heap bytes beside a wide entry: none when the entry holds it, else its bytes and length. */
    static long heapBytes(int length) {
        return length > INLINE_BYTES ? Integer.BYTES + length : 0;
    }

    /**
     * The bytes of a table over rows with key statistics {@code keys} ({@code marks}: with a MATCHED bitmap), or -1
     * when it cannot be built (no keyed row, a range too large or too sparse). More keyed rows than range values
     * are surely duplicates, which a build fails on (or finds: {@link DuplicateKeys}); its size is then that of
     * a row per range value.
     */
    public static long bytes(RowLayout layout, KeyRange keys, boolean marks) {
        return bytes(layout, keys, marks, false);
    }

    /**
     * As {@link #bytes(RowLayout, KeyRange, boolean)}, with {@code narrow} entries for the variable-width fields whose
     * values allow them ({@link #entryWidth}).
     */
    public static long bytes(RowLayout layout, KeyRange keys, boolean marks, boolean narrow) {
        long range = keys.range();
        if (range < 0 || range > MAX_RANGE || range > MAX_RANGE_PER_ROW * keys.keyedRows
                || keys.nullKeyRows >= MAX_RANGE) { // a reference's index and rank fit 32 bits each
            return -1;
        }
        long rows = Math.min(keys.keyedRows, range) + keys.nullKeyRows;
        long bitmapBytes = ((rows + 63) >>> 6) << 3;
        long blocks = (range + 63) >>> 6;
        long total = blocks * Long.BYTES + rankBytes(blocks);
        for (int f = 1; f < layout.fieldCount(); f++) {
            ColumnType type = layout.fieldType(f);
            total += columnBytes(entryWidth(type, keys, f, narrow), rows, isNarrow(type, keys, f, narrow))
                    + (keys.fieldHasNull(f) ? bitmapBytes : 0);
        }
        return total + (marks ? bitmapBytes : 0) + ((heapBytes(layout, keys, narrow) + 7) & ~7L);
    }

    /**
     * A table over the rows of {@code arenas} (null entries skipped), whose statistics are {@code keys}, reserved
     * from {@code reservation}; or null when it is not worth it or not possible: it cannot be built
     * ({@link #bytes} -1), it would cost more than {@code alternativeBytes}, the reservation refused it, or a
     * duplicate key turned up. The arenas are left as they are (the caller frees them once the table exists).
     */
    public static DirectIndexTable tryBuild(MemoryReservation reservation, RowLayout layout, KeyRange keys,
                                            boolean marks, RowArena[] arenas, long alternativeBytes) {
        return tryBuild(reservation, layout, keys, marks, arenas, alternativeBytes, ParallelTasks.CALLER);
    }

    /**
     * As {@link #tryBuild(MemoryReservation, RowLayout, KeyRange, boolean, RowArena[], long)}, filled on
     * {@code tasks}' threads, a row page at a time: occupancy bits are set by atomic OR (a bit found set is a
     * duplicate), then the ranks are summed on the caller, then every page copies its rows' payload to their ranks
     * (distinct slots; NULL bits by atomic OR), the NULL-key rows of a page to the ranks its count of them reserved in
     * page order.
     */
    public static DirectIndexTable tryBuild(MemoryReservation reservation, RowLayout layout, KeyRange keys,
                                            boolean marks, RowArena[] arenas, long alternativeBytes,
                                            ParallelTasks tasks) {
        return tryBuild(reservation, layout, keys, marks, arenas, alternativeBytes, tasks, null);
    }

    /**
     * As {@link #tryBuild(MemoryReservation, RowLayout, KeyRange, boolean, RowArena[], long, ParallelTasks)}; at a
     * duplicate key the occupancy pass goes on, recording every duplicate key in {@code duplicates} (when not null)
     * until its bounds are exceeded, and the table is then dropped (null) all the same: the caller may move those
     * keys' rows out and try again.
     */
    public static DirectIndexTable tryBuild(MemoryReservation reservation, RowLayout layout, KeyRange keys,
                                            boolean marks, RowArena[] arenas, long alternativeBytes,
                                            ParallelTasks tasks, DuplicateKeys duplicates) {
        try {
            return tryBuild(reservation, layout, keys, marks, false, arenas, null, alternativeBytes, tasks,
                    duplicates);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // no spilled rows: nothing was read
        }
    }

    /**
     * As {@link #tryBuild(MemoryReservation, RowLayout, KeyRange, boolean, RowArena[], long, ParallelTasks,
     * DuplicateKeys)}, over the rows of {@code arenas} and those of {@code spilled} (null: none), which each pass reads
     * back block by block after the arenas' pages; {@code keys} are the statistics of both; with {@code narrow}
     * entries for the variable-width fields that allow them ({@link #entryWidth}).
     *
     * @throws IOException if reading a spilled file fails
     */
    public static DirectIndexTable tryBuild(MemoryReservation reservation, RowLayout layout, KeyRange keys,
                                            boolean marks, boolean narrow, RowArena[] arenas,
                                            SpilledRowPages spilled, long alternativeBytes, ParallelTasks tasks,
                                            DuplicateKeys duplicates) throws IOException {
        return build(reservation, layout, keys, marks, narrow, arenas, spilled, alternativeBytes, tasks, duplicates,
                null);
    }

    /**
     * As {@link #tryBuild(MemoryReservation, RowLayout, KeyRange, boolean, boolean, RowArena[], SpilledRowPages,
     * long, ParallelTasks, DuplicateKeys)}, over the rows whose keys {@code unique} proved free of duplicates: its
     * occupancy is the table's, so the fill skips the pass that would set it (a read of every spilled row less).
     *
     * @throws IOException if reading a spilled file fails
     */
    public static DirectIndexTable tryBuild(MemoryReservation reservation, RowLayout layout, UniqueKeys unique,
                                            boolean marks, boolean narrow, RowArena[] arenas,
                                            SpilledRowPages spilled, ParallelTasks tasks) throws IOException {
        return build(reservation, layout, unique.keys, marks, narrow, arenas, spilled, Long.MAX_VALUE, tasks, null,
                unique);
    }

    /** The fill both forms of {@code tryBuild} share: {@code unique} (null: none) gives the occupancy. */
    private static DirectIndexTable build(MemoryReservation reservation, RowLayout layout, KeyRange keys,
                                          boolean marks, boolean narrow, RowArena[] arenas, SpilledRowPages spilled,
                                          long alternativeBytes, ParallelTasks tasks, DuplicateKeys duplicates,
                                          UniqueKeys unique) throws IOException {
        long bytes = supports(layout) ? bytes(layout, keys, marks, narrow) : -1;
        long surelyExtra = keys.keyedRows - keys.range(); // above 0: that many keyed rows surely repeat a key
        if (bytes < 0 || surelyExtra > 0 && (duplicates == null || !duplicates.fits(surelyExtra))
                || bytes > alternativeBytes || !reservation.tryGrow(bytes)) {
            return null;
        }
        DirectIndexTable table;
        try {
            table = new DirectIndexTable(reservation, NativeMemory.allocate(reservation, bytes), bytes,
                    layout, keys, marks, narrow);
        } catch (RuntimeException e) {
            reservation.shrink(bytes);
            throw e;
        }
        try {
            Pages pages = new Pages(arenas, spilled); // the table's page is zeroed: no bit, no NULL, nothing MATCHED
            if (unique != null) {
                NativeMemory.copy(unique.bitmap.address(), table.occupancy, table.blocks * Long.BYTES);
            } else if (!table.setOccupancy(pages, tasks, duplicates)) {
                table.close();
                return null;
            }
            long ranked = table.sumRanks();
            if (ranked != table.keyedRows) { // the columns were sized by the statistics: more rows would overrun them
                throw new IllegalStateException("the direct-index table met " + ranked
                        + " keyed rows where its key statistics counted " + table.keyedRows);
            }
            table.copyPayload(pages, table.heapStarts(pages, tasks), tasks);
            return table;
        } catch (IOException | RuntimeException e) {
            table.close();
            throw e;
        }
    }

    /**
     * Keys proven free of duplicates ({@link #uniqueKeys}): their statistics and the occupancy bitmap of their range
     * (reserved until {@link #close}), which a table over the same rows takes as its own.
     */
    public static final class UniqueKeys implements AutoCloseable {
        private final KeyRange keys;
        private final NativePage bitmap;
        private final MemoryReservation reservation;
        private final long bytes;
        private boolean closed;

        private UniqueKeys(KeyRange keys, NativePage bitmap, MemoryReservation reservation, long bytes) {
            this.keys = keys;
            this.bitmap = bitmap;
            this.reservation = reservation;
            this.bytes = bytes;
        }

        /** Frees the bitmap; idempotent. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                bitmap.close();
                reservation.shrink(bytes);
            }
        }
    }

    /** The bytes {@link #uniqueKeys} reserves for keys {@code keys}: a bit per value of their range. */
    public static long uniqueKeysBytes(KeyRange keys) {
        return ((Math.max(keys.range(), 0) + 63) >>> 6) << 3;
    }

    /**
     * The occupancy of the rows of {@code arenas} (null entries skipped) and {@code spilled} (null: none), whose
     * statistics are {@code keys}, when no non-NULL key occurs twice among them; else null. One pass that only sets
     * occupancy bits, in a bitmap reserved from {@code reservation} ({@link #uniqueKeysBytes}), on up to
     * {@code tasks}' threads (atomically; fewer when the budget has room for fewer threads' reads of spilled rows).
     * Null also when a table over these keys cannot be built or the bitmap and one thread's read do not fit: a caller
     * about to give something up for the table (spill rows to make room for it) learns first whether it would be
     * built, and the table it then builds over the same rows takes this occupancy instead of setting its own.
     *
     * @throws IOException if reading a spilled file fails
     */
    public static UniqueKeys uniqueKeys(MemoryReservation reservation, RowLayout layout, KeyRange keys,
                                        RowArena[] arenas, SpilledRowPages spilled, ParallelTasks tasks)
            throws IOException {
        long range = keys.range();
        if (!supports(layout) || range < 0 || range > MAX_RANGE || keys.keyedRows > range) {
            return null;
        }
        long bytes = uniqueKeysBytes(keys);
        if (!reservation.tryGrow(bytes)) {
            return null;
        }
        UniqueKeys unique;
        try {
            unique = new UniqueKeys(keys, NativeMemory.allocate(reservation, bytes), reservation, bytes); // zeroed
        } catch (RuntimeException e) {
            reservation.shrink(bytes);
            throw e;
        }
        try {
            int passThreads = spilled == null ? tasks.threads()
                    : spilled.threadsFitting(tasks.threads(), reservation.headroom());
            if (passThreads == 0) {
                unique.close();
                return null;
            }
            AtomicBoolean repeated = new AtomicBoolean();
            Pages pages = new Pages(arenas, spilled);
            boolean atomic = pages.threadsFor(passThreads) > 1;
            long bitmap = unique.bitmap.address();
            KeyStride stride = keys.stride();
            forEachPage(pages, tasks.limitedTo(passThreads), (thread, p, start, end) -> {
                if (!repeated.get() && setBits(layout, keys.min, stride, range, start, end, bitmap, atomic, null) < 0) {
                    repeated.set(true);
                }
            });
            if (repeated.get()) {
                unique.close();
                return null;
            }
            return unique;
        } catch (IOException | RuntimeException e) {
            unique.close();
            throw e;
        }
    }

    /**
     * The rows of a fill, page by page: the arenas' pages as [start, end) address pairs (the tasks of a parallel
     * pass), then a page per block of the spilled rows.
     */
    private static final class Pages {
        /** Every page: the arenas' ones, then the spilled blocks'. */
        final int count;
        /** The arenas' pages, numbered {@code [0, inMemory)}. */
        final int inMemory;
        final long[] start;
        final long[] end;
        /** Null: no spilled rows. */
        final SpilledRowPages spilled;

        /** The threads {@link #forEachPage} runs on when given {@code threads}. */
        int threadsFor(int threads) {
            return Math.max(ParallelTasks.threadsFor(threads, inMemory),
                    spilled == null ? 1 : spilled.threadsFor(threads));
        }

        Pages(RowArena[] arenas, SpilledRowPages spilled) {
            int n = 0;
            for (RowArena arena : arenas) {
                n += arena == null ? 0 : arena.pageCount();
            }
            inMemory = n;
            count = n + (spilled == null ? 0 : spilled.blockCount());
            this.spilled = spilled;
            start = new long[n];
            end = new long[n];
            int i = 0;
            for (RowArena arena : arenas) {
                for (int p = 0; arena != null && p < arena.pageCount(); p++, i++) {
                    start[i] = arena.pageAddress(p);
                    end[i] = start[i] + arena.pageUsed(p);
                }
            }
        }
    }

    /** One pass's work on the rows in {@code [start, end)} of page {@code page}, on thread {@code thread}. */
    @FunctionalInterface
    private interface PageTask {
        void rows(int thread, int page, long start, long end);
    }

    /**
     * Runs {@code task} over every page on {@code tasks}' threads: the arenas' pages,
     * then, once all of them are done, the spilled blocks (a file at a time per thread).
     */
    private static void forEachPage(Pages pages, ParallelTasks tasks, PageTask task) throws IOException {
        tasks.run(pages.inMemory, (thread, p) -> task.rows(thread, p, pages.start[p], pages.end[p]));
        if (pages.spilled != null) {
            pages.spilled.forEachBlock(tasks, (thread, block, rows) -> {
                for (int q = 0; q < rows.pageCount(); q++) {
                    long start = rows.pageAddress(q);
                    task.rows(thread, pages.inMemory + block, start, start + rows.pageUsed(q));
                }
            });
        }
    }

    /**
     * Sets every keyed row's occupancy bit; false when a key turned up twice (each such key recorded in
     * {@code duplicates}, when given, until its bounds are exceeded, the pass going on meanwhile). On several threads,
     * each helper thread sets its bits in an occupancy bitmap of its own (reserved for the moment, when the budget
     * grants it), merged into the table's at the end: two threads setting bits in the same words had to do so
     * atomically, and their cache lines then moved between the cores at almost every row (more CPU on two threads
     * than on one). Without the memory they set the table's bits atomically.
     */
    private boolean setOccupancy(Pages pages, ParallelTasks tasks, DuplicateKeys duplicates) throws IOException {
        int helpers = pages.threadsFor(tasks.threads()) - 1;
        long bitmapBytes = blocks * Long.BYTES;
        long passBytes = pages.spilled == null ? 0 : pages.spilled.passBytes(tasks.threads()); // the pass reserves it
        boolean ownBitmaps = helpers > 0 && reservation.headroom() - helpers * bitmapBytes >= passBytes
                && reservation.tryGrow(helpers * bitmapBytes);
        NativePage[] bitmaps = new NativePage[ownBitmaps ? helpers : 0];
        try {
            for (int h = 0; h < bitmaps.length; h++) {
                bitmaps[h] = NativeMemory.allocate(reservation, bitmapBytes); // zeroed
            }
            boolean atomic = helpers > 0 && !ownBitmaps;
            AtomicBoolean duplicate = new AtomicBoolean();
            forEachPage(pages, tasks, (thread, p, start, end) -> {
                if (duplicate.get()) {
                    return; // the table is dropped: no page needs visiting any more
                }
                long bits = thread == 0 || atomic ? occupancy : bitmaps[thread - 1].address();
                if (setBits(start, end, bits, atomic, duplicates) < 0) {
                    duplicate.set(true);
                }
            });
            return !duplicate.get() && mergeOccupancy(bitmaps, duplicates)
                    && (duplicates == null || duplicates.isEmpty());
        } finally {
            for (NativePage bitmap : bitmaps) {
                if (bitmap != null) {
                    bitmap.close();
                }
            }
            if (ownBitmaps) {
                reservation.shrink(helpers * bitmapBytes);
            }
        }
    }

    /**
     * Sets the occupancy bits of the rows in {@code [row, end)} in the bitmap at {@code bits} (the table's, or a
     * thread's own), atomically or not; returns the NULL-key rows among them, or -1 at a key whose bit was set
     * already, unless {@code duplicates} records it.
     */
    private long setBits(long row, long end, long bits, boolean atomic, DuplicateKeys duplicates) {
        return setBits(layout, min, stride, range, row, end, bits, atomic, duplicates);
    }

    /**
     * {@link #setBits(long, long, long, boolean, DuplicateKeys)} for keys from {@code min} at {@code stride}, a
     * bitmap of {@code range} bits. A key off that grid fails it: the statistics the table was sized by missed the row
     * (a bit set out of range would write past the bitmap).
     */
    private static long setBits(RowLayout layout, long min, KeyStride stride, long range, long row, long end,
                                long bits, boolean atomic, DuplicateKeys duplicates) {
        boolean intKey = layout.fieldType(0) == ColumnType.INTEGER;
        long keyOffset = layout.keyOffset();
        long lowBits = stride.lowBits();
        long nullKeyRows = 0;
        while (row < end) {
            if (layout.hasNullKey(row)) {
                nullKeyRows++;
            } else {
                long difference = keyAt(row, intKey, keyOffset) - min;
                long index = stride.quotientOf(difference);
                if ((difference & lowBits) != 0 || Long.compareUnsigned(index, range) >= 0) {
                    throw new IllegalStateException("a build row's key " + (min + difference)
                            + " lies off the table's keys (from " + min + ", " + range + " at a stride of "
                            + stride.stride() + "): the key statistics missed its row");
                }
                long bit = 1L << index;
                long at = bits + ((index >>> 6) << 3);
                long was = atomic ? NativeMemory.getAndOrLongAtomic(at, bit) : NativeMemory.getLong(at);
                if ((was & bit) != 0 && (duplicates == null || !duplicates.add(min + index * stride.stride()))) {
                    return -1;
                }
                if (!atomic) {
                    NativeMemory.putLong(at, was | bit);
                }
            }
            row += layout.rowLength(row);
        }
        return nullKeyRows;
    }

    /**
     * ORs the helper threads' own bitmaps into the table's; false when a bit was set in two of them (a duplicate),
     * unless {@code duplicates} records every such key.
     */
    private boolean mergeOccupancy(NativePage[] bitmaps, DuplicateKeys duplicates) {
        for (NativePage bitmap : bitmaps) {
            long from = bitmap.address();
            for (long at = 0, end = blocks << 3; at < end; at += Long.BYTES) {
                long own = NativeMemory.getLong(from + at);
                long bits = NativeMemory.getLong(occupancy + at);
                for (long twice = bits & own; twice != 0; twice &= twice - 1) {
                    if (duplicates == null || !duplicates.add(keyOf((at << 3) + Long.numberOfTrailingZeros(twice)))) {
                        return false;
                    }
                }
                NativeMemory.putLong(occupancy + at, bits | own);
            }
        }
        return true;
    }

    /**
     * Writes each block's rank. An int holds it: a table that reads ranks is not full, so its keyed rows, and the
     * ranks, stay below its range, at most {@link #MAX_RANGE}. Returns the set bits.
     */
    private long sumRanks() {
        long rank = 0;
        for (long b = 0; b < blocks; b++) {
            NativeMemory.putInt(ranks + (b << 2), (int) rank);
            rank += Long.bitCount(NativeMemory.getLong(occupancy + (b << 3)));
        }
        return rank;
    }

    /**
     * Where each row page's long variable-width values begin in the heap: the heap's start plus the earlier pages'
     * (counted a page per task); null when the heap is empty (no variable-width field, or no value longer than an
     * entry holds).
     */
    private long[] heapStarts(Pages pages, ParallelTasks tasks) throws IOException {
        if (heapBytes == 0) {
            return null;
        }
        long[] starts = new long[pages.count];
        forEachPage(pages, tasks, (thread, p, start, end) -> {
            long bytes = 0;
            for (long row = start; row < end; row += layout.rowLength(row)) {
                bytes += heapBytesOfRow(row);
            }
            starts[p] += bytes;
        });
        long at = heap;
        for (int p = 0; p < pages.count; p++) {
            long bytes = starts[p];
            starts[p] = at;
            at += bytes;
        }
        if (at != heap + heapBytes) { // the heap was sized by the statistics
            throw new IllegalStateException("the direct-index table's rows hold " + (at - heap)
                    + " bytes of long values where its key statistics counted " + heapBytes);
        }
        return starts;
    }

    /**
     * Copies every row's payload fields (and NULL bits) to its rank, page p's long variable-width values to the heap
     * from {@code heapStart[p]} (a cursor, advanced as a page's rows are copied: a spilled block may come as several
     * pieces); the NULL-key rows take the ranks after the keyed rows', a run's at once from a shared counter (their
     * order is free), checked against the count the columns were sized by. A page's rows go in runs of
     * {@value #COPY_RUN}: first every rank of the run, then every row's fields, so that the ranks' loads (random, in an
     * occupancy bitmap and ranks of up to hundreds of MB) are independent of each other and of the copies, and the
     * core has many in flight (rank by rank, each row waited for its own miss).
     */
    private void copyPayload(Pages pages, long[] heapStart, ParallelTasks tasks) throws IOException {
        boolean intKey = layout.fieldType(0) == ColumnType.INTEGER;
        long keyOffset = layout.keyOffset();
        int fields = layout.fieldCount();
        ColumnType[] types = new ColumnType[fields];
        for (int f = 1; f < fields; f++) {
            types[f] = layout.fieldType(f);
        }
        long rankEnd = keyedRows + nullKeyRows;
        AtomicLong nextNullRank = new AtomicLong(keyedRows);
        forEachPage(pages, tasks, (thread, p, start, end) -> {
            long[] runRows = new long[COPY_RUN];
            long[] runRanks = new long[COPY_RUN];
            long heapAt = heapStart == null ? 0 : heapStart[p];
            for (long row = start; row < end; ) {
                int n = 0;
                int nullKeys = 0;
                for (; n < COPY_RUN && row < end; n++) {
                    runRows[n] = row;
                    boolean nullKey = layout.hasNullKey(row);
                    nullKeys += nullKey ? 1 : 0;
                    runRanks[n] = nullKey ? -1 : rankOf(indexOfRow(row, intKey, keyOffset));
                    row += layout.rowLength(row);
                }
                if (nullKeys > 0) {
                    long rank = nextNullRank.getAndAdd(nullKeys);
                    if (rank + nullKeys > rankEnd) { // the columns were sized by the statistics
                        throw new IllegalStateException("the direct-index table met more NULL-key rows than its key"
                                + " statistics counted (" + nullKeyRows + ")");
                    }
                    for (int j = 0; j < n; j++) {
                        runRanks[j] = runRanks[j] < 0 ? rank++ : runRanks[j];
                    }
                }
                for (int j = 0; j < n; j++) {
                    long from = runRows[j];
                    long rank = runRanks[j];
                    long value = layout.variableValues(from, false);
                    for (int f = 1; f < fields; f++) {
                        ColumnType type = types[f];
                        boolean variable = type.isVariableWidth();
                        if (nulls[f] != 0 && layout.isNull(from, f)) { // a field without a NULL has no bitmap
                            NativeMemory.orLongAtomic(nulls[f] + ((rank >>> 6) << 3), 1L << rank);
                        } else if (isNarrow(f)) {
                            copyNarrow(value, narrowEntry(f, rank), width[f]);
                        } else if (variable) {
                            heapAt = copyVariable(value, column[f] + rank * ENTRY_BYTES, heapAt);
                        } else {
                            copyValue(type, layout.fixedAddress(from, f), column[f], rank);
                        }
                        if (variable) { // the next variable-width field's value follows this one (NULL: empty)
                            value = RowLayout.skipValues(value, 1);
                        }
                    }
                }
            }
            if (heapStart != null) {
                heapStart[p] = heapAt;
            }
        });
        if (nextNullRank.get() != rankEnd) {
            throw new IllegalStateException("the direct-index table met " + (nextNullRank.get() - keyedRows)
                    + " NULL-key rows where its key statistics counted " + nullKeyRows);
        }
    }

    /**
     * Copies the variable-width value at {@code from} ([int length][bytes]) into its narrow entry of {@code width}
     * bytes at {@code entry}; a value longer than the entry holds fails (its width came from the statistics).
     */
    private static void copyNarrow(long from, long entry, int width) {
        int length = NativeMemory.getInt(from);
        if (length >= width) {
            throw new IllegalStateException("a value of " + length + " bytes met narrow entries of " + width
                    + " bytes: the key statistics missed its row");
        }
        NativeMemory.putByte(entry, (byte) length);
        NativeMemory.copy(from + Integer.BYTES, entry + 1, length);
    }

    /**
     * Copies the variable-width value at {@code from} ([int length][bytes]) into its wide entry at {@code entry}, or,
     * when longer than an entry holds, to the heap at {@code heapAt} with its address in the entry; returns where the
     * heap goes on.
     */
    private static long copyVariable(long from, long entry, long heapAt) {
        int bytes = Integer.BYTES + NativeMemory.getInt(from);
        if (bytes <= ENTRY_BYTES) {
            NativeMemory.copy(from, entry, bytes);
            return heapAt;
        }
        NativeMemory.copy(from, heapAt, bytes);
        NativeMemory.putInt(entry, bytes - Integer.BYTES);
        NativeMemory.putLong(entry + ADDRESS_OFFSET, heapAt);
        return heapAt + bytes;
    }

    private static void copyValue(ColumnType type, long from, long column, long rank) {
        switch (type) {
            case BIGINT, DOUBLE -> NativeMemory.putLong(column + (rank << 3), NativeMemory.getLong(from));
            case INTEGER -> NativeMemory.putInt(column + (rank << 2), NativeMemory.getInt(from));
            case BOOLEAN -> NativeMemory.putByte(column + rank, NativeMemory.getByte(from));
            case VARCHAR, VARBINARY -> throw new IllegalStateException(type + " values are copied by copyVariable");
        }
    }

    private static boolean isBit(long bitmap, long bit) {
        return (NativeMemory.getLong(bitmap + ((bit >>> 6) << 3)) & 1L << bit) != 0;
    }

    /** The key of the keyed row at {@code row}: its field at {@code keyOffset}, an INTEGER one widened. */
    static long keyAt(long row, boolean intKey, long keyOffset) {
        return intKey ? NativeMemory.getInt(row + keyOffset) : NativeMemory.getLong(row + keyOffset);
    }

    /** The index of the keyed row at {@code row} (its key in this table's range). */
    private long indexOfRow(long row, boolean intKey, long keyOffset) {
        return stride.quotientOf(keyAt(row, intKey, keyOffset) - min);
    }

    /** The key at {@code index} in the range. */
    private long keyOf(long index) {
        return min + index * stride.stride();
    }

    /**
     * The reference to the row at {@code index} (in the range, or a NULL-key row's after it): {@link #ref} of its
     * rank and index, so that a reader of its payload finds the rank without the occupancy.
     */
    long refOf(long index) {
        return ref(rankOf(index), index);
    }

    /** A reference: {@code rank} in the high 32 bits, {@code index + 1} in the low 32 (never 0: 0 is no row). */
    static long ref(long rank, long index) {
        return rank << 32 | index + 1;
    }

    /** The index of the row {@code ref}. */
    private static long indexOf(long ref) {
        return (ref & 0xFFFF_FFFFL) - 1;
    }

    /** The rank (payload position) of the row {@code ref}. */
    private static long rankOfRef(long ref) {
        return ref >>> 32;
    }

    /** The rank (payload position) of the row at {@code index}: keyed ranks first, then the NULL-key rows'. */
    private long rankOf(long index) {
        if (full) {
            return index; // the NULL-key rows' ranks too: keyedRows + index - range
        }
        if (index >= range) {
            return keyedRows + index - range;
        }
        long block = index >>> 6;
        return NativeMemory.getInt(ranks + (block << 2))
                + Long.bitCount(NativeMemory.getLong(occupancy + (block << 3)) & ((1L << index) - 1));
    }

    // ---- what the probe and the finish pass read

    /** The smallest key. */
    long min() {
        return min;
    }

    /** The keys' stride: key {@code min + index * stride} lies at {@code index}. */
    KeyStride stride() {
        return stride;
    }

    /** Whether every value of the range is a key (see {@link #full}). */
    boolean full() {
        return full;
    }

    /** {@code (max - min) / stride + 1}: the indexes of keyed rows. */
    long range() {
        return range;
    }

    long nullKeyRows() {
        return nullKeyRows;
    }

    /** The address of the occupancy bitmap: a long per block of 64 indexes, bit i of block b for index 64b + i. */
    long occupancy() {
        return occupancy;
    }

    /** The blocks of 64 indexes (the occupancy bitmap's longs). */
    long blockCount() {
        return blocks;
    }

    /**
     * Sets the MATCHED bit of the row {@code ref} (the table must have been built to mark rows); safe beside other
     * workers setting bits of the same word (an atomic OR, skipped when the bit is set already).
     */
    void setMatched(long ref) {
        long bit = rankOfRef(ref);
        NativeMemory.orLongAtomic(matched + ((bit >>> 6) << 3), 1L << bit);
    }

    /** Whether the row {@code ref} is MATCHED (false when the table does not mark rows). */
    boolean isMatched(long ref) {
        return matched != 0 && isBit(matched, rankOfRef(ref));
    }

    // ---- BuildRowReader

    @Override
    public void gather(int field, long[] refs, int count, GatherScratch scratch, ColumnVector out, int outStart) {
        out.ensureCapacity(outStart + count);
        ColumnType type = layout.fieldType(field);
        if (field == 0) {
            for (int j = 0; j < count; j++) {
                long index = indexOf(refs[j]);
                if (refs[j] == 0 || index >= range) {
                    out.setNull(outStart + j);
                } else if (type == ColumnType.INTEGER) {
                    out.setInt(outStart + j, (int) keyOf(index));
                } else {
                    out.setLong(outStart + j, keyOf(index));
                }
            }
            return;
        }
        long[] at = scratch.addresses();
        long nullBitmap = nulls[field];
        long base = column[field];
        if (isNarrow(field)) {
            gatherNarrow(field, nullBitmap, refs, count, scratch, out, outStart);
            return;
        }
        boolean variable = type.isVariableWidth();
        int width = this.width[field];
        if (!variable && nullBitmap == 0) { // no NULL to look up, no entry to read: an address per ref
            for (int j = 0; j < count; j++) {
                long ref = refs[j];
                at[j] = ref == 0 ? 0 : base + rankOfRef(ref) * width;
            }
            RowReader.gatherValues(type, at, count, out, outStart);
            return;
        }
        for (int j = 0; j < count; j++) {
            long ref = refs[j];
            long rank = rankOfRef(ref);
            long value = base + rank * width;
            at[j] = ref == 0 || nullBitmap != 0 && isBit(nullBitmap, rank) ? 0
                    : variable && NativeMemory.getInt(value) > INLINE_BYTES
                    ? NativeMemory.getLong(value + ADDRESS_OFFSET) : value;
        }
        RowReader.gatherValues(type, at, count, out, outStart);
    }

    /**
     * Row {@code ref}'s stored payload: the fixed widths, and its variable-width values with their lengths (a NULL's
     * entry is zero: its length counts), read from the entries alone.
     */
    @Override
    public int rowBytes(long ref) {
        if (variableFields.length == 0) {
            return fixedRowBytes;
        }
        long rank = rankOfRef(ref);
        int bytes = fixedRowBytes;
        for (int f : variableFields) {
            bytes += Integer.BYTES + (isNarrow(f) ? NativeMemory.getByte(narrowEntry(f, rank)) & 0xFF
                    : NativeMemory.getInt(column[f] + rank * ENTRY_BYTES));
        }
        return bytes;
    }

    /** The address of row {@code rank}'s narrow entry of field {@code f}: its line's, plus its place in the line. */
    private long narrowEntry(int f, long rank) {
        long line = Math.multiplyHigh(rank, lineReciprocal[f]); // rank / perLine[f], exactly: see lineReciprocal
        return column[f] + line * LINE + (rank - line * perLine[f]) * width[f];
    }

    /**
     * Field {@code field}'s values (narrow entries) of the rows {@code refs}, into {@code out} from {@code outStart}:
     * first every entry's address (0: NULL) and length, each load independent of the others' (so that the core has
     * many in flight), then each value's bytes.
     */
    private void gatherNarrow(int field, long nullBitmap, long[] refs, int count, GatherScratch scratch,
                              ColumnVector out, int outStart) {
        long[] at = scratch.addresses();
        int[] lengths = scratch.lengths();
        long base = column[field]; // locals: the loop's stores into an int[] might otherwise reload them per row
        long reciprocal = lineReciprocal[field];
        int perLine = this.perLine[field];
        int width = this.width[field];
        for (int j = 0; j < count; j++) {
            long ref = refs[j];
            long rank = rankOfRef(ref);
            long line = Math.multiplyHigh(rank, reciprocal);
            at[j] = ref == 0 || nullBitmap != 0 && isBit(nullBitmap, rank) ? 0
                    : base + line * LINE + (rank - line * perLine) * width;
            lengths[j] = at[j] == 0 ? 0 : NativeMemory.getByte(at[j]) & 0xFF;
        }
        for (int j = 0; j < count; j++) {
            if (at[j] == 0) {
                out.setNull(outStart + j);
            } else {
                int start = out.reserveBytes(outStart + j, lengths[j]);
                NativeMemory.copyToArray(at[j] + 1, out.bytes(), start, lengths[j]);
            }
        }
    }

    @Override
    public int maxRowBytes() {
        return maxRowBytes;
    }

    /** The keys' stride (1 unless every key is a multiple of a larger step from the smallest). */
    public long keyStride() {
        return stride.stride();
    }

    /** Build rows held: keyed and NULL-key. */
    public long rows() {
        return keyedRows + nullKeyRows;
    }

    /** The bytes reserved for the table. */
    public long bytes() {
        return bytes;
    }

    @Override
    public void close() {
        if (!page.isClosed() && !reservation.isClosed()) {
            page.close();
            reservation.shrink(bytes);
        }
    }
}
