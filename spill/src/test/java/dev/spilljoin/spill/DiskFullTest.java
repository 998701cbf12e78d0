package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk must be a clean {@link IOException} (directory, bytes needed, bytes free), never a SIGBUS: spills
 * into an 8 MB tmpfs mounted for the test (root only, as in CI), then checks that the JVM still maps and writes
 * files and that nothing is left behind.
 */
class DiskFullTest {
    private static final int WINDOW = 64 * 1024;

    @TempDir
    Path scratch;

    @Test
    void aFullDiskIsACleanIOExceptionAndLeavesNoFile() throws Exception {
        Path mountPoint = Files.createDirectory(scratch.resolve("tiny-disk"));
        mountTinyTmpfs(mountPoint);
        try {
            MemoryReservation budget = MemoryReservation.root("disk-full join", 1 << 20);
            SpillSpace space = SpillSpace.create(mountPoint, WINDOW);
            NativeMemory.NativePage record;
            MemoryReservation staging = budget.newChild("record");
            assertThat(staging.tryGrow(8192)).isTrue();
            record = NativeMemory.allocate(staging, 8192);
            SpillFile file = space.newFile("overflow");
            PartitionWriter writer = file.openWriter(budget, 32 * 1024);
            assertThatThrownBy(() -> {
                for (int i = 0; i < 10_000; i++) {
                    writer.append(record.address(), 8192);
                }
            }).isInstanceOf(IOException.class)
                    .hasMessageContaining("not enough disk space to spill in " + space.directory())
                    .hasMessageContaining("needed")
                    .hasMessageContaining("free");
            assertThat(file.length()).isGreaterThan(4L << 20).isLessThanOrEqualTo(8L << 20);
            writer.close();
            space.close();
            budget.close();
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(1 << 20);
            assertThat(space.counters().mappedBytes()).isZero();
            assertThat(SpillSpaceTest.entries(mountPoint)).isZero();

            try (MemoryReservation again = MemoryReservation.root("after disk full", 1 << 20);
                    SpillSpace fresh = SpillSpace.create(mountPoint, WINDOW)) {
                PartitionWriter second = fresh.newFile("after").openWriter(again, 32 * 1024);
                MemoryReservation bytes = again.newChild("record");
                assertThat(bytes.tryGrow(64)).isTrue();
                NativeMemory.NativePage small = NativeMemory.allocate(bytes, 64);
                second.append(small.address(), 64);
                second.finish();
                second.close();
                assertThat(second.file().length()).isEqualTo(8 + 64);
            }
            assertThat(SpillSpaceTest.entries(mountPoint)).isZero();
        } finally {
            run("umount", mountPoint.toString());
        }
    }

    private static void mountTinyTmpfs(Path mountPoint) throws Exception {
        String user = System.getProperty("user.name");
        Assumptions.assumeTrue("root".equals(user),
                "skipped: mounting a tiny tmpfs to fill the disk needs root (running as " + user + ")");
        String failure = run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint.toString());
        Assumptions.assumeTrue(failure == null, "skipped: could not mount a tiny tmpfs: " + failure);
    }

    /** Runs a command; null on success, else its exit status and output. */
    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return String.join(" ", command) + " timed out";
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return process.exitValue() == 0 ? null : String.join(" ", command) + " exited " + process.exitValue()
                + ": " + output;
    }
}
