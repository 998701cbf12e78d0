package dev.spilljoin.cli;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

/**
 * Removes from a directory the hidden output temporaries ({@link AtomicOutputFile}) that killed runs left
 * behind, and only those proven to be leftovers. An entry is removed when all of these hold, checked in this order:
 * <ol>
 *   <li>its name is exactly an {@link AtomicOutputFile#TEMPORARY_NAME} (anything else is not looked at, nor
 *       counted);</li>
 *   <li>it is not a temporary of a run in this JVM ({@link AtomicOutputFile#isLive});</li>
 *   <li>it is a regular file (a link is not followed) owned by this process's user;</li>
 *   <li>its lock is free: a live run holds it from creation to commit, and the kernel drops it when that process
 *       dies, so taking it ({@link FileChannel#tryLock()}) proves the writer gone. The entry is deleted while
 *       this sweep holds the lock.</li>
 * </ol>
 * A matching entry that fails a check, or whose check fails, is left alone and counted as kept.
 */
final class LeftoverOutputSweep {
    /** What one sweep did: temporaries deleted, and temporaries left alone because they were not proven leftovers. */
    record Result(int removed, int kept) {
        static final Result NONE = new Result(0, 0);

        Result plus(Result other) {
            return new Result(removed + other.removed, kept + other.kept);
        }
    }

    private LeftoverOutputSweep() {
    }

    /** Sweeps {@code directory}; a directory that cannot be listed yields {@link Result#NONE}. */
    static Result sweep(Path directory) {
        long uid = new UnixSystem().getUid();
        return sweep(directory, entry -> AtomicOutputFile.TEMPORARY_NAME.matcher(entry.getFileName().toString())
                .matches(), entry -> removeIfLeftover(entry, uid));
    }

    /**
     * Offers each entry of {@code directory} that {@code names} matches to {@code removeIfLeftover} (true: it was
     * proven a leftover and removed) and counts what it did; a directory that cannot be listed sweeps nothing.
     */
    static Result sweep(Path directory, DirectoryStream.Filter<Path> names, Predicate<Path> removeIfLeftover) {
        int removed = 0;
        int kept = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, names)) {
            for (Path entry : entries) {
                if (removeIfLeftover.test(entry)) {
                    removed++;
                } else {
                    kept++;
                }
            }
        } catch (IOException | DirectoryIteratorException unlistable) {
            // an unreadable directory: nothing is proven, so nothing is removed (the run's own write reports it)
        }
        return new Result(removed, kept);
    }

    private static boolean removeIfLeftover(Path entry, long uid) {
        if (AtomicOutputFile.isLive(entry)) {
            return false;
        }
        try {
            BasicFileAttributes attributes = Files.readAttributes(entry, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            Object owner = Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile() || !(owner instanceof Integer id) || id != uid) {
                return false;
            }
            // read and write: opening a FIFO put there meanwhile would then not wait for a reader
            try (FileChannel channel = FileChannel.open(entry, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
                 FileLock lock = channel.tryLock()) {
                if (lock == null) {
                    return false;
                }
                Files.delete(entry);
                return true;
            }
        } catch (IOException | OverlappingFileLockException | UnsupportedOperationException unproven) {
            return false;
        }
    }
}
