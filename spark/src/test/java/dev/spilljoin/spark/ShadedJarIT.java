package dev.spilljoin.spark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The -all jar on a Spark class path: its relocatable libraries live under {@code dev.spilljoin.shaded} only, and a
 * spilling SQL join planned by the extension runs from the jar placed after Spark's jars (this JVM's class path
 * without spilljoin's own modules, so an unrelocated DataSketches and Caffeine sit beside it, as Spark ships them),
 * giving Spark's result, with spilljoin's classes and the relocated libraries loaded from the jar.
 */
class ShadedJarIT {
    private static final Path JAR = Path.of(System.getProperty("shaded.jar"));
    private static final List<String> RELOCATED = List.of("org/apache/datasketches/", "com/github/benmanes/caffeine/",
            "org/objectweb/asm/", "com/google/errorprone/", "org/jspecify/");

    @Test
    void relocatableLibrariesAreOnlyUnderTheShadedPackage() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            List<String> names = jar.stream().map(ZipEntry::getName).toList();
            for (String pkg : RELOCATED) {
                assertThat(names).as("unrelocated " + pkg).noneMatch(n -> n.startsWith(pkg) || n.contains("/versions/")
                        && n.contains(pkg));
                assertThat(names).as("relocated " + pkg).anyMatch(n -> n.startsWith("dev/spilljoin/shaded/" + pkg));
            }
        }
    }

    @Test
    void aSpillingSqlJoinRunsFromTheJarBesideSparksJars(@TempDir Path dir) throws Exception {
        List<String> classPath = new ArrayList<>();
        String testClasses = null;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (entry.endsWith("test-classes")) {
                testClasses = entry;
            } else if (!name.startsWith("spilljoin-") && !entry.endsWith("classes")) {
                classPath.add(entry);
            }
        }
        assertThat(testClasses).as("the test classes on the class path").isNotNull();
        assertThat(classPath).as("Spark's jars beside the jar").anyMatch(e -> e.contains("spark-sql_2.13"))
                .anyMatch(e -> e.contains("datasketches-java"));
        classPath.add(JAR.toString());
        classPath.add(testClasses);

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        command.addAll(Arrays.stream(System.getProperty("probe.jvm.flags").trim().split("\\s+"))
                .filter(f -> !f.isEmpty()).toList());
        command.addAll(List.of("-cp", String.join(File.pathSeparator, classPath), ShadedJarProbe.class.getName(),
                dir.resolve("spark-local").toString()));
        Path out = dir.resolve("probe.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process probe = pb.start();
        boolean ended = probe.waitFor(300, TimeUnit.SECONDS);
        if (!ended) {
            probe.destroyForcibly().waitFor();
        }
        String log = Files.readString(out);
        assertThat(ended).as("the probe ended within 300 s:\n" + log).isTrue();
        assertThat(probe.exitValue()).as("the probe's exit code:\n" + log).isZero();
        String jar = JAR.toRealPath().toString();
        assertThat(log).contains("rows equal: true")
                .containsPattern("spilled partitions: [1-9]")
                .contains("spilljoin from: " + jar)
                .contains("sketches from: " + jar)
                .contains("caffeine from: " + jar);
    }
}
