package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;

/**
 * The sweep of a spill root: deletes the private spill directories earlier runs left behind (a run killed with
 * SIGKILL cannot delete its own), and nothing else.
 *
 * <p>An entry of the root is deleted only when all of these hold: its name starts with
 * {@value SpillSpace#DIRECTORY_PREFIX}; it is a directory, not a link, owned by this process's effective user and
 * writable by no one else; and its lock file carries spilljoin's magic and its lock is free
 * ({@link SpillDirectoryLock#takeIfLeftover}). The lock is held while the directory is deleted, so its owner cannot
 * be alive (in this process, another, or another PID namespace). Every other {@code spilljoin-*} entry is left
 * alone and counted as kept: a live run's directory, another user's, a user's own {@code spilljoin-2024-backup},
 * one from a spilljoin without lock files. A failure on one entry keeps it and the sweep goes on: the sweep never
 * fails the run that does it.
 */
public final class LeftoverSweep {
    /** What one sweep did: directories deleted, and {@code spilljoin-*} entries left because nothing proved them leftovers. */
    public record Result(int removed, int kept) {
        public static final Result NONE = new Result(0, 0);
    }

    private LeftoverSweep() {
    }

    /** Sweeps {@code root}; a root that cannot be listed (or does not exist) sweeps nothing. */
    public static Result sweep(Path root) {
        int removed = 0;
        int kept = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root, SpillSpace.DIRECTORY_PREFIX + "*")) {
            for (Path entry : entries) {
                if (removeIfLeftover(entry)) {
                    removed++;
                } else {
                    kept++;
                }
            }
        } catch (IOException | DirectoryIteratorException unlistable) {
            // nothing more to prove here; creating a space in this root will report what is wrong with it
        }
        return new Result(removed, kept);
    }

    private static boolean removeIfLeftover(Path entry) {
        if (!ownedPrivatelyByUs(entry)) {
            return false;
        }
        SpillDirectoryLock lock = SpillDirectoryLock.takeIfLeftover(entry);
        if (lock == null) {
            return false;
        }
        try {
            SpillSpace.deleteTree(entry);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            lock.release();
        }
    }

    /** A real directory (not a link) of this process's effective user that no one else may write into. */
    private static boolean ownedPrivatelyByUs(Path entry) {
        try {
            PosixFileAttributes attributes = Files.readAttributes(entry, PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isDirectory() || attributes.permissions().contains(PosixFilePermission.GROUP_WRITE)
                    || attributes.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
                return false;
            }
            Map<String, Object> unix = Files.readAttributes(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return ((Integer) unix.get("uid")) == NativeFiles.libc().geteuid();
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
