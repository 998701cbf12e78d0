package dev.spilljoin.spill;

import java.io.IOException;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.posix.PosixAPI;

/**
 * The one mapped window of a {@link PartitionReader}: keeps the chunk it last mapped until a position outside it is
 * asked for, because unmapping is the expensive part of memory-mapped I/O (milliseconds per munmap were measured
 * on a busy 2-vCPU VM), so a window is unmapped once per chunk, not once per block.
 *
 * <p>A fresh window's page tables are filled in one {@code madvise(MADV_POPULATE_READ)} call (Linux 5.14+)
 * instead of one page fault per 4 KiB page, which costs far more on a busy VM; if the kernel refuses the advice,
 * pages simply fault in as usual.
 *
 * <p>Invariants: at most one chunk is mapped at a time; the old chunk is unmapped (synchronously) before the next
 * is mapped, so the owner's reservation needs room for exactly one window; {@link #release()} unmaps at once.
 */
final class WindowCursor {
    private static final int MADV_POPULATE_READ = 22;

    private final MemoryReservation owner;
    private final long windowBytes;
    private final SpillCounters counters;
    private MappedWindow window;
    private long windowStart = -1;

    /** A reader's cursor; its windows are reserved from {@code owner}. */
    WindowCursor(MemoryReservation owner, long windowBytes, SpillCounters counters) {
        this.owner = owner;
        this.windowBytes = windowBytes;
        this.counters = counters;
    }

    /**
     * The address of file offset {@code chunkStart} (a multiple of the window size), mapping it if needed; of a
     * new window, the first {@code usedBytes} are populated at once.
     */
    long map(MappedFile file, long chunkStart, long usedBytes) throws IOException {
        if (windowStart != chunkStart) {
            release();
            window = new MappedWindow(owner, file, chunkStart, windowBytes, counters);
            windowStart = chunkStart;
            PosixAPI.posix().madvise(window.address(), Math.min(usedBytes, windowBytes), MADV_POPULATE_READ);
        }
        return window.address();
    }

    /** Unmaps the current window, if any. */
    void release() {
        if (window != null) {
            MappedWindow mapped = window;
            window = null;
            windowStart = -1;
            mapped.close();
        }
    }
}
