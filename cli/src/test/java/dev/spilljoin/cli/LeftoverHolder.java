package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A second process for {@link LeftoverOutputSweepTest}: opens an {@link AtomicOutputFile} for the path given,
 * prints its temporary's path, and holds it (and its lock) until killed or until its standard input closes.
 */
final class LeftoverHolder {
    private LeftoverHolder() {
    }

    public static void main(String[] args) throws IOException {
        AtomicOutputFile file = AtomicOutputFile.create(Path.of(args[0]), "the held file");
        System.out.println(file.temporary());
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold the temporary while the test sweeps
        }
        file.close();
    }
}
