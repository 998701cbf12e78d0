package dev.spilljoin.cli;

import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The compression of a CSV input or output, by its extension: {@code .gz} is gzip (java.util.zip), {@code .zst}
 * zstd (zstd-jni's streams, level {@value #ZSTD_LEVEL}), anything else none. The streams wrap the file's own;
 * closing them closes it.
 */
enum CsvCompression {
    NONE,
    GZIP,
    ZSTD;

    /** zstd's default level: fast, and about gzip's ratio. */
    static final int ZSTD_LEVEL = 3;
    private static final int BUFFER_BYTES = 1 << 16;

    static CsvCompression of(Path path) {
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        return name.endsWith(".gz") ? GZIP : name.endsWith(".zst") ? ZSTD : NONE;
    }

    /** The uncompressed bytes of {@code in}. */
    InputStream decompress(InputStream in) throws IOException {
        return switch (this) {
            case NONE -> in;
            case GZIP -> new GZIPInputStream(in, BUFFER_BYTES);
            case ZSTD -> new ZstdInputStream(in);
        };
    }

    /** A stream that compresses into {@code out}; closing it finishes the compressed stream and closes {@code out}. */
    OutputStream compress(OutputStream out) throws IOException {
        return switch (this) {
            case NONE -> out;
            case GZIP -> new GZIPOutputStream(out, BUFFER_BYTES);
            case ZSTD -> new ZstdOutputStream(out, ZSTD_LEVEL);
        };
    }
}
