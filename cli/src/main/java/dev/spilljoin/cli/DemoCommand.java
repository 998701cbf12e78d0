package dev.spilljoin.cli;

import dev.spilljoin.spill.ByteSize;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code spilljoin demo}: writes two CSV or Parquet ({@code --format}) files larger than the budget ({@link DemoData}) into a fresh temporary
 * directory, joins them (orders with customers) writing output and stats there, prints the stats, and deletes
 * the directory whatever happens. {@code --format csv,parquet} runs the demo in each format in turn, in one process
 * (what the launcher's class archive is trained on, so that both formats' classes and profiles are in it).
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Makes two CSV (or Parquet) files larger than the budget in a temporary directory, joins them,"
                + " prints the stats and deletes everything.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--rows", paramLabel = "N", defaultValue = "1000000",
            description = "Rows in each file. Default: ${DEFAULT-VALUE}.")
    long rows;

    @Option(names = "--work-mem", paramLabel = "SIZE", defaultValue = "16MB",
            description = "Memory budget of the join. Default: ${DEFAULT-VALUE}.")
    String workMem;

    @Option(names = "--format", paramLabel = "csv|parquet", split = ",", defaultValue = "csv",
            description = "The format of the two input files (the output is written in the same); several"
                    + " (csv,parquet) run the demo in each in turn. Default: ${DEFAULT-VALUE}.")
    List<String> formats;

    @Option(names = "--quiet", description = "No progress output on stderr.")
    boolean quiet;

    @Spec
    CommandSpec spec;

    /** How Ctrl-C reaches the join: set by {@code Main.run}. */
    Cancellation cancellation;

    @Override
    public Integer call() throws IOException {
        long budget = JoinPlanner.parseWorkMem(workMem);
        if (rows < 1) {
            throw new UsageException("--rows " + rows + " must be at least 1");
        }
        List<DataFormat> inputFormats = new ArrayList<>();
        for (String format : formats) {
            inputFormats.add(DataFormat.of(format, "--format", null));
        }
        for (DataFormat inputFormat : inputFormats) {
            run(inputFormat, budget);
        }
        return ExitCodes.SUCCESS;
    }

    /** One demo in {@code inputFormat}: its files, its join, its stats printed; its directory deleted. */
    private void run(DataFormat inputFormat, long budget) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path dir = createDirectory();
        try {
            DemoData.Inputs inputs = DemoData.write(dir, rows, inputFormat);
            long leftBytes = Files.size(inputs.left());
            long rightBytes = Files.size(inputs.right());
            if (!quiet) {
                err.println("demo: wrote " + inputs.left().getFileName() + " (" + ByteSize.format(leftBytes)
                        + ") and " + inputs.right().getFileName() + " (" + ByteSize.format(rightBytes) + ") in " + dir
                        + "; budget " + ByteSize.format(budget));
            }
            if (Math.min(leftBytes, rightBytes) <= budget) {
                err.println("demo: note: a file is not larger than the budget, so the join may not spill;"
                        + " raise --rows or lower --work-mem");
            }
            Path stats = dir.resolve("stats.json");
            JoinPlan plan = JoinPlanner.plan(new JoinOptions(inputs.left(), inputs.right(), DemoData.ON,
                    JoinKind.INNER, workMem,
                    dir.resolve(inputFormat == DataFormat.PARQUET ? "joined.parquet" : "joined.csv"), stats, dir, null, false, null, null,
                    OnError.FAIL, quiet, null, JoinOptions.FormatOptions.BY_EXTENSION, null));
            JoinRunner.run(plan, OutputStream.nullOutputStream(), err, System.nanoTime(), cancellation);
            out.println(Files.readString(stats));
        } catch (IOException e) {
            throw ResourceException.writeFailed("the demo files in " + dir, e);
        } finally {
            deleteRecursively(dir);
        }
    }

    private static Path createDirectory() {
        try {
            return Files.createTempDirectory("spilljoin-demo-");
        } catch (IOException e) {
            throw ResourceException.writeFailed("a temporary directory for the demo", e);
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException failure) throws IOException {
                Files.delete(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
