package dev.spilljoin.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream that passes bytes through to another and, when closed, only flushes it: a compressor closed to write
 * its last frame must leave the output file open for its {@link OutputFile} to commit.
 */
final class UnclosedOutputStream extends FilterOutputStream {
    UnclosedOutputStream(OutputStream out) {
        super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
        out.flush();
    }
}
