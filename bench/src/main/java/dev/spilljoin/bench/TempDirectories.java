package dev.spilljoin.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Creates and deletes the bench's scratch directories (engine databases, spill directories, CSV files). A directory
 * not deleted yet when the JVM shuts down (a run ended by Ctrl-C or SIGTERM midway, whose engines never closed) is
 * deleted by a shutdown hook, so an interrupted bench leaves no database or CSV copy behind; only a killed JVM
 * (SIGKILL) can.
 */
public final class TempDirectories {
    /** The directories created and not deleted yet. */
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TempDirectories::deleteLive, "bench-scratch-cleanup"));
    }

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
        Path directory = Files.createTempDirectory(parent, prefix);
        LIVE.add(directory);
        return directory;
    }

    /** Deletes {@code directory} and everything under it; a missing directory is fine. */
    public static void deleteRecursively(Path directory) {
        if (Files.exists(directory)) {
            try (Stream<Path> paths = Files.walk(directory)) {
                for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(path);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not delete " + directory, e);
            }
        }
        LIVE.remove(directory);
    }

    /** The shutdown hook: deletes what is left, as far as it can (an engine may still be writing into it). */
    private static void deleteLive() {
        for (Path directory : LIVE) {
            try {
                deleteRecursively(directory);
            } catch (UncheckedIOException e) {
                System.err.println("bench: " + e.getMessage());
            }
        }
    }
}
