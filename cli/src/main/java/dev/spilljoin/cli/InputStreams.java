package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What kind of thing an input path is, as the planner and the readers need to know it. */
final class InputStreams {
    /** Standard input as a path, to compare {@code -} with a FIFO or {@code /dev/fd/N} naming the same pipe. */
    private static final Path STANDARD_INPUT = Path.of("/dev/stdin");

    private InputStreams() {
    }

    /** True for {@code -}: standard input. */
    static boolean isStandardInput(Path path) {
        return path.toString().equals("-");
    }

    /**
     * True for an input that can be read only once and has no size: standard input, a FIFO (process substitution's
     * {@code /dev/fd/N} too) or a character device.
     */
    static boolean isPipe(Path path) {
        return isStandardInput(path) || Files.exists(path) && !Files.isRegularFile(path) && !Files.isDirectory(path);
    }

    /**
     * True when {@code a} and {@code b} are one stream ({@link #isPipe}): {@code -} twice, one FIFO under two names
     * or links, or {@code -} and the {@code /dev/fd/N} of standard input. Two readers of it would each get part of
     * its bytes.
     */
    static boolean sameStream(Path a, Path b) {
        if (!isPipe(a) || !isPipe(b)) {
            return false;
        }
        try {
            return Files.isSameFile(isStandardInput(a) ? STANDARD_INPUT : a, isStandardInput(b) ? STANDARD_INPUT : b);
        } catch (IOException e) {
            return false; // one of them cannot be looked at: not known to be the other, and opening it reports why
        }
    }

    /** True when {@code path} can be read twice and has a size: a regular file that is not compressed. */
    static boolean isPlainFile(Path path) {
        return !isStandardInput(path) && Files.isRegularFile(path) && CsvCompression.of(path) == CsvCompression.NONE;
    }
}
