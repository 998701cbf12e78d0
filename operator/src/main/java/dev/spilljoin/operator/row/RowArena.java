package dev.spilljoin.operator.row;

import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.NativeMemory.NativePage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Off-heap pages holding serialized rows back to back (see {@link RowLayout}: rows with a variable-width key padded
 * to 8 bytes, others unpadded). Rows never span
 * pages; a row larger than the page size gets a page of its own. Rows stay at their address until {@link #clear()},
 * {@link #rewind()} or {@link #close()}. A page's bytes are undefined until rows are written there, when it is
 * allocated ({@link NativeMemory#allocateUninitialized}: zeroing every page, 64 MB at a join's default page size
 * however few rows it gets, took most of a small join's time) as when {@link #rewind()} keeps it: a row's writer
 * writes every byte it is read by ({@link RowWriter}, {@link SpillRowFormat#expandBlock}; padding aside, which
 * nothing reads).
 *
 * <p>Memory: each page is reserved ({@code tryGrow}) before it is allocated; a refusal makes {@link #tryAllocate}
 * return 0 and changes nothing (the caller decides: fail, or spill). {@link #close()} frees every page and returns
 * its bytes to the reservation, also after an exception.
 *
 * <p>Walking the rows: for each page {@code p}, rows lie in {@code [pageAddress(p), pageAddress(p) + pageUsed(p))},
 * each {@link RowLayout#rowLength} long.
 */
public final class RowArena implements AutoCloseable {
    private final MemoryReservation reservation;
    private final int pageSize;
    private final List<NativePage> pages = new ArrayList<>();
    private long[] used = new long[8];
    private int currentPage = -1;
    private long currentAddress;
    private long currentUsed;
    private long reservedBytes;
    private long rowCount;

    public RowArena(MemoryReservation reservation, int pageSize) {
        if (pageSize < 64 || (pageSize & 7) != 0) {
            throw new IllegalArgumentException("row page size must be a multiple of 8 and at least 64 bytes, got " + pageSize);
        }
        this.reservation = reservation;
        this.pageSize = pageSize;
    }

    /**
     * Room for a row of {@code bytes}: its address, or 0 if a new page was needed and the
     * reservation refused it.
     */
    public long tryAllocate(int bytes) {
        if (currentPage >= 0 && currentUsed + bytes <= pageSize) {
            long address = currentAddress + currentUsed;
            currentUsed += bytes;
            used[currentPage] = currentUsed;
            rowCount++;
            return address;
        }
        if (bytes > pageSize) {
            NativePage own = tryNewPage(bytes);
            if (own == null) {
                return 0;
            }
            used[pages.size() - 1] = bytes;
            rowCount++;
            return own.address();
        }
        NativePage page = tryNewPage(pageSize);
        if (page == null) {
            return 0;
        }
        currentPage = pages.size() - 1;
        currentAddress = page.address();
        currentUsed = bytes;
        used[currentPage] = bytes;
        rowCount++;
        return currentAddress;
    }

    private NativePage tryNewPage(int size) {
        if (!reservation.tryGrow(size)) {
            return null;
        }
        NativePage page = NativeMemory.allocateUninitialized(reservation, size);
        if ((page.address() >>> 48) != 0 || (page.address() & 7) != 0) {
            page.close();
            reservation.shrink(size);
            throw new IllegalStateException("off-heap page at 0x" + Long.toHexString(page.address())
                    + " is not an 8-byte aligned 48-bit address, which the hash table directory requires");
        }
        reservedBytes += size;
        pages.add(page);
        if (pages.size() > used.length) {
            used = Arrays.copyOf(used, used.length * 2);
        }
        return page;
    }

    public int pageCount() {
        return pages.size();
    }

    public long pageAddress(int page) {
        return pages.get(page).address();
    }

    public long pageUsed(int page) {
        return used[page];
    }

    /**
     * Shrinks page {@code page} to its first {@code used} bytes after the caller compacted its rows in place and
     * dropped {@code removedRows} of them; the current page then continues at the new end.
     */
    public void shrinkPage(int page, long newUsed, long removedRows) {
        used[page] = newUsed;
        if (page == currentPage) {
            currentUsed = newUsed;
        }
        rowCount -= removedRows;
    }

    /** Bytes of rows in the pages (what the rows take, without the pages' unused ends). */
    public long usedBytes() {
        long bytes = 0;
        for (int p = 0; p < pages.size(); p++) {
            bytes += used[p];
        }
        return bytes;
    }

    /** Rows allocated since the last clear. */
    public long rowCount() {
        return rowCount;
    }

    /** Bytes reserved (and allocated) for pages. */
    public long reservedBytes() {
        return reservedBytes;
    }

    public int pageSize() {
        return pageSize;
    }

    /**
     * Takes over {@code other}'s pages and rows (both arenas reserve from the same reservation), leaving it empty; its
     * partly filled last page stays partly filled (rows never span pages), this arena's current page stays current.
     */
    public void absorb(RowArena other) {
        if (other.reservation != reservation) {
            throw new IllegalArgumentException("arenas of different reservations cannot share pages");
        }
        for (int p = 0; p < other.pages.size(); p++) {
            pages.add(other.pages.get(p));
            if (pages.size() > used.length) {
                used = Arrays.copyOf(used, used.length * 2);
            }
            used[pages.size() - 1] = other.used[p];
        }
        reservedBytes += other.reservedBytes;
        rowCount += other.rowCount;
        other.pages.clear();
        other.reservedBytes = 0;
        other.rowCount = 0;
        other.currentPage = -1;
        other.currentUsed = 0;
    }

    /**
     * Forgets every row but keeps the first page, when it is a regular page, for the rows to come (the others are
     * freed and their bytes returned): for an arena refilled and emptied batch after batch, which would otherwise
     * allocate and free a page per batch (a probe worker's staging arena: a tenth of a spilling probe pass).
     */
    public void rewind() {
        if (pages.isEmpty() || used[0] > pageSize) {
            clear();
            return;
        }
        for (int p = 1; p < pages.size(); p++) {
            pages.get(p).close();
        }
        long kept = pageSize;
        reservation.shrink(reservedBytes - kept);
        reservedBytes = kept;
        pages.subList(1, pages.size()).clear();
        currentPage = 0;
        currentAddress = pages.get(0).address();
        currentUsed = 0;
        used[0] = 0;
        rowCount = 0;
    }

    /** Frees every page and returns its bytes; the arena can be used again. */
    public void clear() {
        for (NativePage page : pages) {
            page.close();
        }
        pages.clear();
        reservation.shrink(reservedBytes);
        reservedBytes = 0;
        currentPage = -1;
        currentUsed = 0;
        rowCount = 0;
    }

    @Override
    public void close() {
        if (!reservation.isClosed()) {
            clear();
        }
    }
}
