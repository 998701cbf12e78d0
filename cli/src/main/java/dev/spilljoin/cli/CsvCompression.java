package dev.spilljoin.cli;

import com.github.luben.zstd.ZstdIOException;
import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

/**
 * The compression of a CSV input or output, by its extension: {@code .gz} is gzip (read by {@link GzipMembers},
 * written by java.util.zip), {@code .zst} zstd (zstd-jni's streams, level {@value #ZSTD_LEVEL}), anything else none.
 * The streams wrap the file's own; closing them closes it. A decompressing stream's failure on a truncated or
 * corrupt file, or on bytes after its compressed data, is told apart from a read error of the file itself
 * ({@link #damage}).
 */
enum CsvCompression {
    NONE,
    GZIP,
    ZSTD;

    /** zstd's default level: fast, and about gzip's ratio. */
    static final int ZSTD_LEVEL = 3;
    private static final int BUFFER_BYTES = 1 << 16;

    static CsvCompression of(Path path) {
        String name = DataFormat.lowerCaseName(path);
        return name.endsWith(".gz") ? GZIP : name.endsWith(".zst") ? ZSTD : NONE;
    }

    /** The uncompressed bytes of {@code in}. */
    InputStream decompress(InputStream in) throws IOException {
        return switch (this) {
            case NONE -> in;
            case GZIP -> new GzipMembers(in, BUFFER_BYTES);
            case ZSTD -> new ZstdInputStream(in);
        };
    }

    /**
     * What {@code failure}, thrown by a stream of {@link #decompress} reading {@code file}, says is wrong with the
     * file, and how to fix it; null when it is not the compressed data's fault (a read error of the file itself).
     * {@link GzipMembers} ends a gzip stream that stops short (a missing trailer, an empty file) with an
     * {@link EOFException} without a message, bytes after the last member with a
     * {@link GzipMembers.TrailingDataException} and corrupt data with another {@link ZipException}; zstd-jni fails
     * either way with a {@link ZstdIOException}.
     */
    String damage(IOException failure, Path file) {
        String detail = failure.getMessage() == null ? "" : " (" + failure.getMessage() + ")";
        return switch (this) {
            case NONE -> null;
            case GZIP -> failure instanceof GzipMembers.TrailingDataException trailing
                    ? "it has bytes after its compressed data, from byte " + trailing.offset() + " on, that are not"
                            + " gzip data (gzip -d ignores them as trailing garbage; they may be part of another"
                            + " file): if the data before them is whole, cut them off (truncate -s " + trailing.offset()
                            + " " + file + "), else copy or compress it again"
                    : failure instanceof EOFException
                    ? "it is truncated or not a complete gzip file (the compressed data ends too early)"
                            + checkAndRewrite("gzip", file)
                    : failure instanceof ZipException
                            ? "it is corrupt or not a gzip file" + detail + checkAndRewrite("gzip", file) : null;
            case ZSTD -> failure instanceof ZstdIOException
                    ? "it is truncated, corrupt, not a zstd file or has bytes after its last frame" + detail + checkAndRewrite("zstd", file) : null;
        };
    }

    private static String checkAndRewrite(String tool, Path file) {
        return "; check it with " + tool + " -t " + file + ", then copy or compress it again";
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
