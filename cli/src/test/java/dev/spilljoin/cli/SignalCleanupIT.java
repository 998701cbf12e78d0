package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIGINT and SIGTERM to {@code bin/spilljoin} (the packaged jar; Failsafe runs this after {@code package}) during
 * spilling joins at the smallest budgets, 64kB and 1MB: at each point a signal can find the join in (its output
 * just opened, before anything spilled; spilling; joining spilled pairs, the output's first rows flushed; well into
 * the output), the run exits 130 with exactly the one-line message on stderr, and leaves nothing: the spill
 * directory, the output's directory, the JVM's temporary directory and its working directory hold nothing new; nor
 * when it writes Parquet and has loaded snappy-java's native library, which is extracted into a temporary file.
 *
 * <p>The matrix runs {@code -Dspilljoin.signal.repetitions} times (default 1); {@code -Dspilljoin.signal.rows}
 * sets the input size (default 250,000 rows a side, 6 + 6 MB of CSV; the manual check is 10 repetitions at
 * 3,000,000). After the message the process may take seconds to end: the kernel frees the unlinked spill files'
 * blocks as it exits.
 */
class SignalCleanupIT {
    private static final Path LAUNCHER = Path.of("..", "bin", "spilljoin").toAbsolutePath().normalize();
    private static final long ROWS = Long.getLong("spilljoin.signal.rows", 250_000);
    private static final int REPETITIONS = Integer.getInteger("spilljoin.signal.repetitions", 1);
    private static final long MB = 1 << 20;
    private static final long PHASE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);
    private static final String STDERR = "stderr.txt";

    /** Where the signal is sent, as seen from outside the process. */
    enum Point {
        /** The hidden output file exists; no spill directory yet. */
        BEFORE_SPILLING,
        /** The spill files hold a megabyte. */
        MID_SPILL,
        /** Joining spilled pairs: the output's first buffer was flushed while the spill directory exists. */
        DURING_PAIRS,
        /** The output holds a quarter of the expected bytes (at most 8 MB). */
        DURING_OUTPUT
    }

    @TempDir
    static Path data;
    private static DemoData.Inputs inputs;
    private static long expectedOutputBytes;

    @TempDir
    Path work;
    private Path spill;
    private Path outputDirectory;
    private Path temporary;

    @BeforeAll
    static void writeInputs() throws IOException {
        inputs = DemoData.write(data, ROWS);
        // every order matches one customer: an output row is about an order row plus a customer row
        expectedOutputBytes = Files.size(inputs.left()) + Files.size(inputs.right());
    }

    @BeforeEach
    void directories() throws IOException {
        spill = Files.createDirectory(work.resolve("spill"));
        outputDirectory = Files.createDirectory(work.resolve("out"));
        temporary = Files.createDirectory(work.resolve("tmp"));
    }

    static Stream<Arguments> matrix() {
        List<Arguments> cases = new ArrayList<>();
        for (int repetition = 1; repetition <= REPETITIONS; repetition++) {
            for (String budget : List.of("64kB", "1MB")) {
                for (String signal : List.of("INT", "TERM")) {
                    for (Point point : Point.values()) {
                        cases.add(Arguments.of(budget, signal, point, repetition));
                    }
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} SIG{1} {2} #{3}")
    @MethodSource("matrix")
    void aSignalExits130WithOneLineAndLeavesNoFile(String budget, String signal, Point point, int repetition)
            throws Exception {
        Process process = start(outputDirectory.resolve("joined.csv"), budget);
        try {
            String seen = awaitPoint(process, point);
            assertThat(process.isAlive()).as("the join must still run at " + point + "; raise"
                    + " -Dspilljoin.signal.rows").isTrue();
            long signalled = System.nanoTime();
            int code = signalAndAwaitExit(process, signal);
            System.out.printf("%s SIG%s %s #%d: signalled at %s, exit %d after %d ms%n", budget, signal, point,
                    repetition, seen, code, (System.nanoTime() - signalled) / 1_000_000);
            assertNothingLeft();
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * snappy-java extracts its native library into the JVM's temporary directory and deletes it only at a normal
     * exit: a run writing Parquet (snappy pages), signalled once the library is loaded, leaves no copy of it there.
     */
    @ParameterizedTest(name = "SIG{0}")
    @ValueSource(strings = {"INT", "TERM"})
    void aSignalAfterSnappyIsLoadedLeavesNoCopyOfItsLibrary(String signal) throws Exception {
        Process process = start(outputDirectory.resolve("joined.parquet"), "64kB");
        try {
            awaitPoint(process, Point.MID_SPILL);
            long deadline = System.nanoTime() + PHASE_TIMEOUT_NANOS;
            while (!mapsSnappy(process) && process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(mapsSnappy(process)).as("snappy-java's library loaded while the join runs").isTrue();
            assertThat(process.isAlive()).as("the join must still run; raise -Dspilljoin.signal.rows").isTrue();
            signalAndAwaitExit(process, signal);
            assertNothingLeft();
        } finally {
            process.destroyForcibly();
        }
    }

    /** Starts the join of the inputs into {@code output} under {@code budget}, in this test's directories. */
    private Process start(Path output, String budget) throws IOException {
        ProcessBuilder launcher = new ProcessBuilder(LAUNCHER.toString(), "join", "--left",
                inputs.left().toString(), "--right", inputs.right().toString(), "--on", DemoData.ON, "--work-mem",
                budget, "--output", output.toString(), "--spill-dir", spill.toString(), "--quiet")
                .directory(work.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(work.resolve(STDERR).toFile());
        // its own temporary directory and working directory, to see that nothing else is left there either
        launcher.environment().put("JAVA_OPTS", "-Djava.io.tmpdir=" + temporary);
        Process process = launcher.start();
        process.getOutputStream().close();
        return process;
    }

    /** Sends SIG{@code signal}; returns the exit code, once checked: 130 with exactly the one-line message. */
    private int signalAndAwaitExit(Process process, String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("exited after SIG" + signal).isTrue();
        String errors = Files.readString(work.resolve(STDERR), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(errors).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(errors).isEqualTo(Cancellation.MESSAGE + "\n");
        return process.exitValue();
    }

    /** The spill, output and temporary directories are empty; the working directory holds nothing new. */
    private void assertNothingLeft() throws IOException {
        assertThat(spill).isEmptyDirectory();
        assertThat(outputDirectory).isEmptyDirectory();
        assertThat(temporary).isEmptyDirectory();
        try (Stream<Path> files = Files.list(work)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .containsExactlyInAnyOrder("spill", "out", "tmp", STDERR);
        }
    }

    /** Whether {@code process} has snappy-java's native library mapped (its file deleted or not). */
    private static boolean mapsSnappy(Process process) throws IOException {
        try {
            return Files.readString(Path.of("/proc", Long.toString(process.pid()), "maps"))
                    .contains("libsnappyjava.so");
        } catch (NoSuchFileException exited) {
            return false;
        }
    }

    /** Waits until the join is at {@code point}; returns what was seen then (for the log). */
    private String awaitPoint(Process process, Point point) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + PHASE_TIMEOUT_NANOS;
        while (process.isAlive() && System.nanoTime() < deadline) {
            Optional<Path> temporary = only(outputDirectory);
            Optional<Path> spillDirectory = only(spill);
            long outputBytes = temporary.map(SignalCleanupIT::size).orElse(0L);
            long spilledBytes = spillDirectory.map(SignalCleanupIT::bytesUnder).orElse(0L);
            boolean reached = switch (point) {
                case BEFORE_SPILLING -> temporary.isPresent();
                case MID_SPILL -> spilledBytes >= MB;
                case DURING_PAIRS -> outputBytes > 0 && spillDirectory.isPresent();
                case DURING_OUTPUT -> outputBytes >= Math.min(expectedOutputBytes / 4, 8 * MB);
            };
            if (reached) {
                return "output " + outputBytes + " bytes, spill directory "
                        + (spillDirectory.isPresent() ? spilledBytes + " bytes" : "absent");
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the join never reached " + point + " (alive: " + process.isAlive() + ")");
    }

    private static Optional<Path> only(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.findFirst();
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException goneMeanwhile) {
            return 0;
        }
    }

    /** Bytes in the spill files under {@code directory} (its lock file aside). */
    private static long bytesUnder(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".spill"))
                    .mapToLong(SignalCleanupIT::size).sum();
        } catch (IOException goneMeanwhile) {
            return 0;
        }
    }
}
