package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LeftoverOutputSweep}: a temporary of a run killed outright is removed, and nothing unproven is: not a
 * live run's (another process holding the lock, or this JVM's own), not another user's, not a link, a directory or
 * a name that only looks like spilljoin's.
 */
class LeftoverOutputSweepTest {
    @TempDir
    Path dir;

    private static final String LEFTOVER = ".sj-0123456789abcdef.spilljoin-tmp";

    @Test
    void aTemporaryOfAKilledRunIsRemovedOnlyOnceItsProcessIsGone() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process holder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                LeftoverHolder.class.getName(), dir.resolve("out.csv").toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
            Path temporary = Path.of(lines.readLine());
            assertThat(temporary.getParent()).isEqualTo(dir);
            assertThat(LeftoverOutputSweep.sweep(dir)).as("the holder is alive and holds the lock")
                    .isEqualTo(new LeftoverOutputSweep.Result(0, 1));
            assertThat(temporary).exists();

            holder.destroyForcibly();
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(temporary).as("SIGKILL leaves it behind").exists();
            assertThat(LeftoverOutputSweep.sweep(dir)).isEqualTo(new LeftoverOutputSweep.Result(1, 0));
            assertThat(temporary).doesNotExist();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void onlyAProvenLeftoverIsRemovedAndWhatCannotBeProvenIsCounted() throws IOException {
        Path leftover = Files.writeString(dir.resolve(LEFTOVER), "partial rows");
        Path victim = Files.writeString(dir.resolve("victim.csv"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve(".sj-00000000000000aa.spilljoin-tmp"), victim);
        Path directory = Files.createDirectory(dir.resolve(".sj-00000000000000bb.spilljoin-tmp"));
        Path[] lookAlikes = {
            Files.writeString(dir.resolve(".sj-backup.spilljoin-tmp"), "mine"),
            Files.writeString(dir.resolve(".out.csv.12345.spilljoin-tmp"), "mine"),
            Files.writeString(dir.resolve(".sj-0123456789abcdef.spilljoin-tmp.bak"), "mine"),
            Files.createDirectory(dir.resolve("spilljoin-2024-backup")),
        };
        try (AtomicOutputFile live = AtomicOutputFile.create(dir.resolve("out.csv"), "the output file")) {
            live.stream().write('x');

            assertThat(LeftoverOutputSweep.sweep(dir)).as("the live one, the link and the directory are kept")
                    .isEqualTo(new LeftoverOutputSweep.Result(1, 3));

            assertThat(leftover).doesNotExist();
            assertThat(live.temporary()).exists();
            live.commit();
        }
        assertThat(Files.readString(dir.resolve("out.csv"))).isEqualTo("x");
        assertThat(Files.readSymbolicLink(link)).isEqualTo(victim);
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(directory).isDirectory();
        for (Path lookAlike : lookAlikes) {
            assertThat(Files.exists(lookAlike, LinkOption.NOFOLLOW_LINKS)).as(lookAlike.toString()).isTrue();
        }
    }

    @Test
    void anotherUsersTemporaryIsKept() throws IOException {
        Path theirs = Files.writeString(dir.resolve(LEFTOVER), "theirs");
        try {
            Files.getFileAttributeView(theirs, PosixFileAttributeView.class)
                    .setOwner(dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("65534"));
        } catch (IOException notRoot) {
            assumeTrue(false, "only root can give a file to another user; not tested as " + notRoot.getMessage());
        }
        assertThat(LeftoverOutputSweep.sweep(dir)).isEqualTo(new LeftoverOutputSweep.Result(0, 1));
        assertThat(Files.readString(theirs)).isEqualTo("theirs");
    }
}
