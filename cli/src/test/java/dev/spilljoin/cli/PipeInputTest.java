package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs that can be read only once (issue 17): a private FIFO (made in the test's directory) as the probe side is read
 * once, its header planned and its rows joined from the one open; the build side is then the file (its size is known),
 * the FIFO's key type is its partner's, and {@code --no-header} with a pipe is refused, as is one pipe as both inputs
 * (standard input, a FIFO under two names: usage, before it is opened), and a corrupt compressed file (exit 3, one
 * line), as is Parquet from a pipe (a FIFO or standard input: it needs a file). An output that cannot be opened is exit
 * 4 with nothing left behind: refused at planning before the FIFO is opened, and when it fails after planning (its
 * directory gone) the planned pipe is closed (its writer sees a broken pipe instead of waiting for ever). Standard
 * input ({@code --left -}) runs through the launcher in {@link LauncherIT}.
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
    void outputInAMissingDirectoryIsExit4BeforeTheFifoIsOpened() throws Exception {
        Path left = CsvTestFiles.write(dir, "l.csv", "id,v\n1,a\n");
        Path fifo = SpecialFiles.fifo(dir.resolve("r.pipe"));
        CompletableFuture<Void> writer = writeOnce(fifo, "id,w\n1,b\n");
        Run run = join("--left", left.toString(), "--right", fifo.toString(), "--on", "id", "--output",
                dir.resolve("missing").resolve("out.csv").toString());
        assertThat(run.code).as(run.err).isEqualTo(ExitCodes.RESOURCES);
        assertThat(run.err.strip().lines().count()).as(run.err).isEqualTo(1);
        assertThat(run.err).contains(dir.resolve("missing").toString());
        assertThat(openDescriptors(fifo)).as("descriptors of the FIFO left open").isZero();
        assertThat(Files.readString(fifo)).as("the pipe, unread by the refused run").isEqualTo("id,w\n1,b\n");
        writer.get(60, TimeUnit.SECONDS);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("l.csv", "r.pipe");
        }
    }

    @Test
    void outputFailingToOpenAfterPlanningClosesThePipe() throws Exception {
        Path left = CsvTestFiles.write(dir, "l.csv", "id,v\n1,a\n");
        Path fifo = SpecialFiles.fifo(dir.resolve("r.pipe"));
        StringBuilder rows = new StringBuilder("id,w\n");
        for (int i = 0; i < 200_000; i++) { // more than a pipe holds: the writer blocks until the pipe is read or closed
            rows.append(i).append(",w\n");
        }
        CompletableFuture<Void> writer = writeOnce(fifo, rows.toString());
        Path outputDir = Files.createDirectory(dir.resolve("out"));
        JoinOptions options = new JoinOptions(left, fifo, "id", null, null, outputDir.resolve("out.csv"), null, dir,
                null, false, null, null, null, true, 1, null, null);
        JoinPlan plan = JoinPlanner.plan(options);
        assertThat(openDescriptors(fifo)).as("the planned pipe open here, and the writer's end").isEqualTo(2);
        Files.delete(outputDir); // the output cannot be opened now: the run fails before the join starts
        assertThatThrownBy(() -> JoinRunner.run(plan, OutputStream.nullOutputStream(),
                new PrintWriter(Writer.nullWriter()), System.nanoTime(), Cancellation.NONE))
                .isInstanceOf(ResourceException.class).hasMessageContaining(outputDir.toString());
        assertThat(writer).as("the writer, released by the closed pipe").failsWithin(60, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class).withMessageContaining("Broken pipe");
        assertThat(openDescriptors(fifo)).as("descriptors of the FIFO left open").isZero();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("l.csv", "r.pipe");
        }
    }

    @Test
    void standardInputAsBothInputsIsUsage() {
        InputStream stdin = System.in;
        byte[] text = "id\n1\n2\n".getBytes(StandardCharsets.UTF_8);
        ByteArrayInputStream rows = new ByteArrayInputStream(text);
        System.setIn(rows);
        try {
            Run run = join("--left", "-", "--right", "-", "--on", "id", "--output", dir.resolve("out.csv").toString());
            assertThat(run.code).as(run.err).isEqualTo(ExitCodes.USAGE);
            assertThat(run.err).isEqualTo("spilljoin: --left - and --right - are the same pipe, which can be read only"
                    + " once (each side would get part of its rows): save it to a file first and give that file as"
                    + " both inputs\n");
            assertThat(rows.available()).as("standard input, unread").isEqualTo(text.length);
        } finally {
            System.setIn(stdin);
        }
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void oneFifoAsBothInputsIsUsageUnderAnyName() throws Exception {
        Path fifo = SpecialFiles.fifo(dir.resolve("r.pipe"));
        Path link = Files.createSymbolicLink(dir.resolve("link.pipe"), fifo.getFileName());
        StringBuilder rows = new StringBuilder("id,v\n");
        for (int i = 0; i < 100_000; i++) { // more than a pipe holds: had two readers opened it, both would get rows
            rows.append(i % 7).append(",v").append(i).append('\n');
        }
        for (Path right : List.of(fifo, link)) {
            CompletableFuture<Void> writer = writeOnce(fifo, rows.toString());
            Run run = join("--left", fifo.toString(), "--right", right.toString(), "--on", "id");
            assertThat(run.code).as(run.err).isEqualTo(ExitCodes.USAGE);
            assertThat(run.err).isEqualTo("spilljoin: --left " + fifo + " and --right " + right + " are the same"
                    + " pipe, which can be read only once (each side would get part of its rows): save it to a file"
                    + " first and give that file as both inputs\n");
            assertThat(Files.readString(fifo)).as("the refused pipe, unread").isEqualTo(rows.toString());
            writer.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFifoAsAnInputAndTheOutputIsUsageBeforeItIsOpened() throws Exception {
        Path right = CsvTestFiles.write(dir, "r.csv", "id,w\n1,b\n");
        Path fifo = SpecialFiles.fifo(dir.resolve("l.pipe"));
        CompletableFuture<Void> writer = writeOnce(fifo, "id,v\n1,a\n");
        Run run = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> join("--left", fifo.toString(), "--right",
                right.toString(), "--on", "id", "--output", fifo.toString()));
        assertThat(run.code).as(run.err).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err).isEqualTo("spilljoin: --output " + fifo + " is the input --left " + fifo + " itself, a"
                + " pipe or device the run would both read and write (a FIFO waits for ever): write the result"
                + " elsewhere\n");
        assertThat(Files.readString(fifo)).as("the refused pipe, unread").isEqualTo("id,v\n1,a\n");
        writer.get(60, TimeUnit.SECONDS);
    }

    @Test
    void parquetFromAPipeIsRefusedSayingItNeedsAFile() throws Exception {
        Path right = CsvTestFiles.write(dir, "r.csv", "id,w\n1,b\n");
        Path fifo = SpecialFiles.fifo(dir.resolve("p.parquet"));
        CompletableFuture<Void> writer = writeOnce(fifo, "PAR1 bytes of a Parquet file");
        Run run = join("--left", fifo.toString(), "--right", right.toString(), "--on", "id");
        assertThat(run.code).as(run.err).isEqualTo(ExitCodes.INPUT);
        assertThat(run.err).isEqualTo("spilljoin: cannot read the Parquet input --left " + fifo + " from a pipe or"
                + " stream: Parquet needs random access to the footer at the end of the file; write it to a file"
                + " first and give that file\n");
        assertThat(Files.readString(fifo)).as("the refused pipe, unread").isEqualTo("PAR1 bytes of a Parquet file");
        writer.get(60, TimeUnit.SECONDS);

        run = join("--left", right.toString(), "--right", "-", "--right-format", "parquet", "--on", "id");
        assertThat(run.code).as(run.err).isEqualTo(ExitCodes.INPUT);
        assertThat(run.err).startsWith("spilljoin: cannot read the Parquet input --right - from a pipe or stream:");
    }

    /** How many of this process's file descriptors are open on {@code file} (from /proc/self/fd). */
    private static long openDescriptors(Path file) throws IOException {
        Path real = file.toRealPath();
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd"))) {
            return descriptors.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(real);
                } catch (IOException gone) {
                    return false; // closed while listed (the listing's own descriptor, say)
                }
            }).count();
        }
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
