package dev.spilljoin.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Private devices and FIFOs for tests, made in the test's own temporary directory (never the system's), and
 * the type bits of an entry. A test that needs what the machine cannot make is skipped, saying why.
 */
final class SpecialFiles {
    static final int TYPE_MASK = 0170000;
    static final int CHARACTER_DEVICE = 0020000;
    static final int FIFO = 0010000;
    static final int REGULAR = 0100000;
    static final int LINK = 0120000;

    private SpecialFiles() {
    }

    /** A character device with the numbers of a null device (1, 3), private to the test at {@code path}. */
    static Path nullDevice(Path path) {
        run("mknod", path.toString(), "c", "1", "3");
        return path;
    }

    static Path fifo(Path path) {
        run("mkfifo", path.toString());
        return path;
    }

    /** Reads {@code fifo} to its end on another thread (its open waits for a writer). */
    static CompletableFuture<String> readAsync(Path fifo) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readString(fifo);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The type bits of {@code path} itself (a link not followed), e.g. {@link #CHARACTER_DEVICE}. */
    static int type(Path path) throws IOException {
        return (int) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & TYPE_MASK;
    }

    /** Runs {@code command}; skips the test (an assumption, with the reason) when it is missing or refused. */
    static void run(String... command) {
        String output;
        int code;
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            code = process.waitFor();
        } catch (IOException e) {
            output = e.getMessage();
            code = -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assumeTrue(code == 0, "cannot run " + String.join(" ", command) + " on this machine (" + output.strip()
                + "); the case needing it is not tested here");
    }
}
