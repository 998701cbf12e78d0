package dev.spilljoin.cli;

import com.github.luben.zstd.Zstd;
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
 * The page compression codecs of Parquet input and output, without Hadoop: parquet-hadoop's own codec factory
 * loads Hadoop's codec classes, so the CLI hands this one to the reader and writer instead. It only adapts the
 * compression libraries (a page is compressed or decompressed whole, as Parquet stores it): UNCOMPRESSED,
 * SNAPPY (snappy-java, raw blocks), GZIP (java.util.zip, a gzip stream) and ZSTD (zstd-jni, one frame). Any other
 * codec (LZ4, LZ4_RAW, LZO, BROTLI) is refused with a message naming it. Stateless: one instance serves every file.
 */
final class ParquetCodecs implements CompressionCodecFactory {
    /** The zstd level of written pages (zstd's default). */
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

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        check(codec);
        return new BytesInputCompressor() {
            @Override
            public BytesInput compress(BytesInput bytes) throws IOException {
                byte[] input = bytes.toByteArray();
                return BytesInput.from(switch (codec) {
                    case SNAPPY -> Snappy.compress(input);
                    case ZSTD -> Zstd.compress(input, ZSTD_LEVEL);
                    case GZIP -> gzip(input);
                    default -> input;
                });
            }

            @Override
            public CompressionCodecName getCodecName() {
                return codec;
            }

            @Override
            public void release() {
            }
        };
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
                return BytesInput.from(inflate(codec, bytes.toByteArray(), uncompressedSize));
            }

            @Override
            public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                    throws IOException {
                byte[] compressed = new byte[compressedSize];
                input.get(compressed);
                output.put(codec == CompressionCodecName.UNCOMPRESSED ? compressed
                        : inflate(codec, compressed, uncompressedSize));
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

    private static byte[] inflate(CompressionCodecName codec, byte[] compressed, int uncompressedSize)
            throws IOException {
        byte[] out = switch (codec) {
            case SNAPPY -> Snappy.uncompress(compressed);
            case ZSTD -> Zstd.decompress(compressed, uncompressedSize);
            case GZIP -> gunzip(compressed, uncompressedSize);
            default -> throw new IllegalStateException(codec.name());
        };
        if (out.length != uncompressedSize) {
            throw new IOException("a " + codec + " page decompressed to " + out.length + " bytes, its header says "
                    + uncompressedSize + " (corrupt file?)");
        }
        return out;
    }

    private static byte[] gzip(byte[] input) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(input.length / 2 + 64);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(input);
        }
        return out.toByteArray();
    }

    private static byte[] gunzip(byte[] compressed, int uncompressedSize) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(compressed))) {
            return in.readNBytes(uncompressedSize);
        }
    }
}
