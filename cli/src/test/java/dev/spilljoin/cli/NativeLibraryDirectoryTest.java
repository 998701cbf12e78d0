package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NativeLibraryDirectory}: the directory snappy-java's library is loaded from, left behind by a process killed
 * during the load, is swept by a later one, and nothing unproven is: not a live one (another process's, or this
 * JVM's), not one without the marked lock file, not a link, not one others may write into.
 */
class NativeLibraryDirectoryTest {
    private static final String PREFIX = SnappyLibrary.DIRECTORY_PREFIX;

    @TempDir
    Path dir;

    private static Process child(String... args) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp",
                System.getProperty("java.class.path")));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    @Test
    void aDirectoryOfAKilledProcessIsSweptOnlyOnceItsProcessIsGone() throws Exception {
        Process holder = child(NativeLibraryDirectoryHolder.class.getName(), "hold", dir.toString());
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
            Path held = Path.of(lines.readLine());
            assertThat(held.getParent()).isEqualTo(dir);
            assertThat(held.getFileName().toString()).startsWith(PREFIX);
            Files.writeString(held.resolve("libsnappyjava.so"), "a library");
            assertThat(NativeLibraryDirectory.sweep(dir, PREFIX)).as("the holder is alive and holds the lock")
                    .isEqualTo(new LeftoverOutputSweep.Result(0, 1));
            assertThat(held.resolve("libsnappyjava.so")).exists();

            holder.destroyForcibly();
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(held).as("SIGKILL leaves it behind").isDirectory();
            assertThat(NativeLibraryDirectory.sweep(dir, PREFIX)).isEqualTo(new LeftoverOutputSweep.Result(1, 0));
            assertThat(held).doesNotExist();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void loadingSnappySweepsALeftoverAndLeavesNoDirectoryOfItsOwn() throws Exception {
        Path leftover = leftover("leftover");
        Process load = child("-Dorg.xerial.snappy.tempdir=" + dir, NativeLibraryDirectoryHolder.class.getName(),
                "load");
        assertThat(load.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(load.exitValue()).isZero();
        assertThat(leftover).doesNotExist();
        try (Stream<Path> entries = Files.list(dir)) {
            assertThat(entries).isEmpty();
        }
    }

    @Test
    void onlyAProvenLeftoverIsRemovedAndWhatCannotBeProvenIsKept() throws IOException {
        Path leftover = leftover("leftover");
        Path unmarked = Files.createDirectory(dir.resolve(PREFIX + "unmarked"));
        Files.writeString(unmarked.resolve(NativeLibraryDirectory.LOCK_FILE), "not the magic\n");
        Path unlocked = Files.createDirectory(dir.resolve(PREFIX + "nolock"));
        Path shared = leftover("shared");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path victim = leftover("victim-target");
        Path link = Files.createSymbolicLink(dir.resolve(PREFIX + "link"), victim);
        Path lockLink = Files.createDirectory(dir.resolve(PREFIX + "locklink"));
        Files.createSymbolicLink(lockLink.resolve(NativeLibraryDirectory.LOCK_FILE),
                leftover.resolve(NativeLibraryDirectory.LOCK_FILE));
        Path lookAlike = Files.createDirectory(dir.resolve("spilljoin-snapshots"));

        try (NativeLibraryDirectory live = NativeLibraryDirectory.create(dir, PREFIX)) {
            assertThat(NativeLibraryDirectory.sweep(dir, PREFIX)).as("only the leftover and the link's target go")
                    .isEqualTo(new LeftoverOutputSweep.Result(2, 6));
            assertThat(live.path()).isDirectory();
            assertThat(live.path().resolve(NativeLibraryDirectory.LOCK_FILE)).exists();
        }
        assertThat(leftover).doesNotExist();
        assertThat(victim).as("a leftover itself, swept under its own name").doesNotExist();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        for (Path kept : List.of(unmarked, unlocked, shared, lockLink, lookAlike)) {
            assertThat(Files.isDirectory(kept, LinkOption.NOFOLLOW_LINKS)).as(kept.toString()).isTrue();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            assertThat(entries).as("the live one deleted itself").noneMatch(p -> p.getFileName().toString()
                    .matches(PREFIX + "[0-9]+"));
        }
    }

    /** A directory as a killed load leaves it: marked lock file, a library, and no process holding the lock. */
    private Path leftover(String name) throws IOException {
        Path directory = Files.createDirectory(dir.resolve(PREFIX + name),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(directory.resolve(NativeLibraryDirectory.LOCK_FILE), NativeLibraryDirectory.MAGIC
                + "pid 1\n");
        Files.writeString(directory.resolve("libsnappyjava.so"), "a library");
        return directory;
    }
}
