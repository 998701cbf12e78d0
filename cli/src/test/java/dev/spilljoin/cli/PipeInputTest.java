package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs that can be read only once (issue 17): a private FIFO (made in the test's directory) as the probe side is
 * read once, its header planned and its rows joined from the one open; the build side is then the file (its size
 * is known), the FIFO's key type is its partner's, and {@code --no-header} with a pipe is refused, as is a corrupt
 * compressed file (exit 3, one line). Standard input ({@code --left -}) runs through the launcher in
 * {@link LauncherIT}.
 */
class PipeInputTest {
    @TempDir
    Path dir;

    @Test
    void fifoIsTheProbeSideReadOnce() throws Exception {
        Path left = CsvTestFiles.write(dir, "l.csv", "id,v\n1,a\n2,b\n3,c\n");
        Path fifo = SpecialFiles.fifo(dir.resolve("r.pipe"));
        StringBuilder rows = new StringBuilder("id,w\n");
        for (int i = 0; i < 50_000; i++) {
            rows.append(i % 5).append(",w").append(i).append('\n');
        }
        CompletableFuture<Void> writer = writeOnce(fifo, rows.toString());
        Path stats = dir.resolve("stats.json");
        Run run = join("--left", left.toString(), "--right", fifo.toString(), "--on", "id", "--stats",
                stats.toString(), "--output", dir.resolve("out.csv").toString());
        assertThat(run.code).as(run.err).isZero(); // before waiting: a run that never opened the FIFO fails here
        writer.get(60, TimeUnit.SECONDS);
        assertThat(Files.readString(stats)).contains("\"build_side\": \"left\"")
                .contains("\"rows_right\": 50000").contains("\"right_file_bytes\": -1");
        // keys 1, 2, 3 of 0..4 match: 3 of every 5 right rows
        assertThat(Files.readAllLines(dir.resolve("out.csv"))).hasSize(1 + 30_000)
                .contains("1,a,1,w1", "3,c,3,w49998");
    }

    @Test
    void noHeaderWithAPipeIsUsage() throws Exception {
        Path left = CsvTestFiles.write(dir, "l.csv", "1,a\n");
        Path fifo = SpecialFiles.fifo(dir.resolve("r.pipe"));
        CompletableFuture<Void> writer = writeOnce(fifo, "1,b\n");
        Run run = join("--left", left.toString(), "--right", fifo.toString(), "--on", "column1", "--no-header");
        assertThat(Files.readString(fifo)).as("the refused pipe, still unread").isEqualTo("1,b\n");
        writer.get();
        assertThat(run.code).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err).contains("--no-header").contains(fifo.toString());
    }

    @Test
    void corruptGzipIsOneLineExit3() throws IOException {
        Path left = dir.resolve("l.csv.gz");
        Files.writeString(left, "id,v\n1,a\n");
        Path right = CsvTestFiles.write(dir, "r.csv", "id,w\n1,b\n");
        Run run = join("--left", left.toString(), "--right", right.toString(), "--on", "id", "--output",
                dir.resolve("out.csv").toString());
        assertThat(run.code).as(run.err).isEqualTo(ExitCodes.INPUT);
        assertThat(run.err.strip().lines().count()).as(run.err).isEqualTo(1);
        assertThat(run.err).contains(left.toString());
        assertThat(dir.resolve("out.csv")).doesNotExist();
    }

    private static CompletableFuture<Void> writeOnce(Path fifo, String text) {
        return CompletableFuture.runAsync(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private record Run(int code, String err) {
    }

    private static Run join(String... args) {
        String[] full = new String[args.length + 2];
        full[0] = "join";
        full[1] = "--quiet";
        System.arraycopy(args, 0, full, 2, args.length);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(full, new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, err.toString(StandardCharsets.UTF_8));
    }
}
