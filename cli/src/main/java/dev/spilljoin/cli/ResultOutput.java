package dev.spilljoin.cli;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.PrintStream;

/**
 * Where the join's CSV goes: the opened {@code --output} target ({@link OutputFile}), else the given standard
 * output stream (a {@link PrintStream} hides write errors, so {@link #commit()} asks it with {@code checkError}).
 * Opening writes the header. {@link #commit()} on success; {@link #close()} always (it deletes an uncommitted
 * output file).
 */
public final class ResultOutput implements AutoCloseable {
    private final OutputFile file;
    private final OutputStream stream;
    private final CsvWriter writer;
    private final String description;

    private ResultOutput(OutputFile file, OutputStream stream, CsvWriter writer, String description) {
        this.file = file;
        this.stream = stream;
        this.writer = writer;
        this.description = description;
    }

    /** Writes the header {@code columnNames} to {@code file} (null: {@code stdout}). */
    static ResultOutput open(OutputFile file, OutputStream stdout, byte delimiter, String[] columnNames) {
        OutputStream stream = file == null ? stdout : file.stream();
        String description = file == null ? "standard output" : file.description();
        ResultOutput result = new ResultOutput(file, stream, new CsvWriter(stream, delimiter), description);
        try {
            result.writer.writeHeader(columnNames);
        } catch (IOException e) {
            result.close();
            throw result.writeFailed(e);
        }
        return result;
    }

    /** The failure to report when writing the rows failed with {@code cause}. */
    public ResourceException writeFailed(IOException cause) {
        if (file == null && !(cause instanceof InterruptedIOException)) {
            return new ResourceException("cannot write standard output: " + cause.getMessage() + "; the disk is"
                    + " full or the pipe's reader went away (use --output FILE to write a file)", cause);
        }
        return ResourceException.writeFailed(description, cause);
    }

    public CsvWriter writer() {
        return writer;
    }

    /** Flushes everything and, for a file, makes it final (renames it into place). */
    public void commit() {
        try {
            writer.flush();
            if (file != null) {
                file.commit();
            } else if (stream instanceof PrintStream print && print.checkError()) {
                throw new IOException("the stream reported an error (closed pipe?)");
            }
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void close() {
        if (file != null) {
            file.close();
        } else {
            try {
                stream.flush();
            } catch (IOException e) {
                // standard output went away; nothing to clean up
            }
        }
    }
}
