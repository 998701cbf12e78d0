package dev.spilljoin.spill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;

/**
 * The private spill directory of one join, and the owner of every {@link SpillFile} in it.
 *
 * <p>Layout: {@code <root>/spilljoin-<pid>-<random>/}, mode 0700, holding the {@link SpillDirectoryLock} file
 * (spilljoin's marker, locked for the space's whole life) and one file per partition and side, each mode 0600.
 * The directory gets a fresh random name, created exclusively; a name already taken (by anything) is never
 * entered, another is drawn. Creating a space first sweeps the root ({@link LeftoverSweep}): only directories
 * proven to be leftovers of ended runs are deleted.
 *
 * <p>Invariants:
 * <ul>
 *   <li>{@link #close()} is the single cleanup path and is idempotent: it closes every file's writer and reader
 *       (unmapping synchronously, freeing their memory), deletes every file, the lock file and the directory, and
 *       only then lets go of the lock. The join calls it on success, failure and cancellation alike.
 *       {@link #deleteBeforeExit()} is the other way out, for a process ending on a signal.</li>
 *   <li>Nothing is created through a link: the directory and every file are created exclusively
 *       ({@code O_EXCL}), the lock file also with {@code O_NOFOLLOW}; their modes are set explicitly, whatever
 *       the umask.</li>
 *   <li>A full disk is an {@link IOException} naming the directory, the bytes needed and the bytes free, never a
 *       SIGBUS: files are written with {@code write(2)} and only mapped to be read ({@link SpillFile}).</li>
 *   <li>Every block boundary (writes and reads) checks {@link #cancel()} and the thread's interrupt flag and throws
 *       {@link CancellationException}; the join catches it and closes the space.</li>
 * </ul>
 * {@link #failWritesAfterBlocks} injects a write failure, for tests of the caller's failure cleanup.
 */
public final class SpillSpace implements AutoCloseable {
    /**
     * Default size of a mapped window. Every open reader holds one, and every active writer a share of one (see
     * {@link PartitionWriter}), against the memory budget,
     * so the join picks smaller windows for high fanouts under small budgets; but each window costs one munmap,
     * which dominates with small windows and stops mattering around 1 MiB (docs/PERFORMANCE.md, spill files).
     */
    public static final int DEFAULT_WINDOW_BYTES = 1 << 20;
    static final String DIRECTORY_PREFIX = "spilljoin-";
    static final Set<PosixFilePermission> PRIVATE_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");
    /** Fresh names drawn before giving up: a collision of random 48-bit names means someone plants them. */
    static final int NAME_ATTEMPTS = 16;
    /** Unpredictable, so that no one can plant the names a run will draw. */
    private static final SecureRandom NAMES = new SecureRandom();
    /** Passes over a directory being deleted while its user may still add a file (it stops at its next block). */
    private static final int DELETE_PASSES = 16;
    private static final int PAGE = 4096;

    private final Path directory;
    private final SpillDirectoryLock lock;
    private final int windowBytes;
    private final SpillCounters counters = new SpillCounters();
    /** The files not deleted yet: a deleted file leaves the set, so that a long join's files do not pile up. */
    private final Set<SpillFile> files = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelled;
    private long blocksUntilInjectedFailure = -1;
    private int nextFileId;
    private boolean closed;

    private SpillSpace(Path directory, SpillDirectoryLock lock, int windowBytes) {
        this.directory = directory;
        this.lock = lock;
        this.windowBytes = windowBytes;
    }

    /**
     * Loads the C library binding spill spaces lock and delete with ({@code flock}, {@code open}), which extracts a
     * native stub into the temporary directory. A process that installs a shutdown hook calls this first, so a
     * signal cannot interrupt the extraction (leaving the stub's file behind) and the hook never loads it while
     * the JVM shuts down. Loading is otherwise lazy; calling this twice does nothing more.
     *
     * @throws LinkageError if the platform has no such binding (spilling would fail the same way)
     */
    public static void loadNativeLibrary() {
        NativeFiles.libc();
    }

    /** A space under {@code java.io.tmpdir} with {@link #DEFAULT_WINDOW_BYTES} windows. */
    public static SpillSpace create() throws IOException {
        return create(Paths.get(System.getProperty("java.io.tmpdir")), DEFAULT_WINDOW_BYTES);
    }

    /**
     * Sweeps leftovers under {@code root} ({@link LeftoverSweep}), then creates this join's private directory there.
     *
     * @param windowBytes size of each mapped window, a multiple of 4096 (e.g. 64 KiB)
     * @throws IOException naming the real cause if the root is unusable or has not even one window of space free
     */
    public static SpillSpace create(Path root, int windowBytes) throws IOException {
        return create(root, windowBytes, NAMES::nextLong);
    }

    /** As {@link #create(Path, int)}, drawing directory names from {@code randomNames} (tests plant collisions). */
    static SpillSpace create(Path root, int windowBytes, LongSupplier randomNames) throws IOException {
        ChronicleOs.load(); // before any spill file is mapped through Chronicle: see there
        if (windowBytes < PAGE || windowBytes % PAGE != 0) {
            throw new IllegalArgumentException("spill window size must be a positive multiple of " + PAGE
                    + " bytes (the page size), got " + windowBytes + ": use e.g. 64kB");
        }
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new IOException("cannot use " + root + " as the spill root: " + SpillPaths.cause(e), e);
        }
        LeftoverSweep.sweep(root);
        long pid = ProcessHandle.current().pid();
        Path directory = createPrivateDirectory(root, pid, randomNames);
        SpillDirectoryLock lock;
        try {
            lock = SpillDirectoryLock.create(directory, pid);
        } catch (IOException e) {
            deleteTree(directory);
            throw e;
        }
        SpillSpace space = new SpillSpace(directory, lock, windowBytes);
        try {
            space.checkFreeSpace(windowBytes);
        } catch (IOException | RuntimeException e) {
            space.close();
            throw e;
        }
        return space;
    }

    /**
     * Creates {@code <root>/spilljoin-<pid>-<random>} exclusively and makes it 0700; draws another name while one
     * is taken. A taken name is never entered, whatever it is (a directory, a file, a link).
     */
    private static Path createPrivateDirectory(Path root, long pid, LongSupplier randomNames) throws IOException {
        Path taken = null;
        for (int attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
            Path candidate = root.resolve(DIRECTORY_PREFIX + pid + "-"
                    + Long.toHexString(randomNames.getAsLong() >>> 16));
            try {
                Path directory = Files.createDirectory(candidate, PosixFilePermissions.asFileAttribute(
                        PRIVATE_DIRECTORY));
                Files.setPosixFilePermissions(directory, PRIVATE_DIRECTORY);
                return directory;
            } catch (FileAlreadyExistsException e) {
                taken = candidate;
            } catch (IOException e) {
                throw new IOException("cannot create a private directory in " + root + ": "
                        + SpillPaths.cause(e), e);
            }
        }
        throw new IOException("cannot create a private directory in " + root + ": " + NAME_ATTEMPTS
                + " fresh random names were all taken, the last by " + SpillPaths.describe(taken)
                + " that already exists and is not ours; someone is planting names there: use a spill directory"
                + " only you can write to (--spill-dir)");
    }

    /**
     * Deletes {@code directory} and everything under it, never following a link (a link is deleted, not its
     * target). An entry deleted meanwhile by someone else is not an error.
     */
    static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (NoSuchFileException alreadyGone) {
            // another process swept it first
        } catch (UncheckedIOException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e.getCause();
            }
        }
    }

    /**
     * Throws an {@link IOException} naming the directory, the bytes needed and the bytes free unless the file
     * system has {@code bytesNeeded} usable bytes now. {@link #create} calls it with one window's bytes.
     */
    public void checkFreeSpace(long bytesNeeded) throws IOException {
        long free = Files.getFileStore(directory).getUsableSpace();
        if (free < bytesNeeded) {
            throw diskFull(bytesNeeded, free, null);
        }
    }

    IOException diskFull(long bytesNeeded, long bytesFree, Throwable cause) {
        return new IOException(String.format(Locale.ROOT,
                "not enough disk space to spill in %s: %s (%d bytes) needed, %s (%d bytes) free;"
                        + " free space there or point the spill directory at a larger disk",
                directory, ByteSize.format(bytesNeeded), bytesNeeded, ByteSize.format(bytesFree), bytesFree), cause);
    }

    long usableSpace() throws IOException {
        return Files.getFileStore(directory).getUsableSpace();
    }

    /**
     * A new, empty spill file named after {@code label} (e.g. {@code build-p17}); nothing is on disk until its
     * writer flushes the first block.
     */
    public synchronized SpillFile newFile(String label) {
        checkOpen();
        SpillFile file = new SpillFile(this, directory.resolve(String.format(Locale.ROOT, "%05d-%s.spill",
                nextFileId++, label)));
        files.add(file);
        counters.fileCreated();
        return file;
    }

    /**
     * A writer over {@code partitions} new files ({@code label-p0}, {@code label-p1}, ...), whose shares of
     * {@code buffers} buffers of {@code bufferBytes} (a partition's writer's and its side writers') are reserved from
     * {@code reservation} on each partition's first record. See {@link PartitionedSpillWriter#memoryBytes} for its
     * footprint.
     */
    public PartitionedSpillWriter newPartitionedWriter(String label, int partitions, MemoryReservation reservation,
            int bufferBytes, int buffers) {
        return new PartitionedSpillWriter(this, label, partitions, reservation, bufferBytes, buffers);
    }

    /** Asks every writer and reader of this space to stop at its next block boundary (any thread may call it). */
    public void cancel() {
        cancelled = true;
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Test hook: after {@code blocks} more blocks are written (by any writer of this space), the next block write
     * fails with an {@link IOException}, as a failing disk would. Lets callers test their failure cleanup.
     */
    public synchronized void failWritesAfterBlocks(long blocks) {
        if (blocks < 0) {
            throw new IllegalArgumentException("blocks must be >= 0, got " + blocks);
        }
        blocksUntilInjectedFailure = blocks;
    }

    /** Called before each block is written: cancellation, then fault injection. */
    synchronized void beforeBlockWrite(SpillFile file) throws IOException {
        checkCancelled();
        if (blocksUntilInjectedFailure == 0) {
            throw new IOException("injected write failure in " + file.path() + " (failWritesAfterBlocks)");
        }
        if (blocksUntilInjectedFailure > 0) {
            blocksUntilInjectedFailure--;
        }
    }

    /** Throws {@link CancellationException} if the space was cancelled or the current thread interrupted. */
    void checkCancelled() {
        if (cancelled || Thread.currentThread().isInterrupted()) {
            throw new CancellationException("spill in " + directory + " cancelled"
                    + (cancelled ? "" : " (thread interrupted)"));
        }
    }

    public Path directory() {
        return directory;
    }

    public int windowBytes() {
        return windowBytes;
    }

    public SpillCounters counters() {
        return counters;
    }

    /** Called by a file once it is deleted (any thread; takes no lock, so a file never waits on the space). */
    void forget(SpillFile file) {
        files.remove(file);
    }

    /** Files created and not yet deleted (a file is deleted once read, or when the space closes). */
    public synchronized int liveFiles() {
        int live = 0;
        for (SpillFile file : files) {
            if (!file.isDeleted()) {
                live++;
            }
        }
        return live;
    }

    /**
     * Closes every writer and reader (unmapping synchronously), deletes every file, the lock file and the
     * directory, then lets go of the lock. Idempotent; call it on success, failure and cancellation alike. Throws
     * the first deletion failure after trying everything.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException failure = null;
        for (SpillFile file : files) {
            try {
                file.delete();
            } catch (IOException e) {
                failure = addTo(failure, e);
            }
        }
        files.clear();
        BackgroundResourceReleaser.releasePendingResources();
        try {
            deleteTree(directory);
        } catch (IOException e) {
            failure = addTo(failure, e);
        } finally {
            lock.release();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * For a process about to exit on a signal: cancels the space and deletes its directory at once, from any
     * thread, without waiting for the thread using the space (no monitor is taken, nothing is unmapped). Each file
     * is unlinked while this process holds it open, so no unlink waits for the file system to free the file's
     * blocks (seconds for a large, fragmented file); that happens when the process exits, as for the files still
     * mapped. The descriptors are never closed: after this call the process must exit. A file the user of the space
     * creates meanwhile fails (its directory is gone) or is deleted by a retry.
     */
    public void deleteBeforeExit() {
        cancelled = true;
        for (int pass = 0; pass < DELETE_PASSES && Files.exists(directory, LinkOption.NOFOLLOW_LINKS); pass++) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
                for (Path entry : entries) {
                    unlinkHeldOpen(entry);
                }
            } catch (IOException | DirectoryIteratorException e) {
                // gone or going: the loop looks again
            }
            try {
                Files.deleteIfExists(directory);
            } catch (IOException notYetEmpty) {
                // a file appeared meanwhile: the loop deletes it
            }
        }
    }

    /** Unlinks {@code file} after opening it (never closed), so the unlink only drops the name. */
    private static void unlinkHeldOpen(Path file) {
        NativeFiles.libc().open(file.toString(), NativeFiles.O_RDONLY | NativeFiles.O_NOFOLLOW
                | NativeFiles.O_NONBLOCK | NativeFiles.O_CLOEXEC, 0);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // deleted meanwhile, or not ours to delete: the directory's removal reports what is left
        }
    }

    private static IOException addTo(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("spill space " + directory + " is closed");
        }
    }

    @Override
    public String toString() {
        return "SpillSpace[" + directory + ", " + counters + "]";
    }
}
