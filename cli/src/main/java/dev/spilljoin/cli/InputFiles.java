package dev.spilljoin.cli;

import java.nio.file.Path;
import java.util.List;

/**
 * The files one input of a join reads, as the output targets' check needs them ({@link OutputTargets}): a Parquet
 * directory's or glob's part files ({@link ParquetInput#partFiles}), else the path as given (a CSV file, a single
 * Parquet file, a pipe). A Parquet input whose part files cannot be listed counts as its path: the plan reports
 * why when it opens the input, after the targets are checked.
 *
 * @param flag  {@code --left} or {@code --right}, for messages
 * @param given the path as given, or null when the flag is missing
 * @param files the files read, empty when the flag is missing
 */
record InputFiles(String flag, Path given, List<Path> files) {
    /** The files the input {@code given} of {@code flag} reads as {@code format}. */
    static InputFiles of(String flag, Path given, DataFormat format) {
        if (given == null) {
            return new InputFiles(flag, null, List.of());
        }
        if (format == DataFormat.PARQUET) {
            try {
                return new InputFiles(flag, given, ParquetInput.partFiles(flag.substring(2), given));
            } catch (InputException unlisted) {
                // no part files to list (missing, a pipe): the path itself, which the plan then refuses
            }
        }
        return new InputFiles(flag, given, List.of(given));
    }

    /** True when the input is read from part files of a directory or glob rather than from the path given. */
    boolean hasPartFiles() {
        return !files.equals(List.of(given));
    }
}
