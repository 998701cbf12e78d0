package dev.spilljoin.cli;

import java.nio.ByteBuffer;

/**
 * The page buffers of one column of a Parquet input, kept from page to page and from one row group's chunk to the
 * next ({@link ColumnChunkPages}): the compressed body being read, two decoded data pages used in turn, and the
 * chunk's read buffer ({@link PositionalInput}, which reads a chunk's page headers). Without them every page took new
 * arrays: W1's 10M-row Parquet input allocated about 300 MB of page arrays (four fifths of the heap's allocation),
 * each zeroed and collected again, and its 91 row groups a 64 KB read buffer per column each (12 MB).
 *
 * <p>Invariants: a decoded page's buffer is handed out again only two pages later, once no decoder reads it: the
 * reader decodes a page in place and then asks for the next, and a PARQUET-246 reader keeps one value of the page
 * before (so the pages of one chunk, and the last of a chunk and the first of the next, never share a buffer). A
 * buffer grows to the largest page asked for (by half again at least, up to {@link ColumnChunkPages#MAX_PAGE_BYTES})
 * and is never shrunk, only let go at the input's end ({@link #release}). One reader thread.
 */
final class PageBuffers {
    /** A chunk's read buffer: page headers are read through it, page bodies mostly past it. */
    static final int INPUT_BYTES = 64 << 10;
    private static final byte[] NONE = new byte[0];

    private ByteBuffer input;
    private byte[] compressed = NONE;
    private final byte[][] decoded = {NONE, NONE};
    private int nextDecoded;

    /**
     * The read buffer of the column's next chunk: the same one for every chunk, as a chunk is read to its end before
     * the next row group's is opened.
     */
    ByteBuffer input() {
        if (input == null) {
            input = ByteBuffer.allocate(INPUT_BYTES);
        }
        return input;
    }

    /** The buffer for a compressed page body of {@code size} bytes. */
    byte[] compressed(int size) {
        compressed = atLeast(compressed, size);
        return compressed;
    }

    /** The buffer to decode the next data page of {@code size} bytes into (the other one than the last time). */
    byte[] nextDecoded(int size) {
        int b = nextDecoded;
        nextDecoded ^= 1;
        decoded[b] = atLeast(decoded[b], size);
        return decoded[b];
    }

    /**
     * Lets the buffers go (the input's end: a build side read to its end would otherwise hold them for the whole
     * join); the next page asked for gets new ones.
     */
    void release() {
        input = null;
        compressed = NONE;
        decoded[0] = NONE;
        decoded[1] = NONE;
    }

    private static byte[] atLeast(byte[] buffer, int size) {
        if (buffer.length >= size) {
            return buffer;
        }
        int grown = Math.min(ColumnChunkPages.MAX_PAGE_BYTES, buffer.length + (buffer.length >> 1));
        return new byte[Math.max(size, grown)];
    }
}
