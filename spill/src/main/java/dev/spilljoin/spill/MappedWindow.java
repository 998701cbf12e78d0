package dev.spilljoin.spill;

import java.io.IOException;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * One mapped chunk of a spill file, held against a {@link MemoryReservation} like any other off-heap bytes.
 *
 * <p>Invariants: the window's bytes are recorded against the reservation before the mapping exists (the
 * {@link NativeMemory.Allocation} constructor refuses unreserved bytes), and {@link #close()} unmaps in the calling
 * thread before the reservation counts them free: the store is a {@link SynchronouslyUnmappedStore}, which opts out
 * of Chronicle's background releaser. Only sealed files are mapped (to be read), and never past their length, so
 * no access through the window can raise SIGBUS.
 */
final class MappedWindow extends NativeMemory.Allocation implements ReferenceOwner {
    private final SpillCounters counters;
    private MappedBytesStore store;
    private final long address;

    /** Maps the chunk of {@code file} starting at {@code chunkStart} ({@code size} bytes, the file's chunk size). */
    MappedWindow(MemoryReservation owner, MappedFile file, long chunkStart, long size, SpillCounters counters)
            throws IOException {
        super(owner, size);
        this.counters = counters;
        MappedBytesStore mapped;
        try {
            mapped = file.acquireByteStore(this, chunkStart, null, SynchronouslyUnmappedStore::new);
        } catch (IOException | RuntimeException | Error e) {
            owner.recordFree(this);
            throw e;
        }
        if (mapped.start() != chunkStart) {
            mapped.release(this);
            owner.recordFree(this);
            throw new IllegalStateException("mapping of " + file.file() + " at " + chunkStart + " starts at "
                    + mapped.start() + ": the window size must be a multiple of the page size");
        }
        this.store = mapped;
        this.address = mapped.addressForRead(chunkStart);
        counters.mapped(size);
    }

    /** Address of the chunk's first byte. */
    long address() {
        return address;
    }

    @Override
    protected void free() {
        store.release(this);
        store = null;
        counters.unmapped(size());
    }

    /** A mapped store whose unmap runs in the releasing thread, never deferred to Chronicle's background thread. */
    private static final class SynchronouslyUnmappedStore extends MappedBytesStore {
        SynchronouslyUnmappedStore(ReferenceOwner owner, MappedFile mappedFile, long start, long address,
                long capacity, long safeCapacity, int pageSize) {
            super(owner, mappedFile, start, address, capacity, safeCapacity, pageSize);
        }

        @Override
        protected boolean canReleaseInBackground() {
            return false;
        }
    }
}
