package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code --output} and {@code --stats} targets of a join (null when not given), resolved and checked before
 * anything is read: a target written whole (a regular file, new or existing) must not be one of the input files (each
 * part file of a Parquet directory or glob input too, {@link InputFiles}) nor the other target, compared by the entry
 * they reach ({@link OutputTarget#wouldReplace}: links, hard links, {@code ./a.csv} and {@code d/../a.csv} included),
 * so a mistyped flag cannot replace data with the join's result; a target written in place (a FIFO, a device) must
 * not be an input either ({@link OutputTarget#writesInto}). {@link #open()} then sweeps the targets' directories
 * for leftover temporaries and opens both targets up front, so an unwritable {@code --stats} fails before the join, not
 * after the output is in place.
 */
record OutputTargets(OutputTarget output, OutputTarget stats) {
    /** Resolves and checks the targets against the inputs {@code left} and {@code right} (usage error on a clash). */
    static OutputTargets check(Path output, Path stats, InputFiles left, InputFiles right) {
        OutputTarget outputTarget = output == null ? null
                : OutputTarget.resolve("--output", output, "the output file");
        OutputTarget statsTarget = stats == null ? null : OutputTarget.resolve("--stats", stats, "the stats file");
        for (OutputTarget target : new OutputTarget[] {outputTarget, statsTarget}) {
            if (target != null) {
                refuseClash(target, left);
                refuseClash(target, right);
            }
        }
        if (outputTarget != null && statsTarget != null && outputTarget.wouldReplace(statsTarget.destination())) {
            throw new UsageException("--output " + output + " and --stats " + stats + " are the same file; one"
                    + " would overwrite the other: give two different files");
        }
        return new OutputTargets(outputTarget, statsTarget);
    }

    private static void refuseClash(OutputTarget target, InputFiles input) {
        for (Path file : input.files()) {
            if (target.wouldReplace(file)) {
                String what = input.hasPartFiles() ? "the part file " + file + " of the input " : "the input file ";
                throw new UsageException(target.flag() + " " + target.given() + " is " + what + input.flag() + " "
                        + input.given() + "; writing it would destroy the input: write the result to another file");
            }
            if (target.writesInto(file)) {
                throw new UsageException(target.flag() + " " + target.given() + " is the input " + input.flag() + " "
                        + input.given() + " itself, a pipe or device the run would both read and write (a FIFO"
                        + " waits for ever): write the result elsewhere");
            }
        }
    }

    /**
     * Sweeps the directories the targets are written in ({@link LeftoverOutputSweep}), then opens the output and
     * the stats target; on a failure nothing opened is left behind.
     */
    RunOutputs open() {
        LeftoverOutputSweep.Result swept = sweep(output);
        if (stats != null && (output == null || !sameDirectory(output, stats))) {
            swept = swept.plus(sweep(stats));
        }
        OutputFile rows = output == null ? null : output.open();
        try {
            return new RunOutputs(rows, stats == null ? null : stats.open(), swept);
        } catch (RuntimeException e) {
            if (rows != null) {
                rows.close();
            }
            throw e;
        }
    }

    private static boolean sameDirectory(OutputTarget a, OutputTarget b) {
        try {
            return Files.isSameFile(a.destination().getParent(), b.destination().getParent());
        } catch (IOException e) {
            return false;
        }
    }

    private static LeftoverOutputSweep.Result sweep(OutputTarget target) {
        return target == null || target.inPlace() ? LeftoverOutputSweep.Result.NONE
                : LeftoverOutputSweep.sweep(target.destination().getParent());
    }
}
