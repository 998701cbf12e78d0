package dev.spilljoin.cli;

import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The page compressor of one output column's chunks: the output's codec, or none for a chunk whose pages the codec
 * does not shrink, stored as they are and marked UNCOMPRESSED in the footer (Parquet gives each column chunk its own
 * codec, and every reader honours it).
 *
 * <p>Why: DELTA_BINARY_PACKED pages (the integer columns' fallback) leave a codec almost nothing to find, so
 * compressing them costs CPU for nothing and makes every reader decompress them again: W1's Parquet case took 15 %
 * less time with zstd and half with gzip, for a file 0.3 % larger than gzip's (docs/PERFORMANCE.md, twentieth
 * session).
 *
 * <p>Algorithm: a test compresses one page with the codec and keeps the chunk's pages compressed only when that page
 * shrank by at least {@value #SAVED_FRACTION_INVERSE}th; the result stands for the chunk and the next
 * {@value #CHUNKS_PER_TEST} - 1 chunks of the column (a column's values seldom change their nature from one row group
 * to the next), and the first page after them tests again. Invariants: a chunk's pages are either all compressed or
 * all stored, and {@link #getCodecName()} says which when its page store writes the chunk (after its last page,
 * before {@link #startChunk()} starts the next); the choice depends on the column's values alone, so the file is the
 * same on any number of encoder threads.
 *
 * <p>Threads: used by the one thread that encodes the column at a time, like the codec's compressor it wraps (which
 * the column's encoder group shares; it keeps its output array from page to page, and so a compressed page is valid
 * until the next call).
 */
final class ColumnCompressor implements BytesInputCompressor {
    /** A chunk stays compressed when its tested page shrank by at least 1/16. */
    static final int SAVED_FRACTION_INVERSE = 16;
    /** Chunks that one test decides for, its own included. */
    static final int CHUNKS_PER_TEST = 8;

    private final BytesInputCompressor codec;
    /** Whether the current chunk's pages are stored as they are. */
    private boolean stored;
    /** The chunks the last test decides for from the current one on (0: the current chunk's next page tests). */
    private int chunksLeft;

    /** A compressor of one column's chunks with {@code codec}'s compressor. */
    ColumnCompressor(BytesInputCompressor codec) {
        this.codec = codec;
    }

    /** Starts the column's next chunk (its page store is about to be made): it tests a page, or keeps the choice. */
    void startChunk() {
        if (chunksLeft > 0) {
            chunksLeft--;
        }
    }

    @Override
    public BytesInput compress(BytesInput page) throws IOException {
        if (chunksLeft > 0) {
            return stored ? page : codec.compress(page);
        }
        chunksLeft = CHUNKS_PER_TEST;
        BytesInput compressed = codec.compress(page);
        long size = page.size();
        stored = compressed.size() > size - size / SAVED_FRACTION_INVERSE;
        return stored ? page : compressed;
    }

    /** The current chunk's codec: UNCOMPRESSED when its pages are stored, else the output's. */
    @Override
    public CompressionCodecName getCodecName() {
        return stored ? CompressionCodecName.UNCOMPRESSED : codec.getCodecName();
    }

    /** Nothing: the codec's compressor belongs to the column's encoder group. */
    @Override
    public void release() {
    }
}
