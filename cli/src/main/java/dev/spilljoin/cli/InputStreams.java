package dev.spilljoin.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** What kind of thing an input path is, as the planner and the readers need to know it. */
final class InputStreams {
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

    /** True when {@code path} can be read twice and has a size: a regular file that is not compressed. */
    static boolean isPlainFile(Path path) {
        return !isStandardInput(path) && Files.isRegularFile(path) && CsvCompression.of(path) == CsvCompression.NONE;
    }
}
