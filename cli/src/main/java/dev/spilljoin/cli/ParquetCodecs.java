package dev.spilljoin.cli;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
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
 * and serves every file; a compressor it makes keeps its buffers, for one writer ({@link #getCompressor}).
 */
final class ParquetCodecs implements CompressionCodecFactory {
    /** The zstd level of written pages: zstd's default, and DuckDB's for its zstd pages. */
    static final int ZSTD_LEVEL = 3;

    static final ParquetCodecs INSTANCE = new ParquetCodecs();

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
     * A new compressor of {@code codec} that reuses its input and output arrays from page to page: the bytes it
     * returns are valid until its next call, which is how parquet-java's page writer uses them (it copies each
     * compressed page, and the dictionary page, into its row-group buffer before it compresses the next). One
     * thread, one output file.
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

    private static byte[] gzip(byte[] input, int length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length / 2 + 64);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(input, 0, length);
        }
        return out.toByteArray();
    }


    /** Compresses pages into a reused output array from a reused copy of the page (see {@link #getCompressor}). */
    private static final class PageCompressor implements BytesInputCompressor {
        private final CompressionCodecName codec;
        private final ArraySink page = new ArraySink();
        private byte[] compressed = new byte[0];

        PageCompressor(CompressionCodecName codec) {
            this.codec = codec;
            if (codec == CompressionCodecName.SNAPPY) {
                SnappyLibrary.load();
            }
        }

        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
            if (codec == CompressionCodecName.UNCOMPRESSED) {
                return bytes;
            }
            page.reset();
            bytes.writeAllTo(page);
            int length = page.length;
            byte[] input = page.bytes;
            int written = switch (codec) {
                case SNAPPY -> {
                    compressed = atLeast(compressed, Snappy.maxCompressedLength(length));
                    yield Snappy.rawCompress(input, 0, length, compressed, 0);
                }
                case ZSTD -> {
                    compressed = atLeast(compressed, (int) Zstd.compressBound(length));
                    long n = Zstd.compressByteArray(compressed, 0, compressed.length, input, 0, length, ZSTD_LEVEL);
                    if (Zstd.isError(n)) {
                        throw new IOException("zstd could not compress a page: " + Zstd.getErrorName(n));
                    }
                    yield (int) n;
                }
                case GZIP -> {
                    compressed = gzip(input, length);
                    yield compressed.length;
                }
                default -> throw new IllegalStateException(codec.name());
            };
            return BytesInput.from(compressed, 0, written);
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

    /** An output stream into a growing array that is kept across {@link #reset()}s. */
    private static final class ArraySink extends OutputStream {
        byte[] bytes = new byte[0];
        int length;

        void reset() {
            length = 0;
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[length++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, bytes, length, len);
            length += len;
        }

        private void ensure(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(length + more, bytes.length + (bytes.length >> 1)));
            }
        }
    }
}
