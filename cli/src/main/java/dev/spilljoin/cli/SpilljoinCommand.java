package dev.spilljoin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code spilljoin} command: only dispatches to {@code join} and {@code demo}. */
@Command(name = "spilljoin", mixinStandardHelpOptions = true, version = "spilljoin 0.1.0",
        description = "Joins two CSV files of any size under a memory budget (a hybrid hash join that spills).",
        subcommands = {JoinCommand.class, DemoCommand.class},
        footer = {"", "Exit codes: 0 success, 2 usage, 3 input, 4 resources (disk, spill directory), 130 interrupted,"
                + " 1 anything else."})
final class SpilljoinCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: use 'join' or 'demo'");
    }
}
