package dev.spilljoin.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * Where the join's CSV goes: an {@link AtomicOutputFile} for {@code --output FILE}, else standard output.
 * Opening writes the header. {@link #commit()} on success; {@link #close()} always (it deletes an uncommitted
 * output file).
 */
public final class ResultOutput implements AutoCloseable {
    private final AtomicOutputFile file;
    private final OutputStream stream;
    private final CsvWriter writer;
    private final String description;

    private ResultOutput(AtomicOutputFile file, OutputStream stream, CsvWriter writer, String description) {
        this.file = file;
        this.stream = stream;
        this.writer = writer;
        this.description = description;
    }

    /** Opens {@code output} (null: standard output) and writes the header {@code columnNames}. */
    public static ResultOutput open(Path output, byte delimiter, String[] columnNames) {
        AtomicOutputFile file = output == null ? null : AtomicOutputFile.create(output, "the output file");
        OutputStream stream = file == null ? new FileOutputStream(FileDescriptor.out) : file.stream();
        String description = output == null ? "standard output" : "the output file " + output;
        ResultOutput result = new ResultOutput(file, stream, new CsvWriter(stream, delimiter), description);
        try {
            result.writer.writeHeader(columnNames);
        } catch (IOException e) {
            result.close();
            throw ResourceException.writeFailed(description, e);
        }
        return result;
    }

    public CsvWriter writer() {
        return writer;
    }

    /** Flushes everything and, for a file, renames it into place. */
    public void commit() {
        try {
            writer.flush();
            if (file != null) {
                file.commit();
            }
        } catch (IOException e) {
            throw ResourceException.writeFailed(description, e);
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
