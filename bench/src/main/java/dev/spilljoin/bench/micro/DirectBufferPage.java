package dev.spilljoin.bench.micro;

import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;

import java.nio.ByteBuffer;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;

/**
 * A direct {@link ByteBuffer} (what a {@link java.nio.channels.FileChannel} reads into and writes from) held as a
 * {@link NativeMemory.Allocation} of a {@link MemoryReservation}, like every other off-heap byte: recorded before
 * it exists, freed at once on {@link #close()} (not left to the garbage collector).
 */
final class DirectBufferPage extends NativeMemory.Allocation {
    private ByteBuffer buffer;
    private final long address;

    /** A buffer of {@code bytes}, which {@code owner} must have reserved. */
    DirectBufferPage(MemoryReservation owner, int bytes) {
        super(owner, bytes);
        buffer = ByteBuffer.allocateDirect(bytes);
        address = Jvm.address(buffer);
    }

    ByteBuffer buffer() {
        return buffer;
    }

    /** Address of the buffer's first byte. */
    long address() {
        return address;
    }

    @Override
    protected void free() {
        UnsafeMemory.UNSAFE.invokeCleaner(buffer);
        buffer = null;
    }
}
