package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.parquet.bytes.BytesInput;

/**
 * A Parquet data page assembled in one array before it is compressed ({@link ColumnChunkWriter}): the compressor
 * then reads it in place ({@link ParquetCodecs}), and the encoders' own buffers (parquet-java's slabs) go back as
 * soon as the page is copied out of them, not after it is compressed; a page of one value of megabytes held its
 * slab, the compressor's copy of it and the compressed bytes at once.
 *
 * <p>Invariants: the array holds the page last assembled, from offset 0, until the next {@link #assemble}; it grows
 * to the largest page asked for (by half again at least), and one larger than {@code maxKeptBytes} is let go by
 * {@link #releaseLarge} once its page is compressed, so that only pages of ordinary values keep theirs. One thread
 * (a column group's).
 */
final class PageBytes {
    private static final byte[] NONE = new byte[0];

    private final int maxKeptBytes;
    private final Filler filler = new Filler();
    private byte[] bytes = NONE;

    /** Pages assembled in an array kept from page to page while it is at most {@code maxKeptBytes}. */
    PageBytes(int maxKeptBytes) {
        this.maxKeptBytes = maxKeptBytes;
    }

    /** {@code page}'s bytes copied into the array, as one array-backed input (valid until the next call). */
    BytesInput assemble(BytesInput page) throws IOException {
        int size = Math.toIntExact(page.size());
        if (size > bytes.length) {
            bytes = new byte[Math.max(size, bytes.length + (bytes.length >> 1))];
        }
        filler.length = 0;
        page.writeAllTo(filler);
        return BytesInput.from(bytes, 0, size);
    }

    /** Lets the array go if it is larger than the kept size (its page compressed and copied out already). */
    void releaseLarge() {
        if (bytes.length > maxKeptBytes) {
            bytes = NONE;
        }
    }

    /** The bytes of the array kept for the next page, for tests. */
    int keptBytes() {
        return bytes.length;
    }

    /** Writes into the array from its start (sized for the whole page beforehand). */
    private final class Filler extends OutputStream {
        int length;

        @Override
        public void write(int b) {
            bytes[length++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            System.arraycopy(b, off, bytes, length, len);
            length += len;
        }
    }
}
