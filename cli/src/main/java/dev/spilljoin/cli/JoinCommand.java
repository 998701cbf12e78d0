package dev.spilljoin.cli;

import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code spilljoin join}: its flags (the README's "The spilljoin command"), checked by {@link JoinPlanner}, run by
 * {@link JoinRunner}.
 */
@Command(name = "join", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Joins two CSV or Parquet inputs on key columns under a memory budget; spills to disk when"
                + " needed.",
            "CSV: an unquoted empty field is NULL, a quoted empty field \"\" is the empty string (PostgreSQL COPY CSV);"
                + " key types come from --schema-left/--schema-right or from the first 10,000 rows (a pipe: from the"
                + " other input). Parquet: columns keep their types, only the columns needed are read."},
        footer = {"", "Example: spilljoin join --left orders.csv --right customers.csv --on customer_id=id"
                + " --type left --work-mem 64MB --output joined.csv"})
final class JoinCommand implements Callable<Integer> {
    @Option(names = "--left", required = true, paramLabel = "FILE",
            description = {"Left input: a CSV file (.csv.gz and .csv.zst are decompressed), - for standard input, a"
                    + " FIFO, or Parquet: a .parquet file, a directory of part files or a glob (dir/*.parquet)."})
    Path left;

    @Option(names = "--right", required = true, paramLabel = "FILE", description = "Right input, as --left.")
    Path right;

    @Option(names = "--left-format", paramLabel = "csv|parquet",
            description = "The left input's format (default: by its name: .parquet, .parq or a directory of"
                    + " .parquet files is Parquet, anything else CSV).")
    String leftFormat;

    @Option(names = "--right-format", paramLabel = "csv|parquet", description = "The right input's format.")
    String rightFormat;

    @Option(names = "--on", required = true, paramLabel = "LCOL=RCOL[,LCOL2=RCOL2]",
            description = "Key column pairs (left=right); a bare name means the same name on both sides. Names are"
                    + " spelled as messages print them: \\xff for a byte that is not UTF-8, \\\\ for a backslash.")
    String on;

    @Option(names = "--type", paramLabel = "TYPE", defaultValue = "inner", converter = JoinKindConverter.class,
            description = "inner, left, right, full, semi, anti or not-in (semi/anti/not-in return left rows;"
                    + " not-in takes one key pair). Default: ${DEFAULT-VALUE}.")
    JoinKind type;

    @Option(names = "--work-mem", paramLabel = "SIZE", defaultValue = JoinOptions.DEFAULT_WORK_MEM,
            description = "Memory budget, e.g. 64MB or 1GB (1024-based). Default: ${DEFAULT-VALUE}.")
    String workMem;

    @Option(names = "--output", paramLabel = "FILE",
            description = {"Output file (CSV, .csv.gz, .csv.zst or .parquet), written whole or not at all (default,"
                    + " or -: standard output); a device or FIFO is written in place. Must not be an input file."})
    Path output;

    @Option(names = "--output-format", paramLabel = "csv|parquet",
            description = "The output's format (default: Parquet for a .parquet --output, else CSV; a .csv.gz or"
                    + " .csv.zst output is compressed).")
    String outputFormat;

    @Option(names = "--compression", paramLabel = "CODEC",
            description = "Parquet output page compression: snappy (default, as DuckDB), zstd, gzip or none; a"
                    + " column chunk the codec does not shrink by a sixteenth is stored uncompressed.")
    String compression;

    @Option(names = "--build-side", paramLabel = "left|right|auto",
            description = "The input the hash table is built on. auto (default): the smaller by file size (Parquet:"
                    + " footer sizes); with one input a pipe, the other one.")
    String buildSide;

    @Option(names = "--stats", paramLabel = "FILE",
            description = "Write run statistics as JSON to this file (like --output: whole, or a device in place;"
                    + " -: standard output, when the rows go to a file).")
    Path stats;

    @Option(names = "--spill-dir", paramLabel = "DIR",
            description = "Directory for spill files (default: the system temporary directory).")
    Path spillDir;

    @Option(names = "--delimiter", paramLabel = "CHAR", defaultValue = ",",
            description = "Field delimiter, one ASCII character (\\t for tab). Default: '${DEFAULT-VALUE}'.")
    String delimiter;

    @Option(names = "--no-header", description = "The files have no header line; columns are column1, column2, ...")
    boolean noHeader;

    @Option(names = "--schema-left", paramLabel = "NAME:TYPE,...",
            description = "Types of left key columns: bigint, integer, double, boolean, varchar, varbinary.")
    String schemaLeft;

    @Option(names = "--schema-right", paramLabel = "NAME:TYPE,...", description = "Types of right key columns.")
    String schemaRight;

    @Option(names = "--on-error", paramLabel = "fail|skip", defaultValue = "fail", converter = OnErrorConverter.class,
            description = "On a malformed row: stop (fail) or skip and count it (skip). Default: ${DEFAULT-VALUE}.")
    OnError onError;

    @Option(names = "--quiet", description = "No progress output on stderr.")
    boolean quiet;

    @Option(names = "--threads", paramLabel = "N",
            description = {"Threads: 1 parses, joins and writes on one thread; 2 or more also parse each input ahead"
                    + " and format and write the output on threads of their own, join on N workers and encode"
                    + " Parquet output's columns on up to N threads. Default: the number of cores."})
    Integer threads;

    @Spec
    CommandSpec spec;

    /** {@code --output -} and {@code --stats -}: standard output. */
    private static final Path STANDARD_STREAM = Path.of("-");
    private static final Path STANDARD_OUTPUT_DESCRIPTOR = Path.of("/dev/stdout");

    /** Where the rows go without {@code --output}: set by {@link Main#run}. */
    OutputStream stdout;

    /** How Ctrl-C reaches the join: set by {@link Main#run}. */
    Cancellation cancellation;

    @Override
    public Integer call() {
        long start = System.nanoTime();
        JoinPlan plan = JoinPlanner.plan(options());
        JoinRunner.run(plan, stdout, spec.commandLine().getErr(), start, cancellation);
        return ExitCodes.SUCCESS;
    }

    JoinOptions options() {
        Path rows = STANDARD_STREAM.equals(output) ? null : output;
        return new JoinOptions(left, right, on, type, workMem, rows, statsTarget(rows), spillDir, delimiter, noHeader,
                schemaLeft, schemaRight, onError, quiet, threads,
                new JoinOptions.FormatOptions(leftFormat, rightFormat, outputFormat, compression), buildSide);
    }

    /**
     * The {@code --stats} target: {@code -} is standard output, taken as the descriptor {@code /dev/stdout} (written
     * in place) when the rows go to a file, and refused when they go to standard output too.
     */
    private Path statsTarget(Path rows) {
        if (!STANDARD_STREAM.equals(stats)) {
            return stats;
        }
        if (rows == null) {
            throw new UsageException("--stats - and the rows would both go to standard output: give --output FILE"
                    + " for the rows or --stats FILE for the stats");
        }
        return STANDARD_OUTPUT_DESCRIPTOR;
    }

    static final class JoinKindConverter implements ITypeConverter<JoinKind> {
        @Override
        public JoinKind convert(String value) {
            try {
                return JoinKind.parse(value);
            } catch (UsageException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    static final class OnErrorConverter implements ITypeConverter<OnError> {
        @Override
        public OnError convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "fail" -> OnError.FAIL;
                case "skip" -> OnError.SKIP;
                default -> throw new TypeConversionException("'" + value + "' is not fail or skip");
            };
        }
    }
}
