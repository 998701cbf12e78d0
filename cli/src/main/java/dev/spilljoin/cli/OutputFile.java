package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An opened {@code --output} or {@code --stats} target: bytes go to {@link #stream()}, {@link #commit()} makes
 * them final, {@link #close()} without a commit takes back what can be taken back. {@link AtomicOutputFile} for a
 * regular file (replaced whole or not at all), {@link InPlaceOutputFile} for a device, FIFO or descriptor (written
 * as it goes, never created, renamed or deleted).
 */
interface OutputFile extends AutoCloseable {
    /** The stream to write to; it is closed by {@link #commit()} or {@link #close()}. */
    OutputStream stream();

    /** How messages name it, e.g. "the output file out.csv". */
    String description();

    /** Flushes and closes the stream and makes the bytes final. */
    void commit() throws IOException;

    /**
     * Called from another thread on Ctrl-C while the run may still be writing: deletes what {@link #close()}
     * would delete, at once and without waiting on the writer. Never throws.
     */
    void discard();

    /** Without a prior commit: closes the stream and discards what was written where that is possible. Idempotent. */
    @Override
    void close();
}
