package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A regular file that appears only when complete: bytes go to a hidden temporary file in the destination's
 * directory (so the final rename stays on one file system), {@link #commit()} renames it over the destination
 * atomically, and {@link #close()} without a commit deletes it. A failed or interrupted run therefore leaves
 * neither a partial file nor the temporary one; a run killed outright leaves the temporary, which a later run's
 * {@link LeftoverOutputSweep} removes.
 *
 * <p>The temporary's name is {@code .sj-} + 16 random hex digits + {@code .spilljoin-tmp} (34 bytes, whatever the
 * destination's name), created exclusively (never through a planted link) with the mode any new file gets (0666
 * less the umask); when it replaces an existing file it takes that file's permission bits and, where allowed, its
 * owner and group, so the replacement looks like the file it replaces.
 *
 * <p>Liveness, for the sweep: the temporary is locked ({@link FileChannel#tryLock()}: a POSIX record lock, which
 * the kernel drops when the process dies, in whatever PID namespace) from just after its creation until after
 * its rename or deletion. A sweep of another run may find it in the instant between creation and lock, take the
 * lock itself and delete it; so once locked, the creator checks that its name still exists and otherwise starts
 * again under a new name. This JVM's own temporaries are listed in {@link #LIVE}, which the sweep skips without
 * opening them (closing another descriptor of a locked file would drop this process's lock on it).
 */
public final class AtomicOutputFile implements OutputFile {
    /** Exactly the names this class gives its temporaries; the sweep touches nothing else. */
    static final Pattern TEMPORARY_NAME = Pattern.compile("\\.sj-[0-9a-f]{16}\\.spilljoin-tmp");
    private static final int ATTEMPTS = 8;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    private final Path destination;
    private final Path temporary;
    private final FileChannel channel;
    private final OutputStream stream;
    private final String description;
    private volatile boolean committed;
    private boolean closed;

    private AtomicOutputFile(Path destination, Path temporary, FileChannel channel, String description) {
        this.destination = destination;
        this.temporary = temporary;
        this.channel = channel;
        this.stream = Channels.newOutputStream(channel);
        this.description = description;
    }

    /**
     * Creates and locks the temporary file next to {@code destination} (a regular file or nothing, in an existing
     * directory: see {@link OutputTarget}). Throws {@link ResourceException} when the directory is not writable.
     * {@code description} names the file in messages, e.g. "the output file out.csv".
     */
    static AtomicOutputFile create(Path destination, String description) {
        Path directory = destination.getParent();
        PosixFileAttributes replaced = existing(destination, description);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Path temporary = directory.resolve(".sj-" + HexFormat.of().toHexDigits(RANDOM.nextLong())
                    + ".spilljoin-tmp");
            LIVE.add(temporary);
            FileChannel channel = null;
            boolean created = false;
            try {
                channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                created = true;
                if (channel.tryLock() != null && Files.exists(temporary, LinkOption.NOFOLLOW_LINKS)) {
                    if (replaced != null) {
                        takeModeAndOwner(temporary, replaced);
                    }
                    return new AtomicOutputFile(destination, temporary, channel, description);
                }
                created = false; // another run's sweep holds it or has deleted it: that sweep's to finish
                channel.close();
            } catch (FileAlreadyExistsException e) {
                // another file has this random name: draw again
            } catch (AccessDeniedException e) {
                abandon(temporary, channel, created);
                throw new ResourceException("cannot write " + description + " in " + directory + ": permission"
                        + " denied; choose a writable directory", e);
            } catch (IOException e) {
                abandon(temporary, channel, created);
                throw ResourceException.writeFailed(description, e);
            }
            LIVE.remove(temporary);
        }
        throw new ResourceException("cannot create a temporary file for " + description + " in " + directory
                + " after " + ATTEMPTS + " attempts (names taken or swept meanwhile); try again");
    }

    private static PosixFileAttributes existing(Path destination, String description) {
        try {
            return Files.readAttributes(destination, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw ResourceException.writeFailed(description, e);
        }
    }

    /** Owner and group where allowed (root, or a group one belongs to), then the permission bits. */
    private static void takeModeAndOwner(Path temporary, PosixFileAttributes replaced) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(temporary, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        try {
            view.setOwner(replaced.owner());
        } catch (IOException notPermitted) {
            // the replacement is then owned by whoever runs the join, as a new file would be
        }
        try {
            view.setGroup(replaced.group());
        } catch (IOException notPermitted) {
            // likewise: the run's group
        }
        view.setPermissions(replaced.permissions());
    }

    private static void abandon(Path temporary, FileChannel channel, boolean created) {
        if (created) {
            deleteQuietly(temporary);
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // the failure being reported is the one that matters
            }
        }
        LIVE.remove(temporary);
    }

    /** Whether {@code path} is a temporary of this JVM that is not yet committed or closed. */
    static boolean isLive(Path path) {
        return LIVE.contains(path);
    }

    @Override
    public OutputStream stream() {
        return stream;
    }

    @Override
    public String description() {
        return description;
    }

    /** Path of the temporary file (for tests and diagnostics). */
    Path temporary() {
        return temporary;
    }

    /** Renames the temporary file over the destination (while still locked), then closes it. */
    @Override
    public void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(description + " is already closed");
        }
        stream.flush();
        Files.move(temporary, destination, StandardCopyOption.ATOMIC_MOVE);
        committed = true;
        closed = true;
        channel.close();
        LIVE.remove(temporary);
    }

    /** Deletes the uncommitted temporary file at once (Ctrl-C); {@link #close()} still closes it. */
    @Override
    public void discard() {
        if (!committed) {
            deleteQuietly(temporary);
        }
    }

    /** Without a prior commit: deletes the temporary file (while still locked), then closes it. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        abandon(temporary, channel, !committed);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // nothing more can be done; a later run's sweep removes it once this process is gone
        }
    }
}
