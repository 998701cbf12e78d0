package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The marker and liveness lock of a spill directory: a file {@value #FILE_NAME} in it, created exclusively (mode
 * 0600, never through a link), locked with {@code flock} for the whole life of the run that owns the directory,
 * and holding {@link #MAGIC}, written only while the lock is held.
 *
 * <p>Why this proves a directory leftover: the kernel drops a {@code flock} when the last descriptor of the open
 * file goes, that is when the owner closes the space or its process dies, in whatever PID namespace; another
 * open file (another process, or another descriptor of this one) cannot take it while the owner holds it. So a
 * lock file that carries the magic and whose lock this process can take belongs to a run that has ended. A lock
 * file without the magic may be one being created (its owner locks before writing): that is not proof.
 */
final class SpillDirectoryLock {
    static final String FILE_NAME = "spilljoin.lock";
    /** The marker's first line: what makes a directory spilljoin's. */
    static final String MAGIC = "spilljoin spill directory, locked by its run\n";
    private static final byte[] MAGIC_BYTES = MAGIC.getBytes(StandardCharsets.US_ASCII);
    private static final int OWNER_READ_WRITE = 0600;

    private final Path file;
    private int fd;

    private SpillDirectoryLock(Path file, int fd) {
        this.file = file;
        this.fd = fd;
    }

    /**
     * Creates the lock file in {@code directory} (which must not have one), locks it and writes the magic and
     * {@code pid} (for people reading it; liveness never comes from it).
     */
    static SpillDirectoryLock create(Path directory, long pid) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        NativeFiles.LibC libc = NativeFiles.libc();
        int fd = libc.open(file.toString(), NativeFiles.O_RDWR | NativeFiles.O_CREAT | NativeFiles.O_EXCL
                | NativeFiles.O_NOFOLLOW | NativeFiles.O_CLOEXEC, OWNER_READ_WRITE);
        if (fd < 0) {
            throw failure("cannot create the lock file " + file, NativeFiles.lastError());
        }
        SpillDirectoryLock lock = new SpillDirectoryLock(file, fd);
        try {
            if (libc.fchmod(fd, OWNER_READ_WRITE) != 0) {
                throw failure("cannot make " + file + " private", NativeFiles.lastError());
            }
            // a sweep may hold it for a moment (it found no magic yet and lets go): wait for it
            if (libc.flock(fd, NativeFiles.LOCK_EX) != 0) {
                throw failure("cannot lock " + file, NativeFiles.lastError());
            }
            byte[] content = (MAGIC + "pid " + pid + "\n").getBytes(StandardCharsets.US_ASCII);
            if (libc.write(fd, content, content.length) != content.length) {
                throw failure("cannot write " + file, NativeFiles.lastError());
            }
        } catch (IOException e) {
            lock.release();
            throw e;
        }
        return lock;
    }

    /**
     * Takes the lock of {@code directory}'s lock file if it carries the magic and no one holds it; null otherwise
     * (no lock file, a link, not spilljoin's, or held by a live run). The caller deletes the directory while holding
     * the returned lock, then releases it.
     */
    static SpillDirectoryLock takeIfLeftover(Path directory) {
        Path file = directory.resolve(FILE_NAME);
        NativeFiles.LibC libc = NativeFiles.libc();
        int fd = libc.open(file.toString(), NativeFiles.O_RDONLY | NativeFiles.O_NOFOLLOW | NativeFiles.O_NONBLOCK
                | NativeFiles.O_CLOEXEC, 0);
        if (fd < 0) {
            return null;
        }
        SpillDirectoryLock lock = new SpillDirectoryLock(file, fd);
        if (libc.flock(fd, NativeFiles.LOCK_EX | NativeFiles.LOCK_NB) != 0 || !lock.hasMagic()) {
            lock.release();
            return null;
        }
        return lock;
    }

    private boolean hasMagic() {
        byte[] head = new byte[MAGIC_BYTES.length];
        return NativeFiles.libc().read(fd, head, head.length) == head.length && Arrays.equals(head, MAGIC_BYTES);
    }

    /** Lets go of the lock (closing the descriptor); idempotent and safe from any thread. */
    synchronized void release() {
        if (fd >= 0) {
            NativeFiles.libc().close(fd);
            fd = -1;
        }
    }

    Path file() {
        return file;
    }

    private static IOException failure(String what, int error) {
        return new IOException(what + ": " + NativeFiles.describe(error));
    }
}
