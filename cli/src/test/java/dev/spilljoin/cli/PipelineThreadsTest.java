package dev.spilljoin.cli;

import static dev.spilljoin.cli.CsvTestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.spill.ByteSize;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --threads}: the join end to end on one thread and with the reader and writer threads of
 * {@link CsvPipeline} and the join's workers gives the same records (each byte for byte; their order is free), the
 * workers formatting CSV into lanes of their own (N = 3 and 6), plain and compressed, rows longer than a lane's
 * buffer too; a failure in the reader thread (malformed input) or in a worker writing (a failing output) and Ctrl-C
 * while the workers are blocked on the output give the documented exit codes and leave no output and no spill file;
 * {@code --threads 0} is a usage error. After each test no stage thread is alive and the spill directory is empty.
 */
class PipelineThreadsTest {
    private static final String[] PAYLOADS = {"plain", "", null, "with,comma", "quote\"inside", "new\nline",
        "ünïcødé ✓", "5\"3"};

    @org.junit.jupiter.api.io.TempDir
    Path dir;
    private Path spill;
    private String err;

    @BeforeEach
    void spillDirectory() throws IOException {
        spill = Files.createDirectory(dir.resolve("spill"));
    }

    @AfterEach
    void noStageThreadAliveAndNothingInTheSpillDirectory() throws IOException {
        assertThat(stageThreads()).as("stage threads still alive").isEmpty();
        try (Stream<Path> files = Files.list(spill)) {
            assertThat(files).isEmpty();
        }
    }

    private static List<String> stageThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("spilljoin-read-") || name.startsWith("spilljoin-write")).toList();
    }

    /** Runs the command with the joined rows (without --output) going to {@code rows}; returns the exit code. */
    private int run(OutputStream rows, Cancellation cancellation, List<String> args) {
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        int code = Main.run(args.toArray(new String[0]), new PrintStream(rows, true, StandardCharsets.UTF_8),
                errStream, rows, cancellation);
        err = errBytes.toString(StandardCharsets.UTF_8);
        return code;
    }

    private List<String> joinArgs(Path left, Path right, String... extra) {
        List<String> args = new ArrayList<>(List.of("join", "--left", left.toString(), "--right", right.toString(),
                "--on", "id", "--spill-dir", spill.toString(), "--quiet"));
        args.addAll(Arrays.asList(extra));
        return args;
    }

    // ------------------------------------------------------------------ same records on one thread and on several

    @ParameterizedTest
    @EnumSource(JoinKind.class)
    void oneThreeAndSixThreadsWriteTheSameRecordsInMemoryAndSpilled(JoinKind kind) throws IOException {
        long seed = SeededRandom.seed("PipelineThreadsTest " + kind);
        SplittableRandom random = new SplittableRandom(seed);
        // More rows than a batch (4,096) on both sides, so that batches cycle through the queues several times.
        Path left = write(dir, "l.csv", JoinEndToEndTest.csv("id,lp", rows(random, 30_000, kind != JoinKind.NOT_IN)));
        Path right = write(dir, "r.csv", JoinEndToEndTest.csv("id,rp", rows(random, 12_000, false)));
        for (String workMem : List.of("64MB", ByteSize.format(JoinPlanner.MINIMUM_WORK_MEM))) {
            byte[] one = joinToFile(left, right, kind, workMem, "1", ".csv");
            assertThat(new String(one, StandardCharsets.UTF_8).lines().count()).as("seed %d", seed)
                    .isGreaterThan(kind == JoinKind.NOT_IN ? 1 : 4_096);
            // the join's workers hand result batches out in no particular order: the same records, byte for byte
            for (String threads : List.of("3", "6")) {
                assertThat(sortedRecords(joinToFile(left, right, kind, workMem, threads, ".csv")))
                        .as("seed %d, %s join, --work-mem %s: --threads %s as --threads 1", seed, kind, workMem,
                                threads).isEqualTo(sortedRecords(one));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {".csv.gz", ".csv.zst"})
    void workersCompressTheSameRecordsAsOneThread(String extension) throws IOException {
        long seed = SeededRandom.seed("PipelineThreadsTest compressed " + extension);
        SplittableRandom random = new SplittableRandom(seed);
        Path left = write(dir, "l.csv", JoinEndToEndTest.csv("id,lp", rows(random, 30_000, true)));
        Path right = write(dir, "r.csv", JoinEndToEndTest.csv("id,rp", rows(random, 12_000, false)));
        byte[] one = joinToFile(left, right, JoinKind.FULL, "64MB", "1", extension);
        byte[] six = joinToFile(left, right, JoinKind.FULL, "64MB", "6", extension);
        assertThat(sortedRecords(six)).as("seed %d: --threads 6 as --threads 1", seed).isEqualTo(sortedRecords(one));
    }

    @Test
    void rowsLongerThanALaneBufferStayWholeWithSixWorkers() throws IOException {
        // Values of 1.5 MB: each row outgrows a lane's buffer (1 MB at most), which then goes out as that row alone.
        List<List<String>> leftRows = new ArrayList<>();
        List<List<String>> rightRows = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            leftRows.add(List.of(Integer.toString(i), (char) ('a' + i % 26) + ",\"".repeat(500_000)));
            rightRows.add(List.of(Integer.toString(i), "r" + i));
        }
        Path left = write(dir, "l.csv", JoinEndToEndTest.csv("id,lp", leftRows));
        Path right = write(dir, "r.csv", JoinEndToEndTest.csv("id,rp", rightRows));
        byte[] one = joinToFile(left, right, JoinKind.INNER, "64MB", "1", ".csv");
        assertThat(one.length).isGreaterThan(40 * 1_500_000);
        // Every write reaching the output ends at a record's end: the threads' writes may come in any order.
        ByteArrayOutputStream six = new ByteArrayOutputStream() {
            private boolean quoted;

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                for (int i = off; i < off + len; i++) {
                    quoted ^= b[i] == '"';
                }
                assertThat(quoted || b[off + len - 1] != '\n').as("a write ending inside a record").isFalse();
                super.write(b, off, len);
            }
        };
        assertThat(run(six, Cancellation.NONE, joinArgs(left, right, "--threads", "6"))).as(() -> err).isZero();
        assertThat(sortedRecords(six.toByteArray())).isEqualTo(sortedRecords(one));
    }

    /** The CSV records of {@code csv} (a quoted field may hold line ends), the header first and the rest sorted. */
    private static List<String> sortedRecords(byte[] csv) {
        String text = new String(csv, StandardCharsets.UTF_8);
        List<String> records = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == '\n' && !quoted) {
                records.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        assertThat(start).as("the output ends with a whole record").isEqualTo(text.length());
        List<String> body = new ArrayList<>(records.subList(1, records.size()));
        body.sort(null);
        body.add(0, records.get(0));
        return body;
    }

    /**
     * The output of the join with {@code --threads threads} (decompressed), written to a file named with
     * {@code extension}, after checking the stats name that count.
     */
    private byte[] joinToFile(Path left, Path right, JoinKind kind, String workMem, String threads, String extension)
            throws IOException {
        Path out = dir.resolve("out-" + threads + extension);
        Path stats = dir.resolve("stats-" + threads + ".json");
        List<String> args = joinArgs(left, right, "--type", kind.spelling(), "--schema-left", "id:bigint",
                "--schema-right", "id:bigint", "--work-mem", workMem, "--threads", threads, "--output",
                out.toString(), "--stats", stats.toString());
        assertThat(run(new ByteArrayOutputStream(), Cancellation.NONE, args)).as(err).isZero();
        String json = Files.readString(stats);
        assertThat(JoinEndToEndTest.field(json, "threads")).isEqualTo(threads);
        byte[] bytes;
        try (InputStream in = CsvCompression.of(out).decompress(Files.newInputStream(out))) {
            bytes = in.readAllBytes();
        }
        Files.delete(out);
        Files.delete(stats);
        return bytes;
    }

    /** Rows of (id BIGINT or NULL, payload): keys below 9,000 with duplicates, NULL keys when {@code nullKeys}. */
    private static List<List<String>> rows(SplittableRandom random, int count, boolean nullKeys) {
        List<List<String>> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String key = nullKeys && random.nextInt(25) == 0 ? null : Integer.toString(random.nextInt(9_000));
            rows.add(Arrays.asList(key, PAYLOADS[random.nextInt(PAYLOADS.length)]));
        }
        return rows;
    }

    @Test
    void theDefaultIsTheNumberOfCores() throws IOException {
        Path left = write(dir, "l.csv", "id,v\n1,a\n");
        Path stats = dir.resolve("stats.json");
        assertThat(run(new ByteArrayOutputStream(), Cancellation.NONE, joinArgs(left, left, "--stats",
                stats.toString()))).as(err).isZero();
        assertThat(JoinEndToEndTest.field(Files.readString(stats), "threads"))
                .isEqualTo(Integer.toString(Runtime.getRuntime().availableProcessors()));
        Files.delete(stats);
    }

    // ------------------------------------------------------------------ failures on the stage threads

    private void assertOnlyInputsLeft(String... inputs) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(Stream.concat(Stream.of("spill"), Arrays.stream(inputs))
                            .toArray(String[]::new));
        }
    }

    @Test
    void aMalformedRowReadByTheReaderThreadWhileSpillingFailsAsOnOneThreadAndLeavesNoFile() throws IOException {
        Path build = CsvTestFiles.numbered(dir, "build.csv", 30_000, "");
        // The probe file is the larger one; its bad row comes after the join has spilled and produced output.
        Path probe = CsvTestFiles.numbered(dir, "probe.csv", 40_000, "40000,\"unclosed\n");
        String[] messages = new String[2];
        for (int threads = 1; threads <= 2; threads++) {
            List<String> args = joinArgs(build, probe, "--work-mem", "256kB", "--threads", Integer.toString(threads),
                    "--output", dir.resolve("out.csv").toString(), "--stats", dir.resolve("stats.json").toString());
            assertThat(run(new ByteArrayOutputStream(), Cancellation.NONE, args)).isEqualTo(ExitCodes.INPUT);
            assertThat(err).startsWith("spilljoin: " + probe + " line 40002: the quote opened in column 2 ('v') on"
                    + " line 40002 is never closed;");
            assertThat(err.lines().count()).isEqualTo(1);
            assertOnlyInputsLeft("build.csv", "probe.csv");
            messages[threads - 1] = err;
        }
        assertThat(messages[1]).as("--threads 2 as --threads 1").isEqualTo(messages[0]);
    }

    @Test
    void anOutputFailureInTheWriterThreadIsAResourceErrorAsOnOneThreadAndLeavesNoFile() throws IOException {
        // About 4 MB of output: the first write fails while the join goes on.
        CsvTestFiles.numbered(dir, "l.csv", 60_000, "");
        CsvTestFiles.numbered(dir, "r.csv", 60_000, "");
        for (String threads : List.of("1", "2", "6")) {
            List<String> args = joinArgs(dir.resolve("l.csv"), dir.resolve("r.csv"), "--work-mem", "256kB",
                    "--threads", threads);
            assertThat(run(failingOutput(), Cancellation.NONE, args)).as(() -> err).isEqualTo(ExitCodes.RESOURCES);
            assertThat(err).as("--threads %s", threads).isEqualTo("spilljoin: cannot write standard output: No space"
                    + " left on device; the disk is full or the pipe's reader went away (use --output FILE to write"
                    + " a file)\n");
            assertOnlyInputsLeft("l.csv", "r.csv");
        }
    }

    /** Standard output on a full disk: every write fails (the first comes when 1 MiB of CSV is buffered). */
    private static OutputStream failingOutput() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("No space left on device");
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"2", "6"})
    void ctrlCWhileWritersAreBlockedStopsEveryThreadAndDeletesEverything(String threads) throws Exception {
        Path left = CsvTestFiles.numbered(dir, "l.csv", 60_000, "");
        Path right = CsvTestFiles.numbered(dir, "r.csv", 60_000, "");
        CountDownLatch firstRowsWritten = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger writes = new AtomicInteger();
        // A pipe whose reader stops after the first write of CSV: the worker writing next blocks in its write until
        // it is interrupted (the others wait for it to finish that write, or for a lane).
        OutputStream stalled = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (writes.incrementAndGet() == 1) {
                    return;
                }
                firstRowsWritten.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException("interrupted while blocked on the pipe");
                }
            }
        };
        int[] code = new int[1];
        AtomicReference<Cancellation> cancellation = new AtomicReference<>();
        Thread command = new Thread(() -> code[0] = run(stalled, cancellation.get(),
                joinArgs(left, right, "--work-mem", "1MB", "--threads", threads)), "command");
        cancellation.set(new Cancellation(command));
        command.start();
        if (!firstRowsWritten.await(2, TimeUnit.MINUTES)) { // a join that ended before writing twice: say how
            command.join();
            throw new AssertionError("no second write of CSV; the command ended with exit code " + code[0]
                    + " after " + writes.get() + " write(s): " + err);
        }
        try (Stream<Path> files = Files.list(spill)) {
            assertThat(files).as("the join has spilled when its first rows are written").isNotEmpty();
        }
        cancellation.get().cancel(); // what Main's shutdown hook does on SIGINT
        command.join();
        assertThat(code[0]).as(err).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(err).startsWith("spilljoin: interrupted");
        assertOnlyInputsLeft("l.csv", "r.csv");
    }

    // ------------------------------------------------------------------ the flag

    @Test
    void zeroOrNegativeThreadsIsAUsageError() {
        Path left = write(dir, "l.csv", "id\n1\n");
        assertThat(run(new ByteArrayOutputStream(), Cancellation.NONE, joinArgs(left, left, "--threads", "0")))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err).isEqualTo("spilljoin: --threads 0 must be at least 1 (1 runs the whole join on one"
                + " thread)\n");
        assertThat(run(new ByteArrayOutputStream(), Cancellation.NONE, joinArgs(left, left, "--threads", "-2")))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err).startsWith("spilljoin: --threads -2 must be at least 1");
        assertThat(run(new ByteArrayOutputStream(), Cancellation.NONE, joinArgs(left, left, "--threads", "two")))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("--threads").contains("'two' is not an int");
    }
}
