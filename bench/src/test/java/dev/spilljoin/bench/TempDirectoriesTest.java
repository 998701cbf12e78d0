package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench's scratch directories are deleted when a run is stopped midway: a child JVM creates one (with a file in
 * it) under a private root, prints its path and waits; it is then ended by SIGTERM ({@link Process#destroy}), as
 * Ctrl-C or a timeout would end a bench run, and the directory must be gone.
 */
class TempDirectoriesTest {

    /** The child: creates a scratch directory with a file, prints its path, waits to be stopped. */
    public static void main(String[] args) throws Exception {
        Path directory = TempDirectories.create("scratch-test-");
        Files.writeString(directory.resolve("data.csv"), "k,p\n1,2\n");
        System.out.println(directory);
        System.out.flush();
        Thread.sleep(60_000);
    }

    @Test
    void aRunStoppedBySigtermLeavesNoScratchDirectory(@TempDir Path root) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Dbench.tmpdir=" + root, "-cp",
                System.getProperty("java.class.path"), TempDirectoriesTest.class.getName())
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            Path directory = Path.of(out.readLine());
            assertThat(directory.getParent()).isEqualTo(root);
            assertThat(directory.resolve("data.csv")).exists();
            child.destroy(); // SIGTERM
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child ended").isTrue();
            assertThat(directory).as("the scratch directory after SIGTERM").doesNotExist();
            try (var left = Files.list(root)) {
                assertThat(left).isEmpty();
            }
        } finally {
            child.destroyForcibly();
        }
    }
}
