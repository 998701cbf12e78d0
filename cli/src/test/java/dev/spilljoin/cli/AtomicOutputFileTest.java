package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.parquet.schema.PrimitiveType;
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
                 ResultOutput output = ResultOutput.open(file, System.out, csv("a", "v"))) {
                output.writer().write(rowOf(1L, "x"));
                output.writer().finish();
                throw new InputException("boom");
            }
        }).isInstanceOf(InputException.class).hasMessage("boom");
        assertThat(filesIn(dir)).isZero();
    }

    @Test
    void resultOutputWritesHeaderAndRowsOnCommit() throws IOException {
        Path target = dir.resolve("r.csv");
        try (AtomicOutputFile file = AtomicOutputFile.create(target, "the output file");
             ResultOutput output = ResultOutput.open(file, System.out, csv("left.id", "v"))) {
            output.writer().write(rowOf(7L, null));
            output.writer().finish();
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

    private static ResultOutput.WriterFactory csv(String... header) {
        return stream -> BatchCsvWriter.open(stream, CsvCompression.NONE, (byte) ',', header,
                new PrimitiveType[header.length]);
    }

    /** One row: a BIGINT and a VARCHAR (null: NULL). */
    private static Batch rowOf(long id, String text) {
        Batch batch = new Batch(Schema.of(Column.of("id", ColumnType.BIGINT), Column.of("v", ColumnType.VARCHAR)), 1);
        batch.column(0).setLong(0, id);
        if (text == null) {
            batch.column(1).setNull(0);
        } else {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            batch.column(1).setBytes(0, bytes, 0, bytes.length);
        }
        batch.setRowCount(1);
        return batch;
    }
}
