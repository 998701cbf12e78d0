package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The class archive {@code bin/spilljoin} starts the JVM from (the launcher's "Class archive"), against the jar and
 * archive {@code mvn package} just wrote (Failsafe, after {@code package}): the packaged archive is used (the
 * command's own classes come from it, and picocli's Java 5 classes, which only a static archive holds) and changes no
 * output byte; a launcher whose archive is missing, was written for another jar or before the jar changed (stale) or
 * is not an archive at all runs without it, with the same output and nothing on stderr;
 * {@code SPILLJOIN_CLASS_ARCHIVE=write} leaves an archive the next run uses, and none (and no temporary) when the
 * command fails. The unusable cases run a copy of the launcher and the jar in a temporary directory, so the packaged
 * archive is never touched. On Java 25 or later the archive is an AOT cache ({@code .aot}): written and used, or
 * ignored when stale or not a cache, by a JDK of that release if the machine has one
 * ({@code -Dspilljoin.test.jdk25=<home>}, else the first under {@code /usr/lib/jvm}); without one those cases are
 * skipped, saying why.
 */
class ClassArchiveIT {
    private static final Path LAUNCHER = Path.of("..", "bin", "spilljoin").toAbsolutePath().normalize();
    /** How a class taken from a class archive or an AOT cache is logged. */
    private static final String FROM_ARCHIVE = "source: shared objects file";
    /** picocli's classes are compiled for Java 5: a Java 17 static archive holds them, an AOT cache (Java 25) not. */
    private static final String PICOCLI = "picocli.CommandLine";
    private static final String MAIN = Main.class.getName();

    /** What a copied launcher finds next to its jar. */
    enum Unusable { MISSING, WRITTEN_FOR_ANOTHER_JAR, WRITTEN_BEFORE_THE_JAR_CHANGED, NOT_AN_ARCHIVE }

    @TempDir
    Path dir;
    private Path packagedJar;
    private Path left;
    private Path right;

    @BeforeEach
    void inputs() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            packagedJar = files.filter(p -> p.getFileName().toString().matches("spilljoin-cli-.*\\.jar"))
                    .filter(p -> !p.getFileName().toString().matches(".*-(sources|tests|javadoc)\\.jar"))
                    .findFirst().orElseThrow().toAbsolutePath();
        }
        StringBuilder l = new StringBuilder("k,p\n");
        StringBuilder r = new StringBuilder("k,q\n");
        SplittableRandom random = new SplittableRandom(17);
        for (int i = 0; i < 5000; i++) {
            l.append(random.nextInt(2000)).append(',').append(i).append('\n');
            r.append(i % 2500).append(",r").append(i).append('\n');
        }
        left = CsvTestFiles.write(dir, "l.csv", l.toString());
        right = CsvTestFiles.write(dir, "r.csv", r.toString());
    }

    @Test
    void thePackagedArchiveIsUsedAndChangesNoOutputByte() throws Exception {
        Path archive = archiveOf(packagedJar);
        assertThat(archive).as("mvn package writes it").isRegularFile();
        Path log = dir.resolve("classes.log");

        Run shared = run(LAUNCHER, Map.of("JAVA_OPTS", "-Xlog:class+load:file=" + log), joinToParquet("shared"));
        assertThat(shared.exit()).as(shared.err()).isZero();
        assertThat(classLine(log, MAIN)).contains(FROM_ARCHIVE);
        assertThat(classLine(log, PICOCLI)).contains(FROM_ARCHIVE);

        Run plain = run(LAUNCHER, Map.of("SPILLJOIN_CLASS_ARCHIVE", "off", "JAVA_OPTS",
                "-Xlog:class+load:file=" + log), joinToParquet("plain"));
        assertThat(plain.exit()).as(plain.err()).isZero();
        assertThat(classLine(log, MAIN)).doesNotContain(FROM_ARCHIVE);
        assertThat(Files.readAllBytes(dir.resolve("shared.parquet")))
                .isEqualTo(Files.readAllBytes(dir.resolve("plain.parquet")));
    }

    @ParameterizedTest
    @EnumSource(Unusable.class)
    void anUnusableArchiveIsIgnoredSilently(Unusable kind) throws Exception {
        Path launcher = copiedLauncher();
        Path jar = copiedJar(launcher);
        Path archive = archiveOf(jar);
        switch (kind) {
            case MISSING -> assertThat(archive).doesNotExist();
            case WRITTEN_FOR_ANOTHER_JAR -> Files.copy(archiveOf(packagedJar), archive); // the packaged jar's
            case WRITTEN_BEFORE_THE_JAR_CHANGED -> {
                assertThat(run(launcher, Map.of("SPILLJOIN_CLASS_ARCHIVE", "write"), "--version").exit()).isZero();
                Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 2000));
            }
            case NOT_AN_ARCHIVE -> Files.write(archive, new byte[64 << 10]);
        }
        Path log = joinLoggingClasses(launcher, Map.of());
        assertThat(classLine(log, MAIN)).doesNotContain(FROM_ARCHIVE);
    }

    @Test
    void writeModeLeavesAnArchiveTheNextRunStartsFrom() throws Exception {
        Path launcher = copiedLauncher();
        Path archive = archiveOf(copiedJar(launcher));
        Run write = run(launcher, Map.of("SPILLJOIN_CLASS_ARCHIVE", "write"), "demo", "--format", "parquet",
                "--rows", "2000", "--quiet");
        assertThat(write.exit()).as(write.err()).isZero();
        assertThat(archive).isRegularFile();
        assertThat(temporaries(archive)).isEmpty();

        Path log = joinLoggingClasses(launcher, Map.of());
        assertThat(classLine(log, MAIN)).contains(FROM_ARCHIVE);
        assertThat(classLine(log, PICOCLI)).contains(FROM_ARCHIVE);
    }

    @Test
    void writeModeLeavesNoArchiveWhenTheCommandFails() throws Exception {
        Path launcher = copiedLauncher();
        Path archive = archiveOf(copiedJar(launcher));
        Files.write(archive, new byte[] {1}); // an older one: removed, as it would not match the jar any more

        Run failed = run(launcher, Map.of("SPILLJOIN_CLASS_ARCHIVE", "write"), "join", "--left",
                dir.resolve("missing.csv").toString(), "--right", right.toString(), "--on", "k");
        assertThat(failed.exit()).isEqualTo(ExitCodes.INPUT);
        assertThat(failed.err()).contains("missing.csv").contains("spilljoin: no class archive written (exit code 3)");
        assertThat(archive).doesNotExist();
        assertThat(temporaries(archive)).isEmpty();
    }

    @Test
    void anUnknownArchiveModeIsAUsageError() throws Exception {
        Run run = run(LAUNCHER, Map.of("SPILLJOIN_CLASS_ARCHIVE", "yes"), "--version");
        assertThat(run.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).isEqualTo("spilljoin: SPILLJOIN_CLASS_ARCHIVE must be use, off or write, not 'yes'\n");
    }

    @Test
    void onJava25WriteModeLeavesAnAotCacheTheNextRunStartsFrom() throws Exception {
        Map<String, String> java25 = Map.of("JAVA_HOME", jdk25().toString());
        Path launcher = copiedLauncher();
        Path jar = copiedJar(launcher);
        Path cache = cacheOf(jar);
        Run write = run(launcher, with(java25, "SPILLJOIN_CLASS_ARCHIVE", "write"), "demo", "--format", "parquet",
                "--rows", "2000", "--quiet");
        assertThat(write.exit()).as(write.err()).isZero();
        assertThat(write.out()).as("the JVM's report of its record stays off standard output")
                .doesNotContain("AOT").startsWith("{");
        assertThat(cache).isRegularFile();
        assertThat(archiveOf(jar)).as("no Java 17 archive").doesNotExist();
        assertThat(temporaries(cache)).isEmpty();

        Path log = joinLoggingClasses(launcher, java25);
        assertThat(classLine(log, MAIN)).contains(FROM_ARCHIVE);
    }

    @ParameterizedTest
    @EnumSource(value = Unusable.class, names = {"WRITTEN_BEFORE_THE_JAR_CHANGED", "NOT_AN_ARCHIVE"})
    void onJava25AnUnusableAotCacheIsIgnoredSilently(Unusable kind) throws Exception {
        Map<String, String> java25 = Map.of("JAVA_HOME", jdk25().toString());
        Path launcher = copiedLauncher();
        Path jar = copiedJar(launcher);
        Path cache = cacheOf(jar);
        if (kind == Unusable.NOT_AN_ARCHIVE) {
            Files.write(cache, new byte[64 << 10]);
        } else {
            assertThat(run(launcher, with(java25, "SPILLJOIN_CLASS_ARCHIVE", "write"), "--version").exit()).isZero();
            assertThat(cache).isRegularFile();
            Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 2000));
        }
        Path log = joinLoggingClasses(launcher, java25);
        assertThat(classLine(log, MAIN)).doesNotContain(FROM_ARCHIVE);
    }

    /**
     * Joins to standard output through {@code launcher} with {@code environment} and the class-load log: the run
     * succeeds with nothing on stderr and the rows the packaged launcher gives. Returns the log.
     */
    private Path joinLoggingClasses(Path launcher, Map<String, String> environment) throws Exception {
        Path log = dir.resolve("classes.log");
        Run logged = run(launcher, with(environment, "JAVA_OPTS", "-Xlog:class+load:file=" + log), joinToStdout());
        Run packaged = run(LAUNCHER, Map.of(), joinToStdout());
        assertThat(logged.exit()).as(logged.err()).isZero();
        assertThat(logged.err()).isEmpty();
        assertThat(packaged.exit()).as(packaged.err()).isZero();
        assertThat(logged.out()).isEqualTo(packaged.out()).contains("left.k,p,right.k,q\n");
        return log;
    }

    /** On one worker, as {@link #joinToStdout}: two workers take the input's batches in either order. */
    private String[] joinToParquet(String name) {
        return new String[] {"join", "--left", left.toString(), "--right", right.toString(), "--on", "k", "--quiet",
                "--threads", "1", "--output", dir.resolve(name + ".parquet").toString()};
    }

    private String[] joinToStdout() {
        return new String[] {"join", "--left", left.toString(), "--right", right.toString(), "--on", "k", "--quiet",
                "--threads", "1"};
    }

    /** A copy of the launcher in {@code dir/copy/bin}, beside which {@link #copiedJar} puts the jar. */
    private Path copiedLauncher() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("copy").resolve("bin"));
        return Files.copy(LAUNCHER, bin.resolve("spilljoin"), StandardCopyOption.COPY_ATTRIBUTES);
    }

    private Path copiedJar(Path launcher) throws IOException {
        Path target = Files.createDirectories(launcher.getParent().resolveSibling("cli").resolve("target"));
        return Files.copy(packagedJar, target.resolve(packagedJar.getFileName()));
    }

    /** The Java 17 class archive beside {@code jar}. */
    private static Path archiveOf(Path jar) {
        return besideJar(jar, ".jsa");
    }

    /** The Java 25 AOT cache beside {@code jar}. */
    private static Path cacheOf(Path jar) {
        return besideJar(jar, ".aot");
    }

    private static Path besideJar(Path jar, String extension) {
        String name = jar.getFileName().toString();
        return jar.resolveSibling(name.substring(0, name.length() - ".jar".length()) + extension);
    }

    /** The write mode's temporary files (archive, AOT record, the cache maker's report) left in the archive's place. */
    private static List<Path> temporaries(Path archive) throws IOException {
        try (Stream<Path> files = Files.list(archive.getParent())) {
            return files.filter(p -> p.getFileName().toString().matches(".*\\.(tmp|record|log)$")).toList();
        }
    }

    private static Map<String, String> with(Map<String, String> environment, String name, String value) {
        Map<String, String> more = new HashMap<>(environment);
        more.put(name, value);
        return more;
    }

    /**
     * The home of a JDK of release 25 or later ({@code -Dspilljoin.test.jdk25}, else the first under
     * {@code /usr/lib/jvm} whose {@code release} file says so); aborts (skips) the test when there is none.
     */
    private static Path jdk25() throws IOException {
        String given = System.getProperty("spilljoin.test.jdk25");
        if (given != null) {
            return Path.of(given);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        Path found = null;
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> homes = Files.list(jvms)) {
                found = homes.filter(home -> releaseOf(home) >= 25 && Files.isExecutable(home.resolve("bin/java")))
                        .sorted().findFirst().orElse(null);
            }
        }
        Assumptions.assumeTrue(found != null, "no JDK of release 25 or later under /usr/lib/jvm (set"
                + " -Dspilljoin.test.jdk25=<home>): the AOT cache cases need one");
        return found;
    }

    /** The major release in {@code home}'s {@code release} file ({@code JAVA_VERSION="25.0.1"}), 0 without one. */
    private static int releaseOf(Path home) {
        try (Stream<String> lines = Files.lines(home.resolve("release"))) {
            return lines.filter(line -> line.startsWith("JAVA_VERSION=\""))
                    .map(line -> line.substring("JAVA_VERSION=\"".length()).split("[.\"]")[0])
                    .filter(major -> major.matches("\\d+")).mapToInt(Integer::parseInt).findFirst().orElse(0);
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** The class-loading log's line for class {@code name}: where the JVM took it from. */
    private static String classLine(Path log, String name) throws IOException {
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(line -> line.contains(" " + name + " source:")).findFirst().orElseThrow();
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private Run run(Path launcher, Map<String, String> environment, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().remove("JAVA_OPTS");
        builder.environment().remove("SPILLJOIN_CLASS_ARCHIVE");
        builder.environment().putAll(environment);
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        process.getOutputStream().close();
        int exit = process.waitFor();
        return new Run(exit, Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
