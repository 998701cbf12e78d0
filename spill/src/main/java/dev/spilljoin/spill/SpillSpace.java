package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;

/**
 * The private spill directory of one join, and the owner of every {@link SpillFile} in it.
 *
 * <p>Layout: {@code <root>/spilljoin-<pid>-<random>/} holding {@code owner.pid} (the owner's process id, written
 * before any spill file exists) and one file per partition and side. Creating a space first sweeps the root: every
 * sibling {@code spilljoin-*} directory whose owner process is dead is deleted (a crashed run's leftovers); live
 * owners' directories are left alone.
 *
 * <p>Invariants:
 * <ul>
 *   <li>{@link #close()} is the single cleanup path and is idempotent: it closes every file's writer and reader
 *       (unmapping synchronously, freeing their memory), deletes every file, the lock file and the directory. The
 *       join calls it on success, failure and cancellation alike.</li>
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
    static final String LOCK_FILE = "owner.pid";
    private static final int PAGE = 4096;

    private final Path directory;
    private final int windowBytes;
    private final SpillCounters counters = new SpillCounters();
    /** The files not deleted yet: a deleted file leaves the set, so that a long join's files do not pile up. */
    private final Set<SpillFile> files = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelled;
    private long blocksUntilInjectedFailure = -1;
    private int nextFileId;
    private boolean closed;

    private SpillSpace(Path directory, int windowBytes) {
        this.directory = directory;
        this.windowBytes = windowBytes;
    }

    /** A space under {@code java.io.tmpdir} with {@link #DEFAULT_WINDOW_BYTES} windows. */
    public static SpillSpace create() throws IOException {
        return create(Paths.get(System.getProperty("java.io.tmpdir")), DEFAULT_WINDOW_BYTES);
    }

    /**
     * Sweeps dead owners' directories under {@code root}, then creates this join's private directory there.
     *
     * @param windowBytes size of each mapped window, a multiple of 4096 (e.g. 64 KiB)
     * @throws IOException if the root is unusable or has not even one window of space free
     */
    public static SpillSpace create(Path root, int windowBytes) throws IOException {
        if (windowBytes < PAGE || windowBytes % PAGE != 0) {
            throw new IllegalArgumentException("spill window size must be a positive multiple of " + PAGE
                    + " bytes (the page size), got " + windowBytes + ": use e.g. 64kB");
        }
        Files.createDirectories(root);
        sweepStale(root);
        long pid = ProcessHandle.current().pid();
        Path directory = null;
        for (int attempt = 0; directory == null; attempt++) {
            Path candidate = root.resolve(DIRECTORY_PREFIX + pid + "-"
                    + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16));
            try {
                directory = Files.createDirectory(candidate);
            } catch (FileAlreadyExistsException e) {
                if (attempt > 8) {
                    throw e;
                }
            }
        }
        SpillSpace space = new SpillSpace(directory, windowBytes);
        try {
            Files.write(directory.resolve(LOCK_FILE), Long.toString(pid).getBytes(StandardCharsets.US_ASCII));
            space.checkFreeSpace(windowBytes);
        } catch (IOException | RuntimeException e) {
            space.close();
            throw e;
        }
        return space;
    }

    /**
     * Deletes every {@code spilljoin-*} directory under {@code root} whose owner process (from its lock file, else
     * from its name) is no longer alive; leaves live owners' directories and anything it cannot attribute.
     *
     * @return the number of directories deleted
     */
    static int sweepStale(Path root) throws IOException {
        int swept = 0;
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(root, DIRECTORY_PREFIX + "*")) {
            for (Path sibling : siblings) {
                long owner = ownerPid(sibling);
                if (owner > 0 && Files.isDirectory(sibling) && ProcessHandle.of(owner).isEmpty()) {
                    deleteTree(sibling);
                    swept++;
                }
            }
        }
        return swept;
    }

    /** The owner pid of a spill directory, or -1 if neither its lock file nor its name says. */
    private static long ownerPid(Path directory) {
        try {
            return Long.parseLong(Files.readString(directory.resolve(LOCK_FILE), StandardCharsets.US_ASCII).trim());
        } catch (IOException | NumberFormatException e) {
            String name = directory.getFileName().toString().substring(DIRECTORY_PREFIX.length());
            int dash = name.indexOf('-');
            try {
                return Long.parseLong(dash < 0 ? name : name.substring(0, dash));
            } catch (NumberFormatException notAPid) {
                return -1;
            }
        }
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (NoSuchFileException alreadyGone) {
            // another process swept it first
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
     * A writer over {@code partitions} new files ({@code label-p0}, {@code label-p1}, ...), whose buffers of
     * {@code bufferBytes} are reserved from {@code reservation} on each partition's first record.
     * See {@link PartitionedSpillWriter#memoryBytes} for its footprint.
     */
    public PartitionedSpillWriter newPartitionedWriter(String label, int partitions, MemoryReservation reservation,
            int bufferBytes) {
        return new PartitionedSpillWriter(this, label, partitions, reservation, bufferBytes);
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
     * directory. Idempotent; call it on success, failure and cancellation alike. Throws the first deletion failure
     * after trying everything.
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
        }
        if (failure != null) {
            throw failure;
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
