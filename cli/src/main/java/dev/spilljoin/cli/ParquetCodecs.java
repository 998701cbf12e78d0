package dev.spilljoin.cli;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * The page compression codecs of Parquet input and output, without Hadoop: parquet-hadoop's own codec factory loads
 * Hadoop's codec classes, so the CLI hands this one to the reader and writer instead. It only adapts the compression
 * libraries (a page is compressed or decompressed whole, as Parquet stores it): UNCOMPRESSED, SNAPPY (snappy-java, raw
 * blocks; its native library loaded by {@link SnappyLibrary}), GZIP (java.util.zip, a gzip stream) and ZSTD (zstd-jni,
 * one frame). Any other codec (LZ4, LZ4_RAW, LZO, BROTLI) is refused with a message naming it. The factory is stateless
 * and serves every file; a compressor it makes keeps its output array, for one writer ({@link #getCompressor}), up to
 * {@link ParquetResultWriter#MAX_KEPT_BUFFER_BYTES}: a page of a value of megabytes has an array of its own, let go
 * once the page store has copied the page out.
 */
final class ParquetCodecs implements CompressionCodecFactory {
    /** The zstd level of written pages: zstd's default, and DuckDB's for its zstd pages. */
    static final int ZSTD_LEVEL = 3;

    static final ParquetCodecs INSTANCE = new ParquetCodecs();

    private static final byte[] NONE = new byte[0];

    private ParquetCodecs() {
    }

    /** True for the codecs this factory compresses and decompresses. */
    static boolean supports(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED, SNAPPY, GZIP, ZSTD -> true;
            default -> false;
        };
    }

    /**
     * A new compressor of {@code codec} that reuses its output array from page to page: the bytes it
     * returns are valid until its next call, which is how parquet-java's page writer uses them (it copies each
     * compressed page, and the dictionary page, into its row-group buffer before it compresses the next). An output
     * array a page grew beyond {@link ParquetResultWriter#MAX_KEPT_BUFFER_BYTES} is not kept for the next page (the
     * bytes returned stay valid over it). A GZIP or ZSTD page held in one array is read in place; a SNAPPY page is read
     * from its pieces 64 KB at a time ({@link SnappyFragments}). One thread, one output file.
     */
    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        check(codec);
        return new PageCompressor(codec);
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        check(codec);
        return new BytesInputDecompressor() {
            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
                if (codec == CompressionCodecName.UNCOMPRESSED) {
                    return bytes;
                }
                byte[] compressed = bytes.toByteArray();
                return BytesInput.from(ParquetCodecs.decompress(codec, compressed, compressed.length, uncompressedSize));
            }

            @Override
            public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                    throws IOException {
                byte[] compressed = new byte[compressedSize];
                input.get(compressed);
                output.put(codec == CompressionCodecName.UNCOMPRESSED ? compressed
                        : ParquetCodecs.decompress(codec, compressed, compressedSize, uncompressedSize));
            }

            @Override
            public void release() {
            }
        };
    }

    @Override
    public void release() {
    }

    private static void check(CompressionCodecName codec) {
        if (!supports(codec)) {
            throw new UnsupportedOperationException("Parquet compression " + codec + " is not supported (only"
                    + " UNCOMPRESSED, SNAPPY, GZIP and ZSTD)");
        }
    }

    /**
     * The first {@code length} bytes of {@code compressed} (a page body in {@code codec}, not UNCOMPRESSED)
     * decompressed into a new array of {@code uncompressedSize} bytes; an {@link IOException} when they do not
     * decompress to exactly that size.
     */
    static byte[] decompress(CompressionCodecName codec, byte[] compressed, int length, int uncompressedSize)
            throws IOException {
        byte[] out = new byte[uncompressedSize];
        decompress(codec, compressed, length, out, uncompressedSize);
        return out;
    }

    /**
     * The first {@code length} bytes of {@code compressed} (a page body in {@code codec}, not UNCOMPRESSED)
     * decompressed into the first {@code uncompressedSize} bytes of {@code out}; an {@link IOException} when they do
     * not decompress to exactly that size (checked before snappy writes, so a corrupt page cannot write past them).
     */
    static void decompress(CompressionCodecName codec, byte[] compressed, int length, byte[] out,
                           int uncompressedSize) throws IOException {
        long size = switch (codec) {
            case SNAPPY -> {
                SnappyLibrary.load();
                int expected = Snappy.uncompressedLength(compressed, 0, length);
                if (expected != uncompressedSize) {
                    yield expected;
                }
                yield Snappy.uncompress(compressed, 0, length, out, 0);
            }
            case ZSTD -> {
                long n = Zstd.decompressByteArray(out, 0, uncompressedSize, compressed, 0, length);
                if (Zstd.isError(n)) {
                    throw new IOException("a ZSTD page does not decompress: " + Zstd.getErrorName(n));
                }
                yield n;
            }
            case GZIP -> {
                try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed, 0, length))) {
                    int n = in.readNBytes(out, 0, uncompressedSize);
                    yield n == uncompressedSize && in.read() < 0 ? n : -1;
                }
            }
            default -> throw new IllegalStateException(codec.name());
        };
        if (size != uncompressedSize) {
            throw new IOException("a " + codec + " page decompressed to " + (size < 0 ? "more" : size)
                    + " bytes, its header says " + uncompressedSize + " (corrupt file?)");
        }
    }

    private static byte[] gzip(byte[] input, int offset, int length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length / 2 + 64);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(input, offset, length);
        }
        return out.toByteArray();
    }


    /**
     * Whether {@code codec}'s compressor reads a page from one array ({@link PageBytes}: GZIP, ZSTD), so the column
     * writer assembles each page before it is compressed; the others read a page in its pieces.
     */
    static boolean compressesOneArray(CompressionCodecName codec) {
        return codec == CompressionCodecName.GZIP || codec == CompressionCodecName.ZSTD;
    }

    /**
     * Compresses pages into a reused output array: SNAPPY pages from their pieces ({@link SnappyFragments}), the
     * others reading a page held in one array in place (as {@link ColumnChunkWriter} hands them over,
     * {@link PageBytes}) and any other (a dictionary page) from a copy.
     */
    static final class PageCompressor implements BytesInputCompressor {
        private final CompressionCodecName codec;
        /** SNAPPY's compressor; null for any other codec. */
        private final SnappyFragments snappy;
        private byte[] compressed = NONE;

        PageCompressor(CompressionCodecName codec) {
            this.codec = codec;
            this.snappy = codec == CompressionCodecName.SNAPPY
                    ? new SnappyFragments(ParquetResultWriter.MAX_KEPT_BUFFER_BYTES) : null;
        }

        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
            if (codec == CompressionCodecName.UNCOMPRESSED) {
                return bytes;
            }
            if (snappy != null) {
                return snappy.compress(bytes);
            }
            ByteBuffer page = bytes.toByteBuffer(); // an array-backed input's own array, any other's copy
            byte[] input = page.hasArray() ? page.array() : bytes.toByteArray();
            int offset = page.hasArray() ? page.arrayOffset() + page.position() : 0;
            int length = page.remaining();
            int written = switch (codec) {
                case ZSTD -> {
                    compressed = atLeast(compressed, (int) Zstd.compressBound(length));
                    long n = Zstd.compressByteArray(compressed, 0, compressed.length, input, offset, length,
                            ZSTD_LEVEL);
                    if (Zstd.isError(n)) {
                        throw new IOException("zstd could not compress a page: " + Zstd.getErrorName(n));
                    }
                    yield (int) n;
                }
                case GZIP -> {
                    compressed = gzip(input, offset, length);
                    yield compressed.length;
                }
                default -> throw new IllegalStateException(codec.name());
            };
            BytesInput result = BytesInput.from(compressed, 0, written);
            if (compressed.length > ParquetResultWriter.MAX_KEPT_BUFFER_BYTES) {
                compressed = NONE;
            }
            return result;
        }

        /** The bytes of the output array kept for the next page, for tests. */
        int keptBytes() {
            return snappy != null ? snappy.keptBytes() : compressed.length;
        }

        @Override
        public CompressionCodecName getCodecName() {
            return codec;
        }

        @Override
        public void release() {
        }

        private static byte[] atLeast(byte[] array, int length) {
            return array.length >= length ? array : new byte[Math.max(length, array.length + (array.length >> 1))];
        }
    }
}
