package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.posix.OpenFlag;
import net.openhft.posix.PosixAPI;
import net.openhft.posix.PosixRuntimeException;

/**
 * One append-only partition file of a {@link SpillSpace}: written once by one {@link PartitionWriter}, read back
 * once by one {@link PartitionReader}, then deleted.
 *
 * <p>Format: a sequence of blocks, each {@code [payload length:int][crc32c of payload:int][payload]} (native byte
 * order; the file never leaves the machine). The file is a Chronicle {@link MappedFile} cut into chunks of the
 * space's window size; writing copies whole blocks into the writer's current mapped chunk, which stays mapped
 * until the file grows past it.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Disk space under a chunk is reserved with {@code fallocate} before the chunk is mapped
 *       (in whole chunks, while writing), so a full disk is an {@link IOException}, not a
 *       SIGBUS. While writing, the file is longer on disk than its logical {@link #length()}, which this class keeps
 *       and which bounds every read; sealing trims the file to it.</li>
 *   <li>Life cycle: NEW → WRITING → SEALED → READING → DELETED; a second writer or a second read is refused, and
 *       only a sealed (finished) file can be read.</li>
 * </ul>
 */
public final class SpillFile {
    private enum State { NEW, WRITING, SEALED, READING, DELETED }

    static final int BLOCK_HEADER_BYTES = 8;

    private final SpillSpace space;
    private final Path path;
    private State state = State.NEW;
    private MappedFile mapped;
    private int fd = -1;
    private long allocatedBytes;
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

    /**
     * Opens the one writer of this file. On its first record it reserves, in a child of {@code reservation}, a
     * write-combining buffer of {@code bufferBytes} and one mapped window ({@link PartitionWriter#memoryBytes}).
     */
    public synchronized PartitionWriter openWriter(MemoryReservation reservation, int bufferBytes) {
        if (state != State.NEW) {
            throw new IllegalStateException("spill file " + path + " already has a writer (state " + state + ")");
        }
        PartitionWriter opened = new PartitionWriter(this, reservation.newChild("writer " + path.getFileName()),
                bufferBytes);
        state = State.WRITING;
        writer = opened;
        return opened;
    }

    /**
     * Opens the one reader of this finished file; it holds one mapped window plus a buffer for the largest block
     * ({@link #readerBytes()}) in a child of {@code reservation}. Closing the reader deletes the file.
     *
     * @throws IllegalStateException if the file is not finished or was already read
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
                    + (state == State.READING || state == State.DELETED ? ": each spill file is read once"
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
     * Appends {@code count} bytes at {@code source} to the end of the file: reserves disk under each chunk first,
     * then maps the chunk through the writer's {@code cursor} (which keeps it mapped for the next block) and
     * copies.
     */
    void append(long source, long count, WindowCursor cursor) throws IOException {
        if (mapped == null) {
            openForWriting();
        }
        long window = space.windowBytes();
        long position = length;
        long remaining = count;
        while (remaining > 0) {
            long chunkStart = position - position % window;
            long chunkEnd = chunkStart + window;
            reserveDisk(chunkEnd);
            long n = Math.min(remaining, chunkEnd - position);
            NativeMemory.copy(source, cursor.map(mapped, chunkStart, window) + (position - chunkStart), n);
            source += n;
            position += n;
            remaining -= n;
        }
        length = position;
    }

    /**
     * Creates the file exclusively (never through a link planted in its place), private to its owner (0600, set
     * explicitly whatever the umask), then opens it for mapping and for fallocate.
     */
    private void openForWriting() throws IOException {
        Files.createFile(path, PosixFilePermissions.asFileAttribute(SpillSpace.PRIVATE_FILE));
        Files.setPosixFilePermissions(path, SpillSpace.PRIVATE_FILE);
        mapped = MappedFile.of(path.toFile(), space.windowBytes(), 0, false);
        mapped.syncMode(SyncMode.NONE);
        try {
            fd = PosixAPI.posix().open(path.toString(), OpenFlag.O_RDWR, 0);
        } catch (PosixRuntimeException e) {
            throw new IOException("cannot open " + path + " for fallocate: spill files need the native POSIX API"
                    + " (Linux, with JNR available): " + e.getMessage(), e);
        }
        if (fd < 0) {
            throw new IOException("cannot open " + path + " for fallocate: " + PosixAPI.posix().lastErrorStr());
        }
    }

    /** Reserves disk blocks for the file up to {@code end} (a chunk boundary) before anything there is mapped. */
    private void reserveDisk(long end) throws IOException {
        if (end <= allocatedBytes) {
            return;
        }
        long needed = end - allocatedBytes;
        int rc = PosixAPI.posix().fallocate(fd, 0, allocatedBytes, needed);
        if (rc != 0) {
            long free = space.usableSpace();
            if (free < needed) {
                throw space.diskFull(needed, free, null);
            }
            throw new IOException("could not reserve " + ByteSize.format(needed) + " for " + path
                    + " (fallocate returned " + rc + ") although " + ByteSize.format(free)
                    + " are free: the file system may not support fallocate; use a local ext4/xfs spill directory");
        }
        allocatedBytes = end;
    }

    /** Records one written block of {@code payload} bytes (its header included in the on-disk count). */
    void blockWritten(int payload) {
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
        trimReservedTail();
        closeWritingHandles();
        state = State.SEALED;
    }

    /** Gives back the disk reserved past the logical length (up to a window per file); nothing is mapped now. */
    private void trimReservedTail() throws IOException {
        if (fd >= 0 && allocatedBytes > length) {
            if (PosixAPI.posix().ftruncate(fd, length) != 0) {
                throw new IOException("could not trim " + path + " to " + length + " bytes: "
                        + PosixAPI.posix().lastErrorStr());
            }
            allocatedBytes = length;
        }
    }

    private void closeWritingHandles() throws IOException {
        if (mapped != null) {
            mapped.releaseLast();
            mapped = null;
        }
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
    public synchronized void delete() throws IOException {
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
