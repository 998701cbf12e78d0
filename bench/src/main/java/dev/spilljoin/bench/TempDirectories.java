package dev.spilljoin.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Creates and deletes the bench's scratch directories (engine databases, spill directories, CSV files). */
public final class TempDirectories {

    private TempDirectories() {
    }

    /** Where scratch directories go: {@code -Dbench.tmpdir} (default: java.io.tmpdir). */
    public static Path root() {
        return Path.of(System.getProperty("bench.tmpdir", System.getProperty("java.io.tmpdir")));
    }

    /** A fresh directory under {@link #root()}. */
    public static Path create(String prefix) throws IOException {
        Path parent = root();
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, prefix);
    }

    /** Deletes {@code directory} and everything under it; a missing directory is fine. */
    public static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + directory, e);
        }
    }
}
