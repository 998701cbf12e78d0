package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.xerial.snappy.Snappy;

/**
 * Compresses Parquet pages to Snappy's raw format 64 KB at a time, through two small direct buffers, into the bytes
 * {@code Snappy.rawCompress} writes for the whole page.
 *
 * <p>Why: snappy-java compresses a heap array inside a JNI critical section, during which no garbage collection can
 * run. A page of one value of megabytes takes milliseconds, and the collector's answer to the threads that run out
 * of young space meanwhile is to grow the heap: Serial's GC locker serves an allocation that cannot wait by growing
 * the old generation, and the collection it runs when the section ends is a young one, which promotes into the
 * grown old generation (docs/PERFORMANCE.md: the heap of the rows-of-megabytes run grew from 123 to 150-174 MB by
 * such collections alone). A direct buffer is compressed outside any critical section.
 *
 * <p>Algorithm: Snappy's compressor cuts its input into fragments of 64 KB ({@value #FRAGMENT_BYTES} bytes, its
 * {@code kBlockSize}) and compresses each on its own (its own hash table, matches within the fragment only), after a
 * varint of the whole input's length. So the page's bytes are copied a fragment at a time into a direct buffer, each
 * fragment is compressed on its own into a second one, and its output less its own varint is appended to a heap
 * array after the page's varint: byte for byte what compressing the page at once gives ({@code SnappyFragmentsTest}
 * checks it against {@code Snappy.rawCompress}). A page in pieces (its levels and values, as the column writer hands
 * them over) is read from its pieces, with no copy of it in one array.
 *
 * <p>Invariants: the output array holds the page compressed last, from offset 0, until the next {@link #compress}. It
 * is the array kept from the pages before while a page's output fits it, grown by half again at least while it stays
 * within {@code maxKeptBytes}; past that (a page of megabytes that did not compress) the page's output goes to an array
 * of the page's bound, as a one-shot compressor's would, let go at the next page, so that only the array of ordinary
 * pages is kept. One thread (a column group's compressor).
 */
final class SnappyFragments extends OutputStream {
    /** Snappy's fragment: the input it compresses on its own. */
    static final int FRAGMENT_BYTES = 1 << 16;
    private static final int MAX_VARINT_BYTES = 5;
    private static final byte[] NONE = new byte[0];

    private final int maxKeptBytes;
    private final ByteBuffer fragment = ByteBuffer.allocateDirect(FRAGMENT_BYTES);
    /** Sized by {@link Snappy}, so made once {@link SnappyLibrary#load} has loaded it (see the constructor). */
    private final ByteBuffer compressed;
    /** The output array kept from page to page (at most {@code maxKeptBytes}). */
    private byte[] kept = NONE;
    private byte[] out = NONE;
    private int length;
    /** The most bytes the page being compressed compresses to. */
    private int bound;

    /** Compresses into an output array kept from page to page while it is at most {@code maxKeptBytes}. */
    SnappyFragments(int maxKeptBytes) {
        SnappyLibrary.load(); // first: Snappy's first use would extract its library where no signal's hook removes it
        this.compressed = ByteBuffer.allocateDirect(Snappy.maxCompressedLength(FRAGMENT_BYTES));
        this.maxKeptBytes = maxKeptBytes;
    }

    /** {@code page} compressed, as one array-backed input (valid until the next call). */
    BytesInput compress(BytesInput page) throws IOException {
        int size = Math.toIntExact(page.size());
        bound = Snappy.maxCompressedLength(size);
        out = kept;
        length = 0;
        reserve(MAX_VARINT_BYTES);
        for (int v = size; ; v >>>= 7) { // the page's length, 7 bits a byte, low first
            out[length++] = (byte) (v < 0x80 ? v : v & 0x7f | 0x80);
            if (v < 0x80) {
                break;
            }
        }
        fragment.clear();
        page.writeAllTo(this);
        if (fragment.position() > 0) {
            compressFragment();
        }
        return BytesInput.from(out, 0, length);
    }

    /** The bytes of the output array kept for the next page, for tests. */
    int keptBytes() {
        return kept.length;
    }

    @Override
    public void write(int b) throws IOException {
        fragment.put((byte) b);
        if (!fragment.hasRemaining()) {
            compressFragment();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = Math.min(len, fragment.remaining());
            fragment.put(b, off, n);
            off += n;
            len -= n;
            if (!fragment.hasRemaining()) {
                compressFragment();
            }
        }
    }

    /** Compresses the fragment buffered and appends its output, less its own varint length, to the page's. */
    private void compressFragment() throws IOException {
        fragment.flip();
        int fragmentLength = fragment.remaining();
        compressed.clear();
        int written = Snappy.compress(fragment, compressed);
        int varint = fragmentLength < 1 << 7 ? 1 : fragmentLength < 1 << 14 ? 2 : 3;
        reserve(written - varint);
        compressed.position(varint);
        compressed.get(out, length, written - varint);
        length += written - varint;
        fragment.clear();
    }

    /** Makes room for {@code bytes} more output bytes (see the invariants). */
    private void reserve(int bytes) {
        int needed = length + bytes;
        if (needed > out.length) {
            int grown = Math.max(needed, Math.max(FRAGMENT_BYTES, out.length + (out.length >> 1)));
            out = Arrays.copyOf(out, grown <= maxKeptBytes ? grown : Math.max(needed, bound));
            kept = out.length <= maxKeptBytes ? out : kept;
        }
    }
}
