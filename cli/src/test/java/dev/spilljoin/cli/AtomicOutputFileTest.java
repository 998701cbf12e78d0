package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicOutputFileTest {
    @TempDir
    Path dir;

    private long filesIn(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.count();
        }
    }

    @Test
    void commitRenamesIntoPlaceReplacingAnOldFile() throws IOException {
        Path target = dir.resolve("out.csv");
        Files.writeString(target, "old");
        try (AtomicOutputFile output = AtomicOutputFile.create(target, "the output file")) {
            output.stream().write("new".getBytes(StandardCharsets.US_ASCII));
            assertThat(Files.readString(target)).as("invisible until committed").isEqualTo("old");
            assertThat(output.temporary().getParent()).isEqualTo(dir.toAbsolutePath());
            output.commit();
        }
        assertThat(Files.readString(target)).isEqualTo("new");
        assertThat(filesIn(dir)).isEqualTo(1);
    }

    @Test
    void failureBeforeCommitLeavesNoFile() throws IOException {
        Path target = dir.resolve("out.csv");
        assertThatThrownBy(() -> {
            try (AtomicOutputFile file = AtomicOutputFile.create(target, "the output file");
                 ResultOutput output = ResultOutput.open(file, System.out, (byte) ',', new String[] {"a"})) {
                output.writer().writeLong(1);
                output.writer().endRow();
                output.writer().flush();
                throw new InputException("boom");
            }
        }).isInstanceOf(InputException.class).hasMessage("boom");
        assertThat(filesIn(dir)).isZero();
    }

    @Test
    void resultOutputWritesHeaderAndRowsOnCommit() throws IOException {
        Path target = dir.resolve("r.csv");
        try (AtomicOutputFile file = AtomicOutputFile.create(target, "the output file");
             ResultOutput output = ResultOutput.open(file, System.out, (byte) ',', new String[] {"left.id", "v"})) {
            output.writer().writeLong(7);
            output.writer().writeNull();
            output.writer().endRow();
            output.commit();
        }
        assertThat(Files.readString(target)).isEqualTo("left.id,v\n7,\n");
        assertThat(filesIn(dir)).isEqualTo(1);
    }

    @Test
    void unwritableDirectoryIsResources() throws IOException {
        Path locked = Files.createDirectory(dir.resolve("locked"));
        assertThat(locked.toFile().setWritable(false, false)).isTrue();
        try {
            assumeFalse(Files.isWritable(locked), "running as root: directory permissions are not enforced");
            assertThatThrownBy(() -> AtomicOutputFile.create(locked.resolve("out.csv"), "the output file"))
                    .isInstanceOf(ResourceException.class).hasMessageContaining("permission denied");
        } finally {
            assertThat(locked.toFile().setWritable(true, false)).isTrue();
        }
    }
}
