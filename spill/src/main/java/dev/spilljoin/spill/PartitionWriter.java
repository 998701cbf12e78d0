package dev.spilljoin.spill;

import java.io.IOException;

/**
 * Appends records (opaque byte ranges, e.g. serialized rows that carry their hash) to one {@link SpillFile}
 * through a write-combining buffer, so the file is written in whole blocks, never field by field.
 *
 * <p>Algorithm: the buffer is an off-heap page laid out exactly as a block on disk,
 * {@code [payload length:int][crc32c:int][payload]}; records are copied in back to back (one block copy each, or
 * written in place via {@link #reserveRecord}). When the next record does not fit, the header is filled in and the
 * whole buffer is appended to the file as one block. A record larger than the buffer's payload capacity goes as a
 * block of its own, straight from the caller's memory. The buffer is reserved and allocated on the first record
 * and can be given back between records with {@link #releaseBuffer()}.
 *
 * <p>Invariants: a record is never split across blocks; every block's CRC32C covers its payload; the buffer's
 * bytes are reserved before they exist; every block boundary checks cancellation and the space's fault injection.
 * After a failed write the writer refuses further records (the file is incomplete and is deleted with the space).
 *
 * <p>Memory: {@link #memoryBytes(int, int)} = {@code bufferBytes + windowBytes}, reserved with the first record
 * and given back by {@link #releaseBuffer()}, {@link #finish()} and {@link #close()}; nothing while no buffer is
 * held. Blocks go to the file with {@code write(2)} ({@link SpillFile}), so the window's share is not mapped while
 * writing; it stays in a writer's share because the join's sizing plans one share per spilled partition, and that
 * share is also what reading the file back takes (a window and a block).
 */
public final class PartitionWriter implements AutoCloseable {
    /** Smallest accepted buffer: a header and a little payload. */
    public static final int MIN_BUFFER_BYTES = 64;
    private static final int HEADER = SpillFile.BLOCK_HEADER_BYTES;

    private final SpillFile file;
    private final MemoryReservation memory;
    private final int bufferBytes;
    private final BlockChecksum checksum = new BlockChecksum();
    private NativeMemory.NativePage buffer;
    private long base;
    private int fill;
    private long rows;
    private boolean failed;
    private boolean finished;
    private boolean closed;

    PartitionWriter(SpillFile file, MemoryReservation memory, int bufferBytes) {
        if (bufferBytes < MIN_BUFFER_BYTES) {
            memory.close();
            throw new IllegalArgumentException("spill buffer of " + bufferBytes + " bytes is too small: use at least "
                    + MIN_BUFFER_BYTES + " bytes (16kB to 64kB is typical)");
        }
        this.file = file;
        this.memory = memory;
        this.bufferBytes = bufferBytes;
    }

    /** Bytes a writer reserves while it holds its buffer: the buffer and a window's share (see the class comment). */
    public static long memoryBytes(int bufferBytes, int windowBytes) {
        return (long) bufferBytes + windowBytes;
    }

    /** Copies the record of {@code length} bytes at {@code source} into the file (buffered). */
    public void append(long source, int length) throws IOException {
        if (length > bufferBytes - HEADER) {
            writeOwnBlock(source, length);
        } else {
            NativeMemory.copy(source, slot(length), length);
        }
    }

    /**
     * Makes room for a record of {@code length} bytes in the buffer and returns its address, valid until the next
     * call on this writer; the caller writes the record there. The record counts as written at once.
     *
     * @throws IllegalArgumentException if the record is larger than the buffer's payload capacity (use
     *         {@link #append} for such records)
     */
    public long reserveRecord(int length) throws IOException {
        if (length > bufferBytes - HEADER) {
            throw new IllegalArgumentException("a record of " + length + " bytes does not fit a spill buffer of "
                    + bufferBytes + " bytes: write it with append(), which sends it as a block of its own");
        }
        return slot(length);
    }

    private long slot(int length) throws IOException {
        if (length < 0) {
            throw new IllegalArgumentException("negative record length " + length);
        }
        checkWritable();
        if (buffer == null) {
            allocateBuffer();
        } else if (fill + length > bufferBytes) {
            flushBlock();
        }
        long at = base + fill;
        fill += length;
        rows++;
        return at;
    }

    private void allocateBuffer() {
        long needed = memoryBytes(bufferBytes, file.space().windowBytes());
        long missing = needed - memory.available(); // bytes handed over with takeFrom count
        if (missing > 0 && !memory.tryGrow(missing)) {
            throw new MemoryExhaustedException("spill writer for " + file.path() + " needs "
                    + ByteSize.format(needed) + " (a " + ByteSize.format(bufferBytes) + " buffer and a "
                    + ByteSize.format(file.space().windowBytes()) + " window's share) but '" + memory.name()
                    + "' has only " + ByteSize.format(memory.headroom())
                    + " left: release other partitions' buffers, spill first, or use smaller buffers and windows");
        }
        buffer = NativeMemory.allocate(memory, bufferBytes);
        base = buffer.address();
        fill = HEADER;
    }

    /** Sends the buffered records, if any, to the file as one block. */
    private void flushBlock() throws IOException {
        if (buffer == null || fill == HEADER) {
            return;
        }
        int payload = fill - HEADER;
        writeBlock(base, base + HEADER, payload, true);
        fill = HEADER;
    }

    /** A record too large for the buffer: flush what is buffered, then write the record as its own block. */
    private void writeOwnBlock(long source, int length) throws IOException {
        checkWritable();
        if (buffer == null) {
            allocateBuffer();
        } else {
            flushBlock();
        }
        writeBlock(base, source, length, false);
        rows++;
    }

    /**
     * Writes one block: its header goes at {@code header} (the buffer's start), followed on disk by the payload;
     * when {@code contiguous} the payload already follows the header in the buffer and the block is one copy.
     */
    private void writeBlock(long header, long payload, int length, boolean contiguous) throws IOException {
        boolean done = false;
        try {
            file.space().beforeBlockWrite(file);
            NativeMemory.putInt(header, length);
            NativeMemory.putInt(header + 4, checksum.of(payload, length));
            if (contiguous) {
                file.append(header, HEADER + (long) length);
            } else {
                file.append(header, HEADER);
                file.append(payload, length);
            }
            file.blockWritten(length);
            done = true;
        } finally {
            if (!done) {
                failed = true;
            }
        }
    }

    /**
     * Takes {@code bytes} reserved by {@code source} (in the same tree) for this writer's buffer and window, at once
     * ({@link MemoryReservation#transferTo}): its first record then needs no reservation that could be refused.
     */
    public void takeFrom(MemoryReservation source, long bytes) {
        source.transferTo(memory, bytes);
    }

    /**
     * Flushes the buffered records and gives the buffer's and the window's memory back; the next record takes
     * them again.
     */
    public void releaseBuffer() throws IOException {
        checkWritable();
        flushBlock();
        freeBuffer();
    }

    private void freeBuffer() {
        if (buffer != null) {
            buffer.close();
            buffer = null;
            memory.shrink(memoryBytes(bufferBytes, file.space().windowBytes()));
        }
    }

    /** Flushes the last block and seals the file so it can be read; the buffer is given back. */
    public void finish() throws IOException {
        checkWritable();
        flushBlock();
        freeBuffer();
        file.seal(rows);
        finished = true;
    }

    private void checkWritable() {
        if (closed || finished || failed) {
            throw new IllegalStateException("spill writer for " + file.path() + " is "
                    + (failed ? "failed (an earlier write threw)" : closed ? "closed" : "finished"));
        }
    }

    /** Records appended so far (buffered ones included). */
    public long rowCount() {
        return rows;
    }

    /** Bytes in the file so far, as on disk (block headers included, buffered records not). */
    public long bytesWritten() {
        return file.length();
    }

    /** True while the writer holds its buffer's memory. */
    public boolean holdsBuffer() {
        return buffer != null;
    }

    public SpillFile file() {
        return file;
    }

    /**
     * Releases the buffer and the writer's reservation without flushing; idempotent. An unfinished file stays
     * unreadable and is deleted when its space closes.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffer = null;
        memory.close();
    }
}
