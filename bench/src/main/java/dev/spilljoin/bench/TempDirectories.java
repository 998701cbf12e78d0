package dev.spilljoin.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Creates and deletes the bench's scratch directories (engine databases, spill directories, CSV files). */
final class TempDirectories {

    private TempDirectories() {
    }

    /** A fresh directory under {@code -Dbench.tmpdir} (default: java.io.tmpdir). */
    static Path create(String prefix) throws IOException {
        String base = System.getProperty("bench.tmpdir", System.getProperty("java.io.tmpdir"));
        Path parent = Path.of(base);
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, prefix);
    }

    /** Deletes {@code directory} and everything under it; a missing directory is fine. */
    static void deleteRecursively(Path directory) {
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
