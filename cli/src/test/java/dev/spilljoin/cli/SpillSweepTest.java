package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code join} sweeps its spill directory first, spilling or not: a directory a killed run left (spilljoin's
 * marker, its lock free) goes, anything else named {@code spilljoin-*} stays, and {@code --stats} counts both.
 */
class SpillSweepTest {
    /** The first line of a spill directory's lock file, as a run writes it (the on-disk marker, a contract). */
    private static final String MARKER = "spilljoin spill directory, locked by its run\n";

    @TempDir
    Path dir;

    @Test
    void aJoinThatNeverSpillsStillSweepsLeftoversAndCountsWhatItKeeps() throws IOException {
        Path spill = Files.createDirectory(dir.resolve("spill"));
        Path leftover = Files.createDirectory(spill.resolve("spilljoin-12345-0123456789ab"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(leftover.resolve("spilljoin.lock"), MARKER + "pid 12345\n");
        Files.writeString(leftover.resolve("00000-build-L0-p0.spill"), "rows of a run killed with SIGKILL");
        Path backup = Files.createDirectory(spill.resolve("spilljoin-2024-backup"));
        Files.writeString(backup.resolve("notes.txt"), "a user's own files");
        Path left = CsvTestFiles.write(dir, "l.csv", "id\n1\n2\n");
        Path right = CsvTestFiles.write(dir, "r.csv", "id\n2\n3\n");
        Path stats = dir.resolve("stats.json");

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"join", "--left", left.toString(), "--right", right.toString(), "--on", "id",
            "--output", dir.resolve("out.csv").toString(), "--stats", stats.toString(), "--spill-dir",
            spill.toString(), "--quiet"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        String json = Files.readString(stats);
        assertThat(JoinEndToEndTest.field(json, "partitions")).as("it did not spill").isEqualTo("0");
        assertThat(leftover).doesNotExist();
        assertThat(backup.resolve("notes.txt")).hasContent("a user's own files");
        assertThat(JoinEndToEndTest.field(json, "leftover_spill_dirs_removed")).isEqualTo("1");
        assertThat(JoinEndToEndTest.field(json, "leftover_spill_dirs_kept")).isEqualTo("1");
    }
}
