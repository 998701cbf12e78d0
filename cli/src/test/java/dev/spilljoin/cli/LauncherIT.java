package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bin/spilljoin} as a user runs it, against the jar {@code mvn package} just built (Failsafe runs this in
 * {@code integration-test}, after {@code package}): a join through the launcher, the demo spilling, Ctrl-C
 * (SIGINT) in the middle of a spilling join exiting 130 with the output's temporary file and the spill directory
 * removed, the temporary of a run killed by SIGKILL removed by the next run, nothing left in the temporary
 * directory, and the JVM's command line (the Java release read from the JDK's release file).
 */
class LauncherIT {
    private static final Path LAUNCHER = Path.of("..", "bin", "spilljoin").toAbsolutePath().normalize();

    @TempDir
    Path dir;
    private Path spill;

    @BeforeEach
    void spillDirectory() throws IOException {
        spill = Files.createDirectory(dir.resolve("spill"));
    }

    private ProcessBuilder launcher(String... args) {
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(dir.toFile());
    }

    @Test
    void joinsThroughTheLauncherWithRowsOnStandardOutputAndNothingElseOnStderr() throws Exception {
        CsvTestFiles.write(dir, "l.csv", "id,name\n1,ann\n2,\"b,ob\"\n");
        CsvTestFiles.write(dir, "r.csv", "id,city\n2,Oslo\n3,Rome\n");
        Process process = launcher("join", "--left", "l.csv", "--right", "r.csv", "--on", "id", "--type", "left",
                "--spill-dir", spill.toString()).start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(err).isZero();
        assertThat(err).isEmpty();
        assertThat(out.lines().toList()).containsExactlyInAnyOrder("left.id,name,right.id,city", "1,ann,,",
                "2,\"b,ob\",2,Oslo");
        assertThat(spill).isEmptyDirectory();
    }

    @Test
    void dashAsTheOutputIsStandardOutputAndAsTheStatsToo() throws Exception {
        CsvTestFiles.write(dir, "l.csv", "id,name\n1,ann\n2,bob\n");
        CsvTestFiles.write(dir, "r.csv", "id,city\n2,Oslo\n3,Rome\n");
        Process rowsOut = launcher("join", "--left", "l.csv", "--right", "r.csv", "--on", "id", "--output", "-",
                "--spill-dir", spill.toString(), "--quiet").start();
        rowsOut.getOutputStream().close();
        String rows = new String(rowsOut.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(rowsOut.waitFor()).as(new String(rowsOut.getErrorStream().readAllBytes())).isZero();
        assertThat(rows.lines().toList()).containsExactly("left.id,name,right.id,city", "2,bob,2,Oslo");

        Process statsOut = launcher("join", "--left", "l.csv", "--right", "r.csv", "--on", "id", "--output",
                "out.csv", "--stats", "-", "--spill-dir", spill.toString(), "--quiet").start();
        statsOut.getOutputStream().close();
        String stats = new String(statsOut.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(statsOut.waitFor()).as(new String(statsOut.getErrorStream().readAllBytes())).isZero();
        assertThat(stats).startsWith("{").contains("\"rows_out\": 1");
        assertThat(Files.readString(dir.resolve("out.csv")).lines().toList())
                .containsExactly("left.id,name,right.id,city", "2,bob,2,Oslo");

        Process both = launcher("join", "--left", "l.csv", "--right", "r.csv", "--on", "id", "--stats", "-",
                "--spill-dir", spill.toString(), "--quiet").start();
        both.getOutputStream().close();
        String bothOut = new String(both.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String bothErr = new String(both.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(both.waitFor()).as(bothErr).isEqualTo(2);
        assertThat(bothErr).contains("--stats - and the rows would both go to standard output");
        assertThat(bothOut).isEmpty();
        assertThat(dir.resolve("-")).as("no file named -").doesNotExist();
    }

    @Test
    void standardInputIsTheLeftInputWithDashAndTheFileIsBuilt() throws Exception {
        CsvTestFiles.write(dir, "r.csv", "id,city\n2,Oslo\n3,Rome\n");
        Path stats = dir.resolve("stats.json");
        Process process = launcher("join", "--left", "-", "--right", "r.csv", "--on", "id", "--stats",
                stats.toString(), "--spill-dir", spill.toString(), "--quiet").start();
        try (var in = process.getOutputStream()) {
            in.write("id,name\n1,ann\n2,bob\n3,cy\n".getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(err).isZero();
        assertThat(out.lines().toList()).containsExactlyInAnyOrder("left.id,name,right.id,city", "2,bob,2,Oslo",
                "3,cy,3,Rome");
        assertThat(Files.readString(stats)).contains("\"build_side\": \"right\"")
                .contains("\"rows_left\": 3");
    }

    @Test
    void ctrlCInTheMiddleOfAJoinExits130AndLeavesNoFile() throws Exception {
        DemoData.Inputs inputs = DemoData.write(dir, 2_000_000);
        Path output = dir.resolve("joined.csv");
        Process process = launcher("join", "--left", inputs.left().toString(), "--right", inputs.right().toString(),
                "--on", DemoData.ON, "--work-mem", "16MB", "--output", output.toString(), "--spill-dir",
                spill.toString(), "--quiet").redirectErrorStream(true).start();
        process.getOutputStream().close();
        // Signal once the join has spilled: its private directory exists under the spill directory from the first
        // spill to the end of the join (the files are about 100 MB, the budget 16 MB: it spills early).
        while (!hasSpillDirectory() && process.isAlive()) {
            Thread.sleep(5);
        }
        assertThat(process.isAlive()).as("the join should still be running when it has spilled").isTrue();
        assertThat(hasTemporaryOutput()).isTrue();
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(text).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(text).contains("spilljoin: interrupted; the files it had started were deleted");
        assertThat(hasTemporaryOutput()).isFalse();
        assertThat(output).doesNotExist();
        assertThat(spill).isEmptyDirectory();
    }

    @Test
    void aTemporaryLeftByAKilledRunIsSweptByTheNextRun() throws Exception {
        DemoData.Inputs inputs = DemoData.write(dir, 1_000_000);
        Process killed = launcher("join", "--left", inputs.left().toString(), "--right", inputs.right().toString(),
                "--on", DemoData.ON, "--work-mem", "16MB", "--output", dir.resolve("joined.csv").toString(),
                "--spill-dir", spill.toString(), "--quiet").redirectErrorStream(true).start();
        killed.getOutputStream().close();
        while (!hasTemporaryOutput() && killed.isAlive()) {
            Thread.sleep(5);
        }
        assertThat(killed.isAlive()).as("the join should still be running when its output is opened").isTrue();
        killed.destroyForcibly(); // SIGKILL: no hook runs
        assertThat(killed.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(hasTemporaryOutput()).as("SIGKILL leaves the temporary").isTrue();

        CsvTestFiles.write(dir, "l.csv", "id\n1\n");
        Path stats = dir.resolve("stats.json");
        Process next = launcher("join", "--left", "l.csv", "--right", "l.csv", "--on", "id", "--output", "o.csv",
                "--stats", stats.toString(), "--spill-dir", spill.toString()).redirectErrorStream(true).start();
        next.getOutputStream().close();
        String text = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(next.waitFor()).as(text).isZero();
        assertThat(JoinEndToEndTest.field(Files.readString(stats), "leftover_outputs_removed")).isEqualTo("1");
        assertThat(hasTemporaryOutput()).isFalse();
    }

    /**
     * The demo spills and prints its stats, and leaves nothing in the temporary directory its data, its spill files
     * and its libraries used (Chronicle Core's {@code OS} class makes a {@code target/} there when no directory above
     * the working directory has one, as none above this test's has: the spill module removes it).
     */
    @Test
    void theDemoSpillsPrintsItsStatsAndLeavesNothingInTheTemporaryDirectory() throws Exception {
        Path temporary = Files.createDirectory(dir.resolve("tmp"));
        ProcessBuilder builder = launcher("demo", "--rows", "100000", "--work-mem", "1MB");
        builder.environment().put("JAVA_OPTS", "-Djava.io.tmpdir=" + temporary);
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(err).isZero();
        assertThat(JoinEndToEndTest.field(out, "rows_out")).isEqualTo("100000");
        assertThat(Long.parseLong(JoinEndToEndTest.field(out, "partitions"))).as("it spilled").isPositive();
        assertThat(Long.parseLong(JoinEndToEndTest.field(out, "spilled_bytes_build"))).isPositive();
        assertThat(Long.parseLong(JoinEndToEndTest.field(out, "peak_reserved_bytes"))).isLessThanOrEqualTo(1 << 20);
        assertThat(temporary).isEmptyDirectory();
    }

    /**
     * The Java release that decides the flags of Java 24 and later is read from the JDK's {@code release} file, with
     * no second JVM started for {@code java -version}; without that file it is asked of {@code java -version}.
     */
    @ParameterizedTest
    @CsvSource({"'JAVA_VERSION=\"25.0.1\"', true, false", "'JAVA_VERSION=\"17.0.15\"', false, false",
            "'JAVA_VERSION=\"1.8.0_452\"', false, false", ", true, true"})
    void theJavaReleaseComesFromTheJdksReleaseFile(String releaseLine, boolean newFlags, boolean versionAsked)
            throws Exception {
        List<String> calls = javaCallsOfVersionCommand(releaseLine, null);
        assertThat(calls.contains("-version")).as("java -version was run: %s", calls).isEqualTo(versionAsked);
        String run = calls.get(calls.size() - 1);
        assertThat(run).endsWith(" --version");
        assertThat(run.contains(" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow "))
                .as(run).isEqualTo(newFlags);
    }

    /**
     * The launcher starts no program before Java (dirname, sed, grep, each a fork and an exec, took about 60 ms of
     * every run): it runs with a PATH that holds bash alone, and calls Java once.
     */
    @Test
    void theLauncherRunsWithAPathOfBashAlone() throws Exception {
        Path bashAlone = Files.createDirectories(dir.resolve("bash-alone"));
        Files.createSymbolicLink(bashAlone.resolve("bash"), Path.of("/bin/bash").toRealPath());
        List<String> calls = javaCallsOfVersionCommand("JAVA_VERSION=\"17.0.15\"", bashAlone.toString());
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0)).endsWith(" --version").contains(" -XX:+UseSerialGC ");
    }

    /**
     * Reached through links (a relative link to a link elsewhere, as a package manager's bin directory holds), the
     * launcher still finds the jar beside the file they end at.
     */
    @Test
    void theLauncherFollowsAChainOfLinksToItsJar() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("opt/bin"));
        Files.createSymbolicLink(elsewhere.resolve("spilljoin"), LAUNCHER);
        Path bin = Files.createDirectories(dir.resolve("usr/bin"));
        Path link = Files.createSymbolicLink(bin.resolve("sj"), Path.of("../../opt/bin/spilljoin"));
        Process process = new ProcessBuilder(link.toString(), "--version").directory(dir.toFile())
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(out).isZero();
        assertThat(out).startsWith("spilljoin ");
    }

    /**
     * How {@code spilljoin --version} called Java, each call's arguments a line: the launcher run with
     * {@code JAVA_HOME} a fake JDK in this test's directory, whose {@code bin/java} only records its arguments (and
     * answers {@code -version} as Java 24 would), with a {@code release} file of {@code releaseLine} (none if null),
     * and with {@code PATH} set to {@code path} (inherited if null).
     */
    private List<String> javaCallsOfVersionCommand(String releaseLine, String path) throws Exception {
        Path jdk = Files.createDirectories(dir.resolve("jdk/bin"));
        Path calls = dir.resolve("calls.log");
        Path java = jdk.resolve("java");
        Files.writeString(java, "#!/bin/sh\n"
                + "printf '%s\\n' \"$*\" >> '" + calls + "'\n"
                + "if [ \"$1\" = -version ]; then echo 'openjdk version \"24.0.2\" 2025-07-15' >&2; fi\n");
        assertThat(java.toFile().setExecutable(true)).isTrue();
        if (releaseLine != null) {
            Files.writeString(dir.resolve("jdk/release"), "IMPLEMENTOR=\"test\"\n" + releaseLine + "\n");
        }
        ProcessBuilder builder = launcher("--version").redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        builder.environment().remove("JAVA_OPTS");
        if (path != null) {
            builder.environment().put("PATH", path);
        }
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(out).isZero();
        return Files.readAllLines(calls);
    }

    private boolean hasSpillDirectory() throws IOException {
        try (Stream<Path> files = Files.list(spill)) {
            return files.anyMatch(p -> p.getFileName().toString().startsWith("spilljoin-"));
        }
    }

    private boolean hasTemporaryOutput() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(p -> p.getFileName().toString().endsWith(".spilljoin-tmp"));
        }
    }
}
