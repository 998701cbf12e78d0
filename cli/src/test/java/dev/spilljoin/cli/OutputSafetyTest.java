package dev.spilljoin.cli;

import static dev.spilljoin.cli.CsvTestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spilljoin join} never destroys what is not its own, end to end: a target naming an input or the other
 * target is refused before anything is read; devices, FIFOs and links survive a run; an unwritable {@code --stats}
 * fails before the output is written; Ctrl-C deletes the temporaries at once; every run sweeps proven leftovers of
 * killed runs and counts what it left alone. All in the test's own directory, on private devices and FIFOs.
 */
class OutputSafetyTest {
    @TempDir
    Path dir;
    private Path spill;
    private Path left;
    private Path right;
    private String err;

    @BeforeEach
    void inputs() throws IOException {
        spill = Files.createDirectory(dir.resolve("spill"));
        left = write(dir, "a.csv", "id,v\n1,x\n2,y\n");
        right = write(dir, "b.csv", "id,w\n1,p\n3,q\n");
    }

    private int run(OutputStream rows, Cancellation cancellation, String... extra) {
        List<String> args = new ArrayList<>(List.of("join", "--left", left.toString(), "--right", right.toString(),
                "--spill-dir", spill.toString(), "--quiet"));
        args.addAll(Arrays.asList(extra));
        if (!args.contains("--on")) {
            args.addAll(List.of("--on", "id"));
        }
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code = Main.run(args.toArray(new String[0]), new PrintStream(rows, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8), rows, cancellation);
        err = errBytes.toString(StandardCharsets.UTF_8);
        return code;
    }

    private int run(String... extra) {
        return run(new ByteArrayOutputStream(), Cancellation.NONE, extra);
    }

    /** Every entry of the test directory (links not followed) with its bytes, or its type for a non-file. */
    private Map<String, String> snapshot() throws IOException {
        Map<String, String> entries = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path path : files.toList()) {
                String name = dir.relativize(path).toString();
                int type = SpecialFiles.type(path);
                entries.put(name, type == SpecialFiles.REGULAR
                        ? new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1)
                        : type == SpecialFiles.LINK ? "-> " + Files.readSymbolicLink(path) : "type " + type);
            }
        }
        return entries;
    }

    @Test
    void aTargetNamingAnInputOrTheOtherTargetIsRefusedBeforeAnythingIsRead() throws IOException {
        Files.createDirectory(dir.resolve("sub"));
        Files.createSymbolicLink(dir.resolve("link.csv"), left.getFileName());
        Files.createLink(dir.resolve("hard.csv"), left);
        Files.writeString(dir.resolve("o.csv"), "earlier result\n");
        Files.createLink(dir.resolve("o-hard.csv"), dir.resolve("o.csv"));
        Map<String, String> before = snapshot();
        String[][] clashes = {
            {"--output", left.toString()},
            {"--output", "./" + Path.of("").toAbsolutePath().relativize(left)},
            {"--output", dir.resolve("sub/../a.csv").toString()},
            {"--output", dir.resolve("link.csv").toString()},
            {"--output", dir.resolve("hard.csv").toString()},
            {"--stats", left.toString()},
            {"--stats", right.toString()},
            {"--output", dir.resolve("new.csv").toString(), "--stats", dir.resolve("sub/../new.csv").toString()},
            {"--output", dir.resolve("o.csv").toString(), "--stats", dir.resolve("o-hard.csv").toString()},
        };
        for (String[] clash : clashes) {
            List<String> args = new ArrayList<>(Arrays.asList(clash));
            // an unknown key column: had anything been read, that would be the error
            args.addAll(List.of("--on", "no_such_column"));
            assertThat(run(args.toArray(new String[0]))).as("%s: %s", Arrays.toString(clash), err)
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err).as(Arrays.toString(clash)).startsWith("spilljoin: " + clash[0] + " ")
                    .containsAnyOf("is the input file", "are the same file").doesNotContain("no_such_column");
            assertThat(snapshot()).as(Arrays.toString(clash)).isEqualTo(before);
        }
        assertThat(run("--output", left.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err).isEqualTo("spilljoin: --output " + left + " is the input file --left " + left
                + "; writing it would destroy the input: write the result to another file\n");
    }

    @Test
    void aTargetNamingAPartFileOfADirectoryOrGlobInputIsRefusedBeforeAnythingIsRead() throws IOException {
        Path parts = Files.createDirectory(dir.resolve("parts"));
        assertThat(run("--output", parts.resolve("part-0.parquet").toString())).as(err).isZero();
        assertThat(run("--output", parts.resolve("part-1.parquet").toString())).as(err).isZero();
        Path hardLink = Files.createLink(dir.resolve("hard.parquet"), parts.resolve("part-1.parquet"));
        Path csv = left;
        Map<String, String> before = snapshot();
        String[][] clashes = { // the input, its side, then the target
            {parts.toString(), "left", "--output", parts.resolve("part-0.parquet").toString()},
            {parts + "/*.parquet", "left", "--output", parts.resolve("part-1.parquet").toString()},
            {parts.toString(), "right", "--stats", parts.resolve("part-1.parquet").toString()},
            {parts + "/part-?.parquet", "right", "--stats", hardLink.toString()},
            {parts.toString(), "left", "--output", "./" + Path.of("").toAbsolutePath().relativize(
                    parts.resolve("part-1.parquet"))},
        };
        for (String[] clash : clashes) {
            left = clash[1].equals("left") ? Path.of(clash[0]) : csv;
            right = clash[1].equals("right") ? Path.of(clash[0]) : csv;
            // an unknown key column: had anything been read, that would be the error
            assertThat(run(clash[2], clash[3], "--on", "no_such_column")).as("%s: %s", Arrays.toString(clash), err)
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err).as(Arrays.toString(clash)).startsWith("spilljoin: " + clash[2] + " " + clash[3]
                    + " is the part file ").contains(" of the input --" + clash[1] + " " + clash[0] + ";");
            assertThat(snapshot()).as(Arrays.toString(clash)).isEqualTo(before);
        }
        left = parts;
        right = csv;
        assertThat(run("--output", parts.resolve("part-0.parquet").toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err).isEqualTo("spilljoin: --output " + parts.resolve("part-0.parquet") + " is the part file "
                + parts.resolve("part-0.parquet") + " of the input --left " + parts + "; writing it would destroy the"
                + " input: write the result to another file\n");
        Path output = dir.resolve("out.csv");
        assertThat(run("--on", "left.id=id", "--output", output.toString())).as("a file outside the input").as(err)
                .isZero();
        assertThat(Files.readAllLines(output)).hasSize(1 + 2);
    }

    @Test
    void devicesFifosAndLinksSurviveARunAndLinksLeadToTheFileReplaced() throws Exception {
        Path device = SpecialFiles.nullDevice(dir.resolve("nulldev"));
        Path fifo = SpecialFiles.fifo(dir.resolve("stats.pipe"));
        CompletableFuture<String> statsReader = SpecialFiles.readAsync(fifo);
        assertThat(run("--output", device.toString(), "--stats", fifo.toString())).as(err).isZero();
        assertThat(JoinEndToEndTest.field(statsReader.get(60, TimeUnit.SECONDS), "rows_out")).isEqualTo("1");
        assertThat(SpecialFiles.type(device)).isEqualTo(SpecialFiles.CHARACTER_DEVICE);
        assertThat(SpecialFiles.type(fifo)).isEqualTo(SpecialFiles.FIFO);

        Path real = Files.writeString(dir.resolve("real.csv"), "old\n");
        Path link = Files.createSymbolicLink(dir.resolve("out.csv"), real.getFileName());
        assertThat(run("--output", link.toString())).as(err).isZero();
        assertThat(SpecialFiles.type(link)).isEqualTo(SpecialFiles.LINK);
        assertThat(Files.readString(real)).isEqualTo("left.id,v,right.id,w\n1,x,1,p\n");
    }

    @Test
    void anUnwritableStatsTargetFailsBeforeTheOutputIsWritten() throws IOException {
        Path locked = Files.createDirectory(dir.resolve("locked"));
        SpecialFiles.run("chattr", "+i", locked.toString());
        try {
            Path output = dir.resolve("out.csv");
            assertThat(run("--output", output.toString(), "--stats", locked.resolve("stats.json").toString()))
                    .isEqualTo(ExitCodes.RESOURCES);
            assertThat(err).startsWith("spilljoin: cannot write the stats file " + locked.resolve("stats.json"));
            assertThat(output).as("the output is not written when the stats cannot be").doesNotExist();
            assertThat(locked).isEmptyDirectory();
        } finally {
            SpecialFiles.run("chattr", "-i", locked.toString());
        }
        assertThat(snapshot().keySet()).containsExactlyInAnyOrder("", "a.csv", "b.csv", "spill", "locked");
    }

    @Test
    void aLongOutputNameWorksSinceTheTemporaryNameIsShort() throws IOException {
        Path output = dir.resolve("r".repeat(246) + ".csv");
        assertThat(run("--output", output.toString())).as(err).isZero();
        assertThat(Files.readString(output)).isEqualTo("left.id,v,right.id,w\n1,x,1,p\n");
    }

    @Test
    void ctrlCDeletesTheOutputTemporariesAtOnceWhileTheJoinIsStillRunning() throws Exception {
        left = CsvTestFiles.numbered(dir, "big-l.csv", 200_000, "");
        right = CsvTestFiles.numbered(dir, "big-r.csv", 200_000, "");
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OutputStream stalled = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                writing.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        // The hook's cancellation, with nobody to interrupt: the command stays blocked on its output until the
        // test releases it, so what is deleted before that is deleted by the cancellation itself.
        Cancellation cancellation = new Cancellation(new Thread(() -> { }));
        Path stats = dir.resolve("stats.json");
        int[] code = new int[1];
        Thread command = new Thread(() -> code[0] = run(stalled, cancellation, "--threads", "1", "--stats",
                stats.toString()), "command");
        command.start();
        assertThat(writing.await(120, TimeUnit.SECONDS)).isTrue();
        List<Path> temporaries = temporaries();
        assertThat(temporaries).as("the --stats temporary exists from before the join").hasSize(1);
        cancellation.cancel();
        assertThat(temporaries()).as("deleted by the cancellation, before the command returns").isEmpty();
        assertThat(command.isAlive()).isTrue();
        release.countDown();
        command.join();
        assertThat(code[0]).as(err).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(stats).doesNotExist();
        assertThat(spill).isEmptyDirectory();
    }

    private List<Path> temporaries() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> AtomicOutputFile.TEMPORARY_NAME.matcher(p.getFileName().toString()).matches())
                    .toList();
        }
    }

    @Test
    void everyRunSweepsProvenLeftoversAndCountsWhatItLeftAlone() throws IOException {
        Path leftover = Files.writeString(dir.resolve(".sj-00000000deadbeef.spilljoin-tmp"), "rows of a killed run");
        Path unproven = Files.createSymbolicLink(dir.resolve(".sj-00000000cafef00d.spilljoin-tmp"), left);
        Path stats = dir.resolve("stats.json");
        assertThat(run("--output", dir.resolve("out.csv").toString(), "--stats", stats.toString())).as(err).isZero();
        String json = Files.readString(stats);
        assertThat(JoinEndToEndTest.field(json, "leftover_outputs_removed")).isEqualTo("1");
        assertThat(JoinEndToEndTest.field(json, "leftover_outputs_kept")).isEqualTo("1");
        assertThat(leftover).doesNotExist();
        assertThat(Files.readSymbolicLink(unproven)).isEqualTo(left);
        assertThat(Files.readString(left)).isEqualTo("id,v\n1,x\n2,y\n");
    }
}
