package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File extensions name formats in any case, as file systems written on other systems spell them: {@code .CSV.GZ}
 * input is decompressed, {@code .PARQUET} output is Parquet and reads back as Parquet input, {@code .CSV.ZST}
 * output is compressed.
 */
class ExtensionCaseTest {
    @TempDir
    Path dir;

    @Test
    void upperCaseExtensionsNameTheirFormats() throws IOException {
        ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
        try (OutputStream gzip = new GZIPOutputStream(gzipped)) {
            gzip.write("k,v\n1,one\n2,two\n".getBytes(StandardCharsets.UTF_8));
        }
        Path left = Files.write(dir.resolve("L.CSV.GZ"), gzipped.toByteArray());
        Path right = CsvTestFiles.write(dir, "r.csv", "k,w\n1,x\n3,z\n");
        Path parquet = dir.resolve("OUT.PARQUET");
        CapturedRun first = CapturedRun.of("join", "--quiet", "--left", left.toString(), "--right", right.toString(),
                "--on", "k", "--output", parquet.toString(), "--spill-dir", dir.toString());
        assertThat(first.code()).as(first.err()).isZero();
        byte[] written = Files.readAllBytes(parquet);
        assertThat(new String(written, 0, 4, StandardCharsets.US_ASCII)).as("Parquet's magic number").isEqualTo("PAR1");

        Path zstd = dir.resolve("OUT.CSV.ZST");
        CapturedRun second = CapturedRun.of("join", "--quiet", "--left", parquet.toString(), "--right",
                right.toString(), "--on", "left.k=k", "--output", zstd.toString(), "--spill-dir", dir.toString());
        assertThat(second.code()).as(second.err()).isZero();
        try (InputStream in = new ZstdInputStream(Files.newInputStream(zstd))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList())
                    .containsExactly("left.k,v,right.k,left.w,k,right.w", "1,one,1,x,1,x");
        }
    }
}
