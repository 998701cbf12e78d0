package dev.spilljoin.spill;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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
 * <p>Memory: the writer's share, {@link #memoryBytes(int, int)} = {@code bufferBytes × buffers} (its own buffer and
 * room for {@code buffers − 1} side writers' buffers), reserved with the first record and given back by
 * {@link #releaseBuffer()}, {@link #finish()} and {@link #close()}; nothing while no buffer is held. Blocks go to the
 * file with {@code write(2)} ({@link SpillFile}), so writing maps nothing: reading the file back reserves its own
 * window ({@link SpillFile#readerBytes}), once the file is sealed.
 *
 * <p>Side writers: the rest of the share holds the buffers of other writers of the same file
 * ({@link #sideWriter()}), one per further thread that spills to the partition, so that threads encode into buffers
 * of their own and meet only when a whole block goes to the file (each block is appended under the file's lock; the
 * order of blocks in a file is free). A side writer's buffer is moved out of this writer's reserved bytes, and back
 * when the side writer finishes; this writer's {@link #finish()} finishes its side writers first and counts their
 * rows.
 */
public final class PartitionWriter implements AutoCloseable {
    /** Smallest accepted buffer: a header and a little payload. */
    public static final int MIN_BUFFER_BYTES = 64;
    private static final int HEADER = SpillFile.BLOCK_HEADER_BYTES;

    private final SpillFile file;
    private final MemoryReservation memory;
    private final int bufferBytes;
    /** Buffers this writer's share holds: its own and its side writers' (1 for a side writer). */
    private final int buffers;
    /** The writer whose share holds this side writer's buffer; null for a file's own writer. */
    private final PartitionWriter main;
    /** This writer's side writers (a file's own writer only). */
    private final List<PartitionWriter> sides = new ArrayList<>();
    private final BlockChecksum checksum = new BlockChecksum();
    private NativeMemory.NativePage buffer;
    private long base;
    private int fill;
    private long rows;
    /** The exception of the write that failed; every later record gets an IOException naming it. */
    private Exception failure;
    private boolean finished;
    private boolean closed;

    PartitionWriter(SpillFile file, MemoryReservation memory, int bufferBytes, int buffers) {
        if (bufferBytes < MIN_BUFFER_BYTES || buffers < 1) {
            memory.close();
            throw new IllegalArgumentException(buffers < 1
                    ? "a spill writer's share holds at least its own buffer, got " + buffers + " buffers"
                    : "spill buffer of " + bufferBytes + " bytes is too small: use at least " + MIN_BUFFER_BYTES
                            + " bytes (16kB to 64kB is typical)");
        }
        this.file = file;
        this.memory = memory;
        this.bufferBytes = bufferBytes;
        this.buffers = buffers;
        this.main = null;
    }

    private PartitionWriter(PartitionWriter main, MemoryReservation memory) {
        this.file = main.file;
        this.memory = memory;
        this.bufferBytes = main.bufferBytes;
        this.buffers = 1;
        this.main = main;
    }

    /**
     * A new writer of this writer's file whose buffer is taken from this writer's reserved but unused bytes (its
     * share beyond its own buffer), or null when those bytes do not hold a buffer any more. Call it where this
     * writer's own records are appended (one thread at a time with them); the side writer is then used by one other
     * thread at a time, beside this writer and the other side writers. This writer's buffer is allocated first, if
     * it was not yet, so that its reservation is whole before a side takes from it.
     */
    public synchronized PartitionWriter sideWriter() throws IOException {
        checkWritable();
        if (main != null) {
            throw new IllegalStateException("a side writer of " + file.path() + " has no side writers of its own");
        }
        if (buffer == null) {
            allocateBuffer();
        }
        if (memory.available() < bufferBytes) {
            return null;
        }
        MemoryReservation sideMemory = memory.newChild("side writer " + file.path().getFileName());
        memory.transferTo(sideMemory, bufferBytes);
        PartitionWriter side = new PartitionWriter(this, sideMemory);
        sides.add(side);
        return side;
    }

    /**
     * Bytes a writer of {@code buffers} buffers reserves while it holds its buffer: its own buffer and room for
     * {@code buffers − 1} side writers' (see the class comment).
     */
    public static long memoryBytes(int bufferBytes, int buffers) {
        return (long) bufferBytes * buffers;
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
        long needed = heldBytes();
        long missing = needed - memory.available(); // bytes handed over with takeFrom count
        if (missing > 0 && !memory.tryGrow(missing)) {
            throw new MemoryExhaustedException("spill writer for " + file.path() + " needs "
                    + ByteSize.format(needed) + " (" + buffers + " buffer" + (buffers == 1 ? "" : "s") + " of "
                    + ByteSize.format(bufferBytes) + ") but '" + memory.name() + "' has only "
                    + ByteSize.format(memory.headroom())
                    + " left: release other partitions' buffers, spill first, or use smaller buffers");
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
        try {
            file.space().beforeBlockWrite(file);
            NativeMemory.putInt(header, length);
            NativeMemory.putInt(header + 4, checksum.of(payload, length));
            file.appendBlock(header, payload, length, contiguous);
        } catch (IOException | RuntimeException e) {
            failure = e;
            throw e;
        }
    }

    /**
     * Takes {@code bytes} reserved by {@code source} (in the same tree) for this writer's share, at once
     * ({@link MemoryReservation#transferTo}): its first record then needs no reservation that could be refused.
     */
    public void takeFrom(MemoryReservation source, long bytes) {
        source.transferTo(memory, bytes);
    }

    /**
     * Flushes the buffered records and gives the share's memory back; the next record takes it again.
     */
    public synchronized void releaseBuffer() throws IOException {
        checkWritable();
        if (!sides.isEmpty()) {
            throw new IllegalStateException("the writer of " + file.path() + " keeps its buffer while it has side"
                    + " writers (their buffers lie in its reservation)");
        }
        flushBlock();
        freeBuffer();
    }

    private void freeBuffer() {
        if (buffer != null) {
            buffer.close();
            buffer = null;
            memory.shrink(heldBytes());
        }
    }

    /** What this writer reserves while it holds its buffer: its share (a side writer's is its buffer). */
    private long heldBytes() {
        return memoryBytes(bufferBytes, buffers);
    }

    /**
     * Flushes the last block and seals the file so it can be read; the buffer is given back. Its side writers are
     * finished first (each thread that used one must have stopped), their rows counted with this writer's.
     */
    public synchronized void finish() throws IOException {
        if (main != null) {
            throw new IllegalStateException("a side writer of " + file.path() + " finishes with its file's writer");
        }
        checkWritable();
        for (PartitionWriter side : sides) {
            side.finishSide();
            rows += side.rows;
        }
        flushBlock();
        freeBuffer();
        file.seal(rows);
        finished = true;
    }

    /** A side writer's end: its last block flushed, its buffer freed and its bytes moved back to its file's writer. */
    private void finishSide() throws IOException {
        checkWritable();
        flushBlock();
        if (buffer != null) {
            buffer.close();
            buffer = null;
        }
        memory.transferTo(main.memory, memory.reserved());
        memory.close();
        finished = true;
    }

    /**
     * Refuses a writer that is closed or finished (a caller's mistake), or whose write failed: then with an
     * IOException naming that failure, so that whichever thread writes next (another worker, on a shared file) reports
     * the disk's error, not the writer's state.
     */
    private void checkWritable() throws IOException {
        if (failure != null) {
            throw new IOException("spill writer for " + file.path() + " failed earlier: " + failure.getMessage(),
                    failure);
        }
        if (closed || finished) {
            throw new IllegalStateException("spill writer for " + file.path() + " is "
                    + (closed ? "closed" : "finished"));
        }
    }

    /** Whether {@link #finish} sealed the file. */
    public synchronized boolean isFinished() {
        return finished;
    }

    /** Records appended so far (buffered ones included), with its side writers' once they finished. */
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
        for (PartitionWriter side : sides) {
            side.close();
        }
        memory.close();
    }
}
