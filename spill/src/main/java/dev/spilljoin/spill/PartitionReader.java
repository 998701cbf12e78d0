package dev.spilljoin.spill;

import java.io.IOException;
import net.openhft.chronicle.bytes.MappedFile;

/**
 * Reads a finished {@link SpillFile} back, block by block, verifying every block's CRC32C.
 *
 * <p>Algorithm: one mapped window (a chunk of the file) is held at a time; a block that lies inside the current
 * chunk is handed out in place (zero copy), a block that straddles chunks is copied piecewise into the reader's
 * block buffer, which is as large as the file's largest block. The caller walks the records inside a block by
 * their own length fields.
 *
 * <p>Invariants: reads never pass the file's logical length; a header that is impossible or a checksum mismatch
 * throws {@link SpillCorruptionException} naming the file and block offset; every block boundary checks
 * cancellation; the window is unmapped before the next is mapped, and both window and buffer are reserved
 * ({@link SpillFile#readerBytes()}) before they exist. Closing the reader deletes the file; releasing it
 * ({@link #release}) keeps the file for another reader.
 */
public final class PartitionReader implements AutoCloseable {
    private static final int HEADER = SpillFile.BLOCK_HEADER_BYTES;

    private final SpillFile file;
    private final MemoryReservation memory;
    private final MappedFile mapped;
    private final long length;
    private final int maxPayload;
    private final long windowBytes;
    private final NativeMemory.NativePage blockBuffer;
    private final BlockChecksum checksum = new BlockChecksum();
    private final WindowCursor window;
    private long position;
    private long blockAddress;
    private int blockLength;
    private boolean closed;

    PartitionReader(SpillFile file, MemoryReservation memory, MappedFile mapped, int windowBytes) {
        this.file = file;
        this.memory = memory;
        this.mapped = mapped;
        this.length = file.length();
        this.maxPayload = file.maxBlockPayload();
        this.windowBytes = windowBytes;
        this.blockBuffer = NativeMemory.allocate(memory, Math.max(maxPayload, HEADER));
        this.window = new WindowCursor(memory, windowBytes, file.space().counters());
    }

    /**
     * Advances to the next block and verifies it; false at the end of the file (the window is then unmapped).
     * {@link #blockAddress()} and {@link #blockLength()} are valid until the next call.
     */
    public boolean nextBlock() throws IOException {
        if (closed) {
            throw new IllegalStateException("spill reader for " + file.path() + " is closed");
        }
        file.space().checkCancelled();
        if (position >= length) {
            window.release();
            return false;
        }
        long blockStart = position;
        if (length - blockStart < HEADER) {
            throw new SpillCorruptionException(file.path(), blockStart, "a block header is cut off at the end");
        }
        long header = contiguous(blockStart, HEADER);
        int payload = NativeMemory.getInt(header);
        int expectedCrc = NativeMemory.getInt(header + 4);
        if (payload < 0 || payload > maxPayload || payload > length - blockStart - HEADER) {
            throw new SpillCorruptionException(file.path(), blockStart, "impossible block length " + payload
                    + " (largest block written: " + maxPayload + ", bytes left: " + (length - blockStart - HEADER)
                    + ")");
        }
        long address = contiguous(blockStart + HEADER, payload);
        int actualCrc = checksum.of(address, payload);
        if (actualCrc != expectedCrc) {
            throw new SpillCorruptionException(file.path(), blockStart, String.format(
                    "CRC32C mismatch over %d payload bytes (stored %08x, computed %08x)", payload, expectedCrc,
                    actualCrc));
        }
        position = blockStart + HEADER + payload;
        blockAddress = address;
        blockLength = payload;
        file.space().counters().blockRead(HEADER + (long) payload);
        return true;
    }

    /** Address of the current block's payload (in the mapped window or the block buffer). */
    public long blockAddress() {
        return blockAddress;
    }

    public int blockLength() {
        return blockLength;
    }

    /** Offset in the file of the next block. */
    public long position() {
        return position;
    }

    public SpillFile file() {
        return file;
    }

    /**
     * Address of {@code count} contiguous file bytes from {@code at}: inside the mapped chunk if they fit in one,
     * else assembled in the block buffer.
     */
    private long contiguous(long at, int count) throws IOException {
        if (count == 0) {
            return blockBuffer.address();
        }
        long chunkStart = at - at % windowBytes;
        if (at + count <= chunkStart + windowBytes) {
            return window.map(mapped, chunkStart, length - chunkStart) + (at - chunkStart);
        }
        long target = blockBuffer.address();
        long remaining = count;
        while (remaining > 0) {
            long start = at - at % windowBytes;
            long n = Math.min(remaining, start + windowBytes - at);
            NativeMemory.copy(window.map(mapped, start, length - start) + (at - start), target, n);
            at += n;
            target += n;
            remaining -= n;
        }
        return blockBuffer.address();
    }

    /** Unmaps, frees the block buffer and the reservation, and deletes the file; idempotent. */
    @Override
    public void close() throws IOException {
        end(false);
    }

    /**
     * Unmaps and frees as {@link #close} does, but keeps the file, sealed again: another reader may read it from the
     * start (a pass that reads spilled rows more than once, or decides against taking them); idempotent, and a
     * later {@link #close} does nothing.
     */
    public void release() throws IOException {
        end(true);
    }

    private void end(boolean keepFile) throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            window.release();
            memory.close();
            if (mapped != null) {
                mapped.releaseLast();
            }
        } finally {
            if (keepFile) {
                file.readerReleased();
            } else {
                file.readerClosed();
            }
        }
    }
}
