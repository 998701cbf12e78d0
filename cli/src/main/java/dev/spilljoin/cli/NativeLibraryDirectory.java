package dev.spilljoin.cli;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A private directory a native library is extracted into and loaded from ({@link SnappyLibrary}), marked and locked
 * for as long as it exists, so that one a killed process left behind can be told from a live one and swept.
 *
 * <p>Life: {@link #create} makes {@code <base>/<prefix><random>} (mode 0700), creates the lock file
 * {@value #LOCK_FILE} in it exclusively (never through a link), locks it ({@link FileChannel#lock()}, a POSIX record
 * lock the kernel drops when the process dies) and only then writes {@link #MAGIC}; {@link #close} deletes the
 * directory's files, the lock file last, and the directory while still holding the lock, then lets go of it.
 *
 * <p>{@link #sweep} deletes an entry {@code <base>/<prefix>*} only when all of these hold, in this order: it is a
 * directory, not a link, owned by this process's user and writable by no one else; its lock file is a regular file
 * carrying the magic; and its lock is free (held by no process, this JVM included). The lock is held while the
 * directory is deleted. Anything else is kept: a live load's directory, another user's, a look-alike, and a
 * directory whose lock file was not yet written when its process died (that gap is microseconds, the load it
 * guards milliseconds). A failure on one entry keeps it; the sweep never fails the run.
 */
final class NativeLibraryDirectory implements AutoCloseable {
    static final String LOCK_FILE = "spilljoin.lock";
    /** The lock file's first line: what makes a directory spilljoin's. */
    static final String MAGIC = "spilljoin native library directory, locked while in use\n";
    private static final byte[] MAGIC_BYTES = MAGIC.getBytes(StandardCharsets.US_ASCII);

    private final Path directory;
    private final FileChannel lock;

    private NativeLibraryDirectory(Path directory, FileChannel lock) {
        this.directory = directory;
        this.lock = lock;
    }

    /** Makes, marks and locks a new private directory named {@code prefix} and a random suffix in {@code base}. */
    static NativeLibraryDirectory create(Path base, String prefix) throws IOException {
        Path directory = Files.createTempDirectory(base, prefix);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            channel.lock(); // waits while a sweep that found no magic yet holds it for a moment
            channel.write(ByteBuffer.wrap((MAGIC + "pid " + ProcessHandle.current().pid() + "\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            return new NativeLibraryDirectory(directory, channel);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            deleteTree(directory);
            throw e;
        }
    }

    Path path() {
        return directory;
    }

    /** Deletes the directory and everything in it, then lets go of its lock. */
    @Override
    public void close() throws IOException {
        try {
            deleteTree(directory);
        } finally {
            lock.close();
        }
    }

    /** Sweeps {@code base} of the {@code prefix} directories killed processes left; what it removed and kept. */
    static LeftoverOutputSweep.Result sweep(Path base, String prefix) {
        long uid = new UnixSystem().getUid();
        return LeftoverOutputSweep.sweep(base, entry -> entry.getFileName().toString().startsWith(prefix),
                entry -> removeIfLeftover(entry, uid));
    }

    private static boolean removeIfLeftover(Path entry, long uid) {
        try {
            PosixFileAttributes attributes = Files.readAttributes(entry, PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            Object owner = Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isDirectory() || !(owner instanceof Integer id) || id != uid
                    || attributes.permissions().contains(PosixFilePermission.GROUP_WRITE)
                    || attributes.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
                return false;
            }
            Path lockFile = entry.resolve(LOCK_FILE);
            if (!Files.isRegularFile(lockFile, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            // read and write: an exclusive lock needs it, and a FIFO put there meanwhile then does not block
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
                 FileLock held = channel.tryLock()) {
                if (held == null || !hasMagic(channel)) {
                    return false;
                }
                deleteTree(entry);
                return true;
            }
        } catch (IOException | OverlappingFileLockException | UnsupportedOperationException unproven) {
            return false;
        }
    }

    private static boolean hasMagic(FileChannel channel) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(MAGIC_BYTES.length);
        while (head.hasRemaining() && channel.read(head, head.position()) > 0) {
            // read up to the magic's length
        }
        return !head.hasRemaining() && Arrays.equals(head.array(), MAGIC_BYTES);
    }

    /** Deletes {@code directory} and what is in it (links themselves, never what they point to), the lock last. */
    private static void deleteTree(Path directory) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(directory)) {
            paths = walk.sorted(Comparator.comparing((Path p) -> p.endsWith(LOCK_FILE))
                    .thenComparing(Comparator.reverseOrder())).toList();
        } catch (NoSuchFileException gone) {
            return;
        }
        for (Path path : paths) {
            if (!path.equals(directory)) {
                Files.deleteIfExists(path);
            }
        }
        Files.deleteIfExists(directory);
    }
}
