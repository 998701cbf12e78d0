package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.posix.OpenFlag;
import net.openhft.posix.PosixAPI;
import net.openhft.posix.PosixRuntimeException;

/**
 * One append-only partition file of a {@link SpillSpace}: written once by one {@link PartitionWriter}, read back
 * by one {@link PartitionReader} at a time (usually once), then deleted.
 *
 * <p>Format: a sequence of blocks, each {@code [payload length:int][crc32c of payload:int][payload]} (native byte
 * order; the file never leaves the machine). The writer's whole blocks go to the file with {@code write(2)}, in
 * order; the reader maps it back as a Chronicle {@link MappedFile} cut into chunks of its window size.
 *
 * <p>Why writes are not mapped: a mapped write needs its disk blocks allocated first ({@code fallocate}; a write
 * through a mapping the disk cannot back is a SIGBUS), and every allocated block must be freed again when the file
 * is trimmed or deleted. Freeing costs milliseconds per call on a disk mounted with {@code discard} (each free is
 * a trim), more than writing and reading a small file; at the smallest budgets a join makes tens of thousands of
 * small files, and this cost, not the bytes, set its time. Written with {@code write(2)}, a file's blocks are
 * allocated only when the page cache writes it back (delayed allocation), so a spill file read and deleted before
 * then never allocates or frees a block, and a full disk is the write's {@code ENOSPC}.
 *
 * <p>Invariants:
 * <ul>
 *   <li>A full disk is an {@link IOException} naming the directory, the bytes needed and the bytes free, never a
 *       SIGBUS: nothing is mapped while writing, and a mapped read never passes the logical {@link #length()}
 *       (the bytes of whole blocks written), which is also the file's size.</li>
 *   <li>Life cycle: NEW → WRITING → SEALED → READING → DELETED, or READING → SEALED when a reader is released
 *       instead of closed; a second writer or a second reader at once is refused, and only a sealed (finished)
 *       file can be read.</li>
 * </ul>
 */
public final class SpillFile {
    private enum State { NEW, WRITING, SEALED, READING, DELETED }

    static final int BLOCK_HEADER_BYTES = 8;
    /** Linux's errno values of an interrupted call, a full disk and an exhausted quota. */
    private static final int EINTR = 4;
    private static final int ENOSPC = 28;
    private static final int EDQUOT = 122;

    private final SpillSpace space;
    private final Path path;
    private State state = State.NEW;
    private int fd = -1;
    private long length;
    private long rows;
    private long blocks;
    private int maxPayload;
    private PartitionWriter writer;
    private PartitionReader reader;

    SpillFile(SpillSpace space, Path path) {
        this.space = space;
        this.path = path;
    }

    /** Opens the one writer of this file, with one buffer: see {@link #openWriter(MemoryReservation, int, int)}. */
    public PartitionWriter openWriter(MemoryReservation reservation, int bufferBytes) {
        return openWriter(reservation, bufferBytes, 1);
    }

    /**
     * Opens the one writer of this file. On its first record it reserves, in a child of {@code reservation}, its
     * share: {@code buffers} write-combining buffers of {@code bufferBytes}, its own and room for side writers'
     * ({@link PartitionWriter#memoryBytes}).
     */
    public synchronized PartitionWriter openWriter(MemoryReservation reservation, int bufferBytes, int buffers) {
        if (state != State.NEW) {
            throw new IllegalStateException("spill file " + path + " already has a writer (state " + state + ")");
        }
        PartitionWriter opened = new PartitionWriter(this, reservation.newChild("writer " + path.getFileName()),
                bufferBytes, buffers);
        state = State.WRITING;
        writer = opened;
        return opened;
    }

    /**
     * Opens the one reader of this finished file; it holds one mapped window plus a buffer for the largest block
     * ({@link #readerBytes()}) in a child of {@code reservation}. Closing the reader deletes the file; releasing it
     * ({@link PartitionReader#release}) keeps it sealed for the next.
     *
     * @throws IllegalStateException if the file is not finished, is being read, or was read and closed
     * @throws MemoryExhaustedException if the reservation refuses {@link #readerBytes()}
     */
    public PartitionReader openReader(MemoryReservation reservation) throws IOException {
        return openReader(reservation, space.windowBytes());
    }

    /**
     * As {@link #openReader(MemoryReservation)}, reading through windows of {@code windowBytes} (a positive multiple
     * of 4096) instead of the space's: a reader may use larger windows than the writers had (fewer mappings) when
     * the caller has the memory ({@link #readerBytes(int)}).
     */
    public synchronized PartitionReader openReader(MemoryReservation reservation, int windowBytes) throws IOException {
        if (windowBytes <= 0 || windowBytes % 4096 != 0) {
            throw new IllegalArgumentException("a reader's window must be a positive multiple of 4096 bytes, got "
                    + windowBytes);
        }
        if (state != State.SEALED) {
            throw new IllegalStateException("spill file " + path + " cannot be read in state " + state
                    + (state == State.READING || state == State.DELETED
                    ? ": a spill file is read by one reader at a time, and not after it was closed"
                    : ": finish its writer first"));
        }
        long needed = readerBytes(windowBytes);
        MemoryReservation memory = reservation.newChild("reader " + path.getFileName());
        if (!memory.tryGrow(needed)) {
            memory.close();
            throw new MemoryExhaustedException("spill reader for " + path + " needs " + ByteSize.format(needed)
                    + " (a window plus its largest block) but '" + reservation.name() + "' has only "
                    + ByteSize.format(reservation.headroom()) + " left: free memory before reading it back");
        }
        state = State.READING;
        try {
            reader = new PartitionReader(this, memory, length == 0 ? null
                    : MappedFile.of(path.toFile(), windowBytes, 0, true), windowBytes);
        } catch (IOException | RuntimeException e) {
            memory.close();
            throw e;
        }
        return reader;
    }

    /** Memory a reader of this file reserves: one mapped window plus a buffer as large as its largest block. */
    public long readerBytes() {
        return readerBytes(space.windowBytes());
    }

    /** Memory a reader with windows of {@code windowBytes} reserves. */
    public synchronized long readerBytes(int windowBytes) {
        return windowBytes + Math.max(maxPayload, BLOCK_HEADER_BYTES);
    }

    /**
     * Appends one block, its {@link #BLOCK_HEADER_BYTES}-byte header at {@code header} and its {@code length} bytes of
     * payload at {@code payload} (right after the header when {@code contiguous}: one write), and counts it; under
     * this file's lock, so that the blocks of the file's writer and of its side writers never interleave.
     */
    synchronized void appendBlock(long header, long payload, int length, boolean contiguous) throws IOException {
        if (contiguous) {
            append(header, BLOCK_HEADER_BYTES + (long) length);
        } else {
            append(header, BLOCK_HEADER_BYTES);
            append(payload, length);
        }
        blockWritten(length);
    }

    /**
     * Appends {@code count} bytes at {@code source} to the end of the file with {@code write(2)}, creating the file
     * at the first call; {@code ENOSPC} (or a quota) is the disk-full {@link IOException}.
     */
    private void append(long source, long count) throws IOException {
        if (fd < 0) {
            openForWriting();
        }
        while (count > 0) {
            long written = PosixAPI.posix().write(fd, source, count);
            if (written < 0 && PosixAPI.posix().lastError() == EINTR) {
                continue;
            }
            if (written <= 0) {
                throw writeFailed(count);
            }
            source += written;
            count -= written;
            length += written;
        }
    }

    /**
     * Creates the file exclusively (never through a link planted in its place), private to its owner (0600, set
     * explicitly whatever the umask), then opens it for writing.
     */
    private void openForWriting() throws IOException {
        Files.createFile(path, PosixFilePermissions.asFileAttribute(SpillSpace.PRIVATE_FILE));
        Files.setPosixFilePermissions(path, SpillSpace.PRIVATE_FILE);
        try {
            fd = PosixAPI.posix().open(path.toString(), OpenFlag.O_RDWR, 0);
        } catch (PosixRuntimeException e) {
            throw new IOException("cannot open " + path + " for writing: spill files need the native POSIX API"
                    + " (Linux, with JNR available): " + e.getMessage(), e);
        }
        if (fd < 0) {
            throw new IOException("cannot open " + path + " for writing: " + PosixAPI.posix().lastErrorStr());
        }
    }

    private IOException writeFailed(long needed) throws IOException {
        int errno = PosixAPI.posix().lastError();
        String reason = PosixAPI.posix().lastErrorStr();
        long free = space.usableSpace();
        if (errno == ENOSPC || errno == EDQUOT || free < needed) {
            return space.diskFull(needed, free, null);
        }
        return new IOException("writing " + ByteSize.format(needed) + " to " + path + " failed (" + reason
                + ") although " + ByteSize.format(free) + " are free");
    }

    /** Records one written block of {@code payload} bytes (its header included in the on-disk count). */
    private void blockWritten(int payload) {
        blocks++;
        maxPayload = Math.max(maxPayload, payload);
        space.counters().blockWritten(BLOCK_HEADER_BYTES + (long) payload);
    }

    /** Ends writing: the file becomes readable, and its writing handles are closed. */
    synchronized void seal(long rowCount) throws IOException {
        if (state != State.WRITING) {
            throw new IllegalStateException("spill file " + path + " cannot be finished in state " + state);
        }
        rows = rowCount;
        closeWritingHandles();
        state = State.SEALED;
    }

    private void closeWritingHandles() throws IOException {
        if (fd >= 0) {
            int rc = PosixAPI.posix().close(fd);
            fd = -1;
            if (rc != 0) {
                throw new IOException("closing " + path + " failed: " + PosixAPI.posix().lastErrorStr());
            }
        }
    }

    /**
     * Closes the writer and reader (unmapping synchronously) and deletes the file; idempotent. A caller may use it
     * to drop a file it will not read (e.g. a partition whose other side is empty).
     */
    public void delete() throws IOException {
        try {
            deleteOnce();
        } finally {
            space.forget(this);
        }
    }

    private synchronized void deleteOnce() throws IOException {
        if (state == State.DELETED) {
            return;
        }
        state = State.DELETED;
        try {
            if (writer != null) {
                writer.close();
            }
            if (reader != null) {
                reader.close();
            }
            closeWritingHandles();
        } finally {
            Files.deleteIfExists(path);
        }
    }

    /** Called by the reader when it is closed: reading is over, so the file goes. */
    void readerClosed() throws IOException {
        delete();
    }

    /** Called by the reader when it is released ({@link PartitionReader#release}): the file can be read again. */
    synchronized void readerReleased() {
        if (state == State.READING) {
            state = State.SEALED;
            reader = null;
        }
    }

    SpillSpace space() {
        return space;
    }

    public Path path() {
        return path;
    }

    /** Logical length in bytes (block headers included); the file on disk may be longer by reserved space. */
    public synchronized long length() {
        return length;
    }

    public synchronized long rowCount() {
        return rows;
    }

    public synchronized long blockCount() {
        return blocks;
    }

    /** The largest block payload in the file (what a reader must hold contiguous). */
    public synchronized int maxBlockPayload() {
        return maxPayload;
    }

    public synchronized boolean isSealed() {
        return state == State.SEALED;
    }

    public synchronized boolean isDeleted() {
        return state == State.DELETED;
    }

    @Override
    public String toString() {
        return "SpillFile[" + path + ", " + state + ", " + length + " bytes, " + rows + " rows]";
    }
}
