package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A damaged {@code .csv.gz} or {@code .csv.zst} input (cut short, empty, or not compressed at all) fails with one
 * line naming the file, what is wrong with it and how to check and fix it (exit 3, no output left), never with the
 * decompressor's bare exception (java.util.zip's message for a gzip stream cut short is null).
 */
class CompressedInputTest {
    private static final String GZIP_TRUNCATED = "it is truncated or not a complete gzip file (the compressed data"
            + " ends too early); check it with gzip -t ";

    @TempDir
    Path dir;

    /** Fails the join of {@code bytes}, written as {@code name}, and returns its stderr. */
    private String failedJoin(String name, byte[] bytes) throws IOException {
        Path left = Files.write(dir.resolve(name), bytes);
        Path right = CsvTestFiles.write(dir, "r.csv", "k,w\n1,x\n");
        Path output = dir.resolve("out.csv");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"join", "--quiet", "--left", left.toString(), "--right", right.toString(),
            "--on", "k", "--output", output.toString()}, new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(message).isEqualTo(ExitCodes.INPUT);
        assertThat(message.lines().count()).as(message).isEqualTo(1);
        assertThat(output).doesNotExist();
        return message;
    }

    private static byte[] rows() {
        StringBuilder text = new StringBuilder("k,v\n");
        for (int i = 0; i < 20_000; i++) {
            text.append(i).append(",left").append(i).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(bytes);
        }
        return out.toByteArray();
    }

    private static byte[] zstd(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream zstd = new ZstdOutputStream(out, CsvCompression.ZSTD_LEVEL)) {
            zstd.write(bytes);
        }
        return out.toByteArray();
    }

    /**
     * Gzip, zstd or Parquet bytes under a plain CSV name are refused naming what they are and how to read them (they
     * had been read as one garbled column: refused for a missing key column, or, without a header, joined as text).
     */
    @Test
    void compressedOrParquetBytesUnderACsvNameSayWhatTheyAre() throws IOException {
        assertThat(failedJoin("gzipped.csv", gzip(rows()))).isEqualTo("spilljoin: " + dir.resolve("gzipped.csv")
                + " holds gzip-compressed data, not CSV text: name the file *.csv.gz, or decompress it on the way in"
                + " ('<(zcat FILE)')\n");
        assertThat(failedJoin("zstd.csv", zstd(rows()))).contains(" holds zstd-compressed data, not CSV text: name"
                + " the file *.csv.zst");
        Path parquet = ParquetTestFiles.write(dir.resolve("p.parquet"), List.of(ParquetTestFiles.column("k",
                PrimitiveType.PrimitiveTypeName.INT64, null)), new Object[] {1L});
        assertThat(failedJoin("parquet.csv", Files.readAllBytes(parquet))).contains(" holds Parquet data, not CSV"
                + " text: name the file *.parquet, or give --left-format/--right-format parquet");
        assertThat(failedJoin("gzipped.gz.csv", gzip(gzip(rows())))).contains(" holds gzip-compressed data");
    }

    /** Text that merely starts like a Parquet file's magic is CSV. */
    @Test
    void aHeaderStartingWithTheParquetMagicIsRead() throws IOException {
        Path left = CsvTestFiles.write(dir, "l.csv", "PAR1,k\nx,1\n");
        Path right = CsvTestFiles.write(dir, "r.csv", "k,w\n1,y\n");
        Path output = dir.resolve("out.csv");
        int code = Main.run(new String[] {"join", "--quiet", "--left", left.toString(), "--right", right.toString(),
            "--on", "k", "--output", output.toString()}, new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(OutputStream.nullOutputStream()));
        assertThat(code).isZero();
        assertThat(Files.readAllLines(output)).containsExactly("PAR1,left.k,right.k,w", "x,1,1,y");
    }

    /** A gzip file without the last bytes of its trailer, cut in its data, or empty: truncated, and how to check. */
    @ParameterizedTest(name = "{0} bytes cut")
    @CsvSource({"4", "1000", "-1"})
    void aTruncatedGzipSaysSo(int cut) throws IOException {
        byte[] whole = gzip(rows());
        byte[] truncated = Arrays.copyOf(whole, cut < 0 ? 0 : whole.length - cut);
        Path file = dir.resolve("l.csv.gz");
        assertThat(failedJoin("l.csv.gz", truncated)).isEqualTo("spilljoin: cannot read " + file + ": "
                + GZIP_TRUNCATED + file + ", then copy or compress it again\n");
    }

    @Test
    void aFileThatIsNotGzipSaysSo() throws IOException {
        Path file = dir.resolve("l.csv.gz");
        assertThat(failedJoin("l.csv.gz", rows())).isEqualTo("spilljoin: cannot read " + file + ": it is corrupt"
                + " or not a gzip file (Not in GZIP format); check it with gzip -t " + file + ", then copy or"
                + " compress it again\n");
    }

    @Test
    void aTruncatedOrForeignZstdFileSaysSo() throws IOException {
        byte[] whole = zstd(rows());
        Path file = dir.resolve("l.csv.zst");
        String fix = "; check it with zstd -t " + file + ", then copy or compress it again\n";
        assertThat(failedJoin("l.csv.zst", Arrays.copyOf(whole, whole.length - 100))).startsWith("spilljoin: cannot"
                + " read " + file + ": it is truncated, corrupt, not a zstd file or has bytes after its last frame (").endsWith(fix);
        assertThat(failedJoin("l.csv.zst", rows())).startsWith("spilljoin: cannot read " + file + ": it is"
                + " truncated, corrupt, not a zstd file or has bytes after its last frame (").endsWith(fix);
        assertThat(failedJoin("l.csv.zst", new byte[0])).isEqualTo("spilljoin: " + file + " is empty: expected a"
                + " header line or a first record; give a CSV file with at least one line\n");
    }

    @Test
    void bytesAfterTheLastGzipMemberAreRefusedNamingTheirOffset() throws IOException {
        byte[] whole = gzip(rows());
        Path file = dir.resolve("l.csv.gz");
        assertThat(failedJoin("l.csv.gz", withJunkAfter(whole))).isEqualTo("spilljoin: cannot read " + file + ": it has bytes"
                + " after its compressed data, from byte " + whole.length + " on, that are not gzip data (gzip -d"
                + " ignores them as trailing garbage; they may be part of another file): if the data before them is"
                + " whole, cut them off (truncate -s " + whole.length + " " + file + "), else copy or compress it"
                + " again\n");
    }

    /** zstd-jni reads on past a frame's end as zstd -d does, so bytes that are not a frame fail as corrupt data. */
    @Test
    void bytesAfterTheLastZstdFrameAreRefused() throws IOException {
        Path file = dir.resolve("l.csv.zst");
        assertThat(failedJoin("l.csv.zst", withJunkAfter(zstd(rows())))).isEqualTo("spilljoin: cannot read " + file + ": it is"
                + " truncated, corrupt, not a zstd file or has bytes after its last frame (Unknown frame descriptor);"
                + " check it with zstd -t " + file + ", then copy or compress it again\n");
    }

    /** Members or frames one after another (cat a.gz b.gz, as pigz and zstd -T write them too) are one input. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"l.csv.gz", "l.csv.zst"})
    void concatenatedMembersAreReadWhole(String name) throws IOException {
        byte[] first = "k,v\n1,a\n".getBytes(StandardCharsets.US_ASCII);
        byte[] second = "2,b\n3,c\n".getBytes(StandardCharsets.US_ASCII);
        boolean gzip = name.endsWith(".gz");
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.writeBytes(gzip ? gzip(first) : zstd(first));
        file.writeBytes(gzip ? gzipWithNameAndComment(second) : zstd(second));
        Path left = Files.write(dir.resolve(name), file.toByteArray());
        Path right = CsvTestFiles.write(dir, "r.csv", "k,w\n1,x\n3,y\n");
        CapturedRun run = CapturedRun.of("join", "--quiet", "--left", left.toString(), "--right", right.toString(),
                "--on", "k", "--output", dir.resolve("out.csv").toString());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(Files.readString(dir.resolve("out.csv"))).isEqualTo("left.k,v,right.k,w\n1,a,1,x\n3,c,3,y\n");
    }

    /**
     * A pipe that has given the first member and nothing more yet (available() 0 at the member's end) still yields
     * the next member: java.util.zip's GZIPInputStream took that for the end of the file.
     */
    @Test
    void aNextMemberNotYetInThePipeIsStillRead() throws IOException {
        byte[][] members = {gzip("k,v\n1,a\n".getBytes(StandardCharsets.US_ASCII)),
            gzip("2,b\n".getBytes(StandardCharsets.US_ASCII))};
        int boundary = members[0].length;
        InputStream pipe = new ByteArrayInputStream(concat(members[0], members[1])) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                // no read runs past the first member's end: the second is not in the pipe yet
                return super.read(b, off, pos < boundary ? Math.min(len, boundary - pos) : len);
            }

            @Override
            public synchronized int available() {
                return 0;
            }
        };
        try (InputStream in = CsvCompression.GZIP.decompress(pipe)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("k,v\n1,a\n2,b\n");
        }
    }

    private static byte[] withJunkAfter(byte[] compressed) {
        return concat(compressed, "junk\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    /** A gzip member whose header has every optional field (gzip -N writes a name; others an extra field). */
    private static byte[] gzipWithNameAndComment(byte[] bytes) throws IOException {
        byte[] plain = gzip(bytes);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0x1f, (byte) 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 3, 3, 0, 'a', 'b', 'c'});
        out.writeBytes("l.csv\0a comment\0".getBytes(StandardCharsets.US_ASCII));
        CRC32 crc = new CRC32();
        crc.update(out.toByteArray());
        out.write((int) crc.getValue() & 0xFF);
        out.write((int) crc.getValue() >> 8 & 0xFF);
        out.write(plain, 10, plain.length - 10);
        return out.toByteArray();
    }
}
