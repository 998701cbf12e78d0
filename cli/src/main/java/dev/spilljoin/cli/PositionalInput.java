package dev.spilljoin.cli;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A buffered input stream over a file channel from a given offset, read with positional reads (the channel's own
 * position is never moved), so that the column chunks of one row group are each read by a stream of their own over
 * one shared channel. Small reads (page headers) go through a buffer the caller lends (its column's, from one
 * row group's chunk to the next: {@link PageBuffers#input}); {@link #readFully} of a page body copies what the buffer
 * holds and reads the rest straight into the caller's array.
 */
final class PositionalInput extends InputStream {
    private final FileChannel channel;
    private final ByteBuffer buffer;
    /** The file offset of the buffer's limit: the next byte read from the channel. */
    private long channelPosition;

    /** A stream from {@code offset} of {@code channel} through {@code buffer} (emptied first; no one else reads it). */
    PositionalInput(FileChannel channel, long offset, ByteBuffer buffer) {
        this.channel = channel;
        this.channelPosition = offset;
        this.buffer = buffer.clear().limit(0);
    }

    @Override
    public int read() throws IOException {
        if (!buffer.hasRemaining() && !fill()) {
            return -1;
        }
        return buffer.get() & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!buffer.hasRemaining() && !fill()) {
            return -1;
        }
        int n = Math.min(len, buffer.remaining());
        buffer.get(b, off, n);
        return n;
    }

    /** Reads exactly {@code len} bytes into {@code b} from {@code off}; {@link EOFException} at the file's end. */
    void readFully(byte[] b, int off, int len) throws IOException {
        int buffered = Math.min(len, buffer.remaining());
        buffer.get(b, off, buffered);
        ByteBuffer rest = ByteBuffer.wrap(b, off + buffered, len - buffered);
        while (rest.hasRemaining()) {
            int n = channel.read(rest, channelPosition);
            if (n < 0) {
                throw new EOFException("the file ends inside a page (" + rest.remaining() + " bytes short)");
            }
            channelPosition += n;
        }
    }

    /** Skips exactly {@code n} bytes (a page spilljoin does not read, such as an index page). */
    void skipFully(long n) {
        int buffered = (int) Math.min(n, buffer.remaining());
        buffer.position(buffer.position() + buffered);
        channelPosition += n - buffered;
    }

    private boolean fill() throws IOException {
        buffer.clear();
        int n = channel.read(buffer, channelPosition);
        buffer.flip();
        if (n <= 0) {
            return false;
        }
        channelPosition += n;
        return true;
    }
}
