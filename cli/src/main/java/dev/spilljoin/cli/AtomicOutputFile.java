package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * An output file that appears only when complete: bytes go to a hidden temporary file in the target's
 * directory (so the final rename stays on one file system), {@link #commit()} renames it into place
 * atomically, and {@link #close()} without a commit deletes it. A failed or interrupted run therefore leaves
 * neither a partial file nor the temporary one (a JVM killed by SIGKILL is the exception).
 */
public final class AtomicOutputFile implements AutoCloseable {
    private final Path target;
    private final Path temporary;
    private final OutputStream stream;
    private boolean committed;
    private boolean closed;

    private AtomicOutputFile(Path target, Path temporary, OutputStream stream) {
        this.target = target;
        this.temporary = temporary;
        this.stream = stream;
    }

    /**
     * Creates the temporary file next to {@code target}. Throws {@link UsageException} when the target is a
     * directory or its directory does not exist, {@link ResourceException} when the directory is not writable.
     */
    public static AtomicOutputFile create(Path target, String what) {
        Path absolute = target.toAbsolutePath();
        Path directory = absolute.getParent();
        if (Files.isDirectory(absolute)) {
            throw new UsageException(what + " " + target + " is a directory; give a file name");
        }
        if (directory == null || !Files.isDirectory(directory)) {
            throw new UsageException("the directory of " + what + " " + target + " does not exist; create it or"
                    + " write elsewhere");
        }
        Path temporary = null;
        try {
            temporary = Files.createTempFile(directory, "." + absolute.getFileName() + ".", ".spilljoin-tmp");
            return new AtomicOutputFile(absolute, temporary, Files.newOutputStream(temporary));
        } catch (AccessDeniedException e) {
            deleteQuietly(temporary);
            throw new ResourceException("cannot write " + what + " in " + directory + ": permission denied;"
                    + " choose a writable directory", e);
        } catch (IOException e) {
            deleteQuietly(temporary);
            throw ResourceException.writeFailed(what + " " + target, e);
        }
    }

    /** The stream to write to; it is closed by {@link #commit()} or {@link #close()}. */
    public OutputStream stream() {
        return stream;
    }

    /** Path of the temporary file (for tests and diagnostics). */
    Path temporary() {
        return temporary;
    }

    /** Closes the stream and renames the temporary file to the target, replacing an existing file. */
    public void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException("output " + target + " is already closed");
        }
        stream.close();
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        }
        committed = true;
        closed = true;
    }

    /** Without a prior commit: closes the stream and deletes the temporary file. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stream.close();
        } catch (IOException e) {
            // the file is deleted below; the failure that led here is the one to report
        }
        if (!committed) {
            deleteQuietly(temporary);
        }
    }

    private static void deleteQuietly(Path path) {
        if (path == null) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // nothing more can be done; the name is hidden and marked .spilljoin-tmp
        }
    }
}
