package dev.spilljoin.cli;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.spill.ByteSize;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.stream.IntStream;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Turns {@link JoinOptions} into a {@link JoinPlan}, failing early with one clear message: flags first
 * (usage, exit 2), then the output targets ({@link OutputTargets}: one naming an input is usage, a missing
 * directory resources), then the files (input, exit 3), then the columns and key types (usage, exit 2).
 *
 * <p>Key types: a key column named in {@code --schema-left/--schema-right} has that type; any other key column
 * is inferred from the first {@value KeyTypeInference#SAMPLE_ROWS} rows ({@link KeyTypeInference}); each pair
 * is then compared as {@link LogicalKeyPairing#pair} says when a column of it is a Parquet one of a logical type,
 * else as {@link KeyTypeInference#compareType}. Reading the sample means opening each file twice
 * (the join pass starts again from the top), which costs at most 10,000 rows.
 */
public final class JoinPlanner {
    /** The smallest budget accepted: the operator's minimum (spill writers for its partitions, a page, a table). */
    public static final long MINIMUM_WORK_MEM = HashJoin.minimumBudget(JoinConfig.DEFAULT);

    private JoinPlanner() {
    }

    public static JoinPlan plan(JoinOptions options) {
        long workMem = parseWorkMem(options.workMem() == null ? JoinOptions.DEFAULT_WORK_MEM : options.workMem());
        CsvFormat format = new CsvFormat(
                options.delimiter() == null ? (byte) ',' : CsvFormat.parseDelimiter(options.delimiter()),
                !options.noHeader());
        JoinKind kind = options.type() == null ? JoinKind.INNER : options.type();
        OnError onError = options.onError() == null ? OnError.FAIL : options.onError();
        int threads = options.threads() == null ? Runtime.getRuntime().availableProcessors() : options.threads();
        if (threads < 1) {
            throw new UsageException("--threads " + threads + " must be at least 1 (1 runs the whole join on one"
                    + " thread)");
        }
        KeyPairs on = KeyPairs.parse(options.on());
        if (kind == JoinKind.NOT_IN && on.size() != 1) {
            throw new UsageException("--type not-in takes exactly one key pair, but --on gives " + on.size()
                    + "; use --type anti for a multi-column anti join");
        }
        if (options.left() != null && options.right() != null
                && InputStreams.sameStream(options.left(), options.right())) {
            throw new UsageException("--left " + options.left() + " and --right " + options.right() + " are the same"
                    + " pipe, which can be read only once (each side would get part of its rows): save it to a file"
                    + " first and give that file as both inputs");
        }
        Schema leftSchema = Schema.parse(options.schemaLeft(), "--schema-left");
        Schema rightSchema = Schema.parse(options.schemaRight(), "--schema-right");
        JoinOptions.FormatOptions formats = options.formats() == null ? JoinOptions.FormatOptions.BY_EXTENSION
                : options.formats();
        DataFormat leftFormat = DataFormat.of(formats.left(), "--left-format", options.left());
        DataFormat rightFormat = DataFormat.of(formats.right(), "--right-format", options.right());
        OutputTargets outputs = OutputTargets.check(options.output(), options.stats(),
                InputFiles.of("--left", options.left(), leftFormat),
                InputFiles.of("--right", options.right(), rightFormat));
        Path spillDir = checkSpillDirectory(options.spillDir());

        Probe left = leftFormat == DataFormat.PARQUET
                ? probeParquet("left", options.left(), on.leftNames(), leftSchema, true)
                : probe("left", options.left(), format, onError, on.leftNames(), leftSchema);
        Probe right;
        try {
            right = rightFormat == DataFormat.PARQUET
                    ? probeParquet("right", options.right(), on.rightNames(), rightSchema, !kind.leftColumnsOnly())
                    : probe("right", options.right(), format, onError, on.rightNames(), rightSchema);
        } catch (RuntimeException e) {
            left.close();
            throw e;
        }
        try {
            return plan(options, kind, workMem, format, onError, threads, outputs, spillDir, formats, left, right);
        } catch (RuntimeException e) {
            left.close();
            right.close();
            throw e;
        }
    }

    /** The plan from the two probes (a pipe's probe holds its open reader, which the plan hands to the join). */
    private static JoinPlan plan(JoinOptions options, JoinKind kind, long workMem, CsvFormat format, OnError onError,
                                 int threads, OutputTargets outputs, Path spillDir, JoinOptions.FormatOptions formats,
                                 Probe left, Probe right) {
        int keys = left.keyColumns.length;
        ColumnType[] keyTypes = new ColumnType[keys];
        KeyType[] leftReads = new KeyType[left.names.length];
        KeyType[] rightReads = new KeyType[right.names.length];
        String[] leftHints = new String[left.names.length];
        String[] rightHints = new String[right.names.length];
        for (int k = 0; k < keys; k++) {
            int pair = k;
            KeyTypeInference.PairType types = LogicalKeyPairing.pair(key(left, k), key(right, k),
                    fix -> mismatch(left, right, pair, fix));
            if (types == null) {
                types = KeyTypeInference.compareType(left.keyTypes[k], right.keyTypes[k],
                        () -> mismatch(left, right, pair, oneTypeFix(left, right, pair)));
            }
            keyTypes[k] = types.type();
            assignType(leftReads, left, k, types.left());
            assignType(rightReads, right, k, types.right());
            checkParquetKey(left, right, k, types.left());
            checkParquetKey(right, left, k, types.right());
            leftHints[left.keyColumns[k]] = badValueHint(left, right, k);
            rightHints[right.keyColumns[k]] = badValueHint(left, right, k);
        }
        InputSide leftSide = new InputSide("left", options.left(), format, onError, left.names, left.keyColumns,
                KeyReading.of(leftReads, leftHints), left.parquet, left.opened);
        InputSide rightSide = new InputSide("right", options.right(), format, onError, right.names,
                right.keyColumns, KeyReading.of(rightReads, rightHints), right.parquet, right.opened);
        String[] outputNames = OutputColumns.names(left.names, right.names, kind);
        ResultFormat output = ResultFormat.of(formats, options.output());
        return new JoinPlan(kind, leftSide, rightSide, keyTypes, outputNames, workMem, outputs, spillDir,
                options.quiet(), threads, output, buildSide(options.buildSide(), left, right));
    }

    /**
     * {@code --build-side} (left, right or auto; null: auto); auto with one input a pipe (no size, and maybe no end
     * soon) builds on the other, whose size is known; else null: the operator builds on the smaller by the hints.
     */
    private static Side buildSide(String given, Probe left, Probe right) {
        String side = given == null ? "auto" : given.trim().toLowerCase(Locale.ROOT);
        return switch (side) {
            case "left" -> Side.LEFT;
            case "right" -> Side.RIGHT;
            case "auto" -> left.opened != null && right.opened == null ? Side.RIGHT
                    : right.opened != null && left.opened == null ? Side.LEFT : null;
            default -> throw new UsageException("--build-side '" + given + "' is not left, right or auto");
        };
    }

    /** Parses a {@code --work-mem} value and checks it against {@link #MINIMUM_WORK_MEM}. */
    public static long parseWorkMem(String text) {
        long bytes;
        try {
            bytes = ByteSize.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--work-mem " + e.getMessage(), e);
        }
        if (bytes < MINIMUM_WORK_MEM) {
            throw new UsageException("--work-mem " + text + " is below the minimum of "
                    + ByteSize.format(MINIMUM_WORK_MEM) + "; give at least that much");
        }
        return bytes;
    }

    /**
     * What one file says about the join: its columns, its key columns, and their declared or inferred types (a
     * Parquet input's: its own, with {@code parquet} its part files, projected to {@code names}), and the
     * {@code --schema} flag it was given (for hints that keep its entries).
     */
    private record Probe(String role, Path file, String[] names, int[] keyColumns, KeyType[] keyTypes,
                         boolean[] declared, ParquetInput parquet, CsvReader opened, Schema schema) {
        void close() {
            if (opened != null) {
                opened.close();
            }
        }
    }

    /**
     * Probes a Parquet input from its footers: every column when the output returns this side
     * ({@code allColumns}), else its key columns only (projection pushdown); key types are the columns' own.
     */
    private static Probe probeParquet(String role, Path file, List<String> keyNames, Schema schema,
                                      boolean allColumns) {
        if (file == null) {
            throw new UsageException("--" + role + " is required: give the " + role + " input");
        }
        if (!schema.types().isEmpty()) {
            throw new UsageException("--schema-" + role + " does not apply to the Parquet input " + file + ": its"
                    + " column types come from the file; drop the flag");
        }
        if (InputStreams.isPipe(file)) {
            throw new InputException("cannot read the Parquet input --" + role + " " + file + " from a pipe or"
                    + " stream: Parquet needs random access to the footer at the end of the file; write it to a file"
                    + " first and give that file");
        }
        ParquetInput all = ParquetInput.open(role, file);
        int keys = keyNames.size();
        int[] fileKeys = new int[keys];
        for (int k = 0; k < keys; k++) {
            all.checkFirstPartHas(keyNames.get(k));
            fileKeys[k] = columnIndex(all.names(), keyNames.get(k), file, "--on");
        }
        int[] read = allColumns ? IntStream.range(0, all.names().length).toArray()
                : IntStream.of(fileKeys).distinct().sorted().toArray();
        ParquetInput projected = all.project(read);
        int[] keyColumns = new int[keys];
        KeyType[] keyTypes = new KeyType[keys];
        for (int k = 0; k < keys; k++) {
            keyColumns[k] = columnIndex(projected.names(), keyNames.get(k), file, "--on");
            keyTypes[k] = ParquetColumnType.keyType(projected.types()[keyColumns[k]]);
        }
        boolean[] declared = new boolean[keys];
        Arrays.fill(declared, true);
        return new Probe(role, file, projected.names(), keyColumns, keyTypes, declared, projected, null, Schema.NONE);
    }

    /**
     * A Parquet side's key column is read as its own type: a pair whose comparison would need it read otherwise
     * (as number text against a CSV column of decimals, say) is refused, with the fix for the sides' formats
     * ({@link #oneTypeFix}).
     */
    private static void checkParquetKey(Probe side, Probe other, int pair, KeyType read) {
        if (side.parquet == null) {
            return;
        }
        int c = side.keyColumns[pair];
        if (read.numberText() != null
                || ChunkConverter.heldAs(read.type()) != ParquetColumnType.heldAs(side.parquet.types()[c])) {
            throw new UsageException("key column '" + side.names[c] + "' of the Parquet input " + side.file
                    + " is " + ParquetColumnType.describe(side.parquet.types()[c]) + " but its partner '"
                    + other.names[other.keyColumns[pair]] + "' in " + other.file + " is " + describe(other, pair)
                    + "; " + oneTypeFix(side, other, pair));
        }
    }

    private static Probe probe(String role, Path file, CsvFormat format, OnError onError, List<String> keyNames,
                               Schema schema) {
        if (file == null) {
            throw new UsageException("--" + role + " is required: give the " + role + " CSV file");
        }
        boolean pipe = InputStreams.isPipe(file);
        if (pipe && !format.header()) {
            throw new UsageException("--no-header cannot read the pipe " + file + " (its first line would be needed"
                    + " twice); give it a header line or save it to a file first");
        }
        CsvReader reader = new CsvReader(file, format, onError);
        boolean handedOver = false;
        try {
            String[] names = reader.columnNames();
            for (String declaredName : schema.types().keySet()) {
                columnIndex(names, declaredName, file, "--schema-" + role);
            }
            int keys = keyNames.size();
            int[] keyColumns = new int[keys];
            KeyType[] keyTypes = new KeyType[keys];
            boolean[] declared = new boolean[keys];
            int undeclaredCount = 0;
            for (int k = 0; k < keys; k++) {
                keyColumns[k] = columnIndex(names, keyNames.get(k), file, "--on");
                ColumnType declaredType = schema.typeOf(keyNames.get(k));
                keyTypes[k] = declaredType == null ? null : KeyType.of(declaredType);
                declared[k] = keyTypes[k] != null;
                if (!declared[k]) {
                    undeclaredCount++;
                }
            }
            if (undeclaredCount > 0 && !pipe) {
                int[] undeclared = new int[undeclaredCount];
                for (int k = 0, u = 0; k < keys; k++) {
                    if (!declared[k]) {
                        undeclared[u++] = keyColumns[k];
                    }
                }
                KeyType[] inferred = KeyTypeInference.infer(reader, undeclared);
                for (int k = 0, u = 0; k < keys; k++) {
                    if (!declared[k]) {
                        keyTypes[k] = inferred[u++];
                    }
                }
            }
            handedOver = pipe;
            return new Probe(role, file, names, keyColumns, keyTypes, declared, null, pipe ? reader : null, schema);
        } finally {
            if (!handedOver) {
                reader.close();
            }
        }
    }

    private static int columnIndex(String[] names, String name, Path file, String flag) {
        int found = -1;
        for (int c = 0; c < names.length; c++) {
            if (names[c].equals(name)) {
                if (found >= 0) {
                    throw new UsageException(flag + " names column '" + name + "', which " + file
                            + " has twice (columns " + (found + 1) + " and " + (c + 1) + "); rename one in the"
                            + " header");
                }
                found = c;
            }
        }
        if (found < 0) {
            throw new UsageException(flag + " names column '" + name + "', which " + file + " does not have;"
                    + " its columns are " + String.join(", ", Arrays.asList(names)));
        }
        return found;
    }

    /** Records how {@code side}'s column of key pair {@code pair} is read; a column in two pairs must read alike. */
    private static void assignType(KeyType[] reads, Probe side, int pair, KeyType type) {
        int c = side.keyColumns[pair];
        if (reads[c] != null && !reads[c].equals(type)) {
            throw new UsageException(side.role + " column '" + side.names[c] + "' is in two key pairs that compare"
                    + " it as " + reads[c] + " and as " + type + "; " + (side.parquet == null
                    ? "declare its type with --schema-" + side.role
                    : "pair it with keys of one type (a Parquet key's type is its file's: write the partner keys,"
                    + " or this one, again in one type)"));
        }
        reads[c] = type;
    }

    /**
     * The schema flags that read key pair {@code pair} as text on both sides (one side alone would mismatch), and
     * with it every other pair of two CSV columns whose types do not pair, keeping the entries each flag was
     * given: followed as written, they join rather than name the next mismatch or drop an entry given before.
     */
    private static String textSchemas(Probe left, Probe right, int pair) {
        Map<String, String> leftEntries = entries(left.schema);
        Map<String, String> rightEntries = entries(right.schema);
        for (int k = 0; k < left.keyColumns.length; k++) {
            boolean bothCsv = left.parquet == null && right.parquet == null;
            if (k == pair || bothCsv && !pairs(left.keyTypes[k], right.keyTypes[k])) {
                leftEntries.put(left.names[left.keyColumns[k]], "varchar");
                rightEntries.put(right.names[right.keyColumns[k]], "varchar");
            }
        }
        return "--schema-left '" + spelled(leftEntries) + "' --schema-right '" + spelled(rightEntries) + "'";
    }

    /** A schema's entries, name to type as {@code --schema} spells it, in the order given. */
    private static Map<String, String> entries(Schema schema) {
        Map<String, String> entries = new LinkedHashMap<>();
        schema.types().forEach((name, type) -> entries.put(name, type.name().toLowerCase(Locale.ROOT)));
        return entries;
    }

    private static String spelled(Map<String, String> entries) {
        StringJoiner text = new StringJoiner(",");
        entries.forEach((name, type) -> text.add(name + ":" + type));
        return text.toString();
    }

    /** True when two CSV key columns of these types (null: none of its own) pair. */
    private static boolean pairs(KeyType left, KeyType right) {
        try {
            KeyTypeInference.compareType(left, right, () -> new UsageException("the types do not pair"));
            return true;
        } catch (UsageException mismatch) {
            return false;
        }
    }

    /** {@code side}'s column of key pair {@code pair}, for {@link LogicalKeyPairing}. */
    private static LogicalKeyPairing.Key key(Probe side, int pair) {
        PrimitiveType parquet = side.parquet == null ? null : side.parquet.types()[side.keyColumns[pair]];
        return new LogicalKeyPairing.Key(side.keyTypes[pair], parquet, side.declared[pair], side.role,
                side.names[side.keyColumns[pair]]);
    }

    private static UsageException mismatch(Probe left, Probe right, int pair, String fix) {
        String leftName = left.names[left.keyColumns[pair]];
        String rightName = right.names[right.keyColumns[pair]];
        return new UsageException("key columns of different types: left '" + leftName + "' is "
                + describe(left, pair) + ", right '" + rightName + "' is " + describe(right, pair) + "; " + fix);
    }

    /**
     * How to give key pair {@code pair} one type, by the two sides' formats: two CSV sides are read as text
     * ({@link #textSchemas}); a CSV side declares its Parquet partner's type with its own {@code --schema} flag;
     * two Parquet columns have the types their files give (no flag changes them), so one file is written again with
     * its key cast. A Parquet side is never told to take a {@code --schema} flag, which it refuses.
     */
    private static String oneTypeFix(Probe a, Probe b, int pair) {
        if (a.parquet == null && b.parquet == null) {
            return "give both one type, e.g. " + (a.role.equals("left") ? textSchemas(a, b, pair)
                    : textSchemas(b, a, pair));
        }
        if (a.parquet != null && b.parquet != null) {
            return "both are Parquet columns, typed by their files (no flag changes them): write one file again"
                    + " with its key cast to the other's type";
        }
        Probe parquet = a.parquet != null ? a : b;
        Probe csv = parquet == a ? b : a;
        return "declare the CSV side's key as the Parquet column's type, e.g. --schema-" + csv.role + " '"
                + csv.names[csv.keyColumns[pair]] + ":" + parquetKeyType(parquet, pair)
                + "' (a Parquet column's type comes from its file)";
    }

    /**
     * For a CSV side's key value in pair {@code pair} that does not parse as the pair's type, what to do besides
     * fixing it: read the pair as text (two CSV sides), or skip such rows (with a Parquet partner, typed by its
     * file, reading the pair as text is no way out).
     */
    private static String badValueHint(Probe left, Probe right, int pair) {
        Probe parquet = left.parquet != null ? left : right.parquet != null ? right : null;
        if (parquet == null) {
            return "compare the key as text with " + textSchemas(left, right, pair);
        }
        PrimitiveType logical = parquet.keyTypes[pair].logical();
        return "skip such rows with --on-error skip (the partner '" + parquet.names[parquet.keyColumns[pair]]
                + "' is a Parquet " + (logical != null ? ParquetColumnType.describe(logical)
                : parquetKeyType(parquet, pair)) + " column, typed by its file)";
    }

    /** The {@code --schema} spelling of a Parquet side's key type in pair {@code pair}. */
    private static String parquetKeyType(Probe parquet, int pair) {
        return ParquetColumnType.keyType(parquet.parquet.types()[parquet.keyColumns[pair]]).type().name()
                .toLowerCase(Locale.ROOT);
    }

    private static String describe(Probe side, int pair) {
        if (side.parquet != null && side.keyTypes[pair].logical() != null) {
            return "Parquet " + side.keyTypes[pair] + " in " + side.file;
        }
        if (side.parquet != null) {
            return side.keyTypes[pair] + " (Parquet " + ParquetColumnType.describe(
                    side.parquet.types()[side.keyColumns[pair]]) + " in " + side.file + ")";
        }
        return side.keyTypes[pair] + (side.declared[pair] ? " (from --schema-" + side.role + ")"
                : " (inferred from the first " + KeyTypeInference.SAMPLE_ROWS + " rows of " + side.file + ")");
    }

    private static Path checkSpillDirectory(Path given) {
        Path dir = given != null ? given : Path.of(System.getProperty("java.io.tmpdir"));
        if (!Files.isDirectory(dir)) {
            throw new ResourceException("the spill directory " + dir + " does not exist or is not a directory;"
                    + " create it or choose another with --spill-dir");
        }
        if (!Files.isWritable(dir)) {
            throw new ResourceException("the spill directory " + dir + " is not writable; fix its permissions or"
                    + " choose another with --spill-dir");
        }
        return dir;
    }
}
