package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A second process for {@link NativeLibraryDirectoryTest}. {@code hold BASE}: makes a {@link NativeLibraryDirectory}
 * in BASE, prints its path, and holds it (and its lock) until killed or until its standard input closes.
 * {@code load}: loads snappy-java's library as a run does ({@link SnappyLibrary#load()}, with
 * {@code -Dorg.xerial.snappy.tempdir} set by the test) and exits.
 */
final class NativeLibraryDirectoryHolder {
    private NativeLibraryDirectoryHolder() {
    }

    public static void main(String[] args) throws IOException {
        if (args[0].equals("load")) {
            SnappyLibrary.load();
            return;
        }
        try (NativeLibraryDirectory directory = NativeLibraryDirectory.create(Path.of(args[1]),
                SnappyLibrary.DIRECTORY_PREFIX)) {
            System.out.println(directory.path());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the directory while the test sweeps
            }
        }
    }
}
