package dev.spilljoin.spill;

import java.io.IOException;
import net.openhft.chronicle.bytes.MappedFile;

/**
 * The one mapped window of a writer or reader: keeps the chunk it last mapped until a position outside it is
 * asked for, because unmapping is the expensive part of memory-mapped I/O (milliseconds per munmap were measured
 * on a busy 2-vCPU VM), so a window is unmapped once per chunk, not once per block.
 *
 * <p>Invariants: at most one chunk is mapped at a time; the old chunk is unmapped (synchronously) before the next
 * is mapped, so the owner's reservation needs room for exactly one window; {@link #release()} unmaps at once.
 */
final class WindowCursor {
    private final MemoryReservation owner;
    private final long windowBytes;
    private final SpillCounters counters;
    private MappedWindow window;
    private long windowStart = -1;

    WindowCursor(MemoryReservation owner, long windowBytes, SpillCounters counters) {
        this.owner = owner;
        this.windowBytes = windowBytes;
        this.counters = counters;
    }

    /** The address of file offset {@code chunkStart} (a multiple of the window size), mapping it if needed. */
    long map(MappedFile file, long chunkStart) throws IOException {
        if (windowStart != chunkStart) {
            release();
            window = new MappedWindow(owner, file, chunkStart, windowBytes, counters);
            windowStart = chunkStart;
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
