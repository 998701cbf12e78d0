package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A target that is not a regular file of its own (a device, a FIFO, or a process's descriptor such as
 * {@code /dev/stdout}), written in place: opened for writing in append mode (so a descriptor the shell opened
 * with {@code >>} keeps what it had), never created, truncated, renamed or deleted, whatever happens. What was
 * written before a failure has been read or discarded by whatever is behind it, as with standard output.
 */
final class InPlaceOutputFile implements OutputFile {
    private final OutputStream stream;
    private final String description;

    private InPlaceOutputFile(OutputStream stream, String description) {
        this.stream = stream;
        this.description = description;
    }

    /** Opens {@code target} for writing (a FIFO's open waits for its reader, as any writer's does). */
    static InPlaceOutputFile open(Path target, String description) {
        try {
            return new InPlaceOutputFile(Files.newOutputStream(target, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND), description);
        } catch (AccessDeniedException e) {
            throw new ResourceException("cannot write " + description + ": permission denied; check its"
                    + " permissions or write elsewhere", e);
        } catch (IOException e) {
            throw ResourceException.writeFailed(description, e);
        }
    }

    @Override
    public OutputStream stream() {
        return stream;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public void commit() throws IOException {
        stream.close();
    }

    /** Nothing to take back: the bytes are already with the device or the reader. */
    @Override
    public void discard() {
    }

    @Override
    public void close() {
        try {
            stream.close();
        } catch (IOException e) {
            // the reader went away; nothing of ours is left behind
        }
    }
}
