package dev.spilljoin.it;

import dev.spilljoin.it.FuzzInput.KeyStyle;
import dev.spilljoin.it.FuzzKeyTyping.Inferred;
import dev.spilljoin.it.FuzzKeyTyping.Pairing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * One case of the CLI fuzz test, drawn from its seed: two inputs with keys of random styles (so that the inferred
 * types vary, usage errors included), duplicate, hot, NULL and empty keys, payloads of awkward text, one or two
 * key pairs, a join type, delimiter, header or not, gzip or not on each side, CSV, gzip or Parquet output,
 * threads, budget and build side; now and then malformed records, one side read from a FIFO (typed as its
 * partner), or one side longer than the inference sample with later keys that may not read as inferred, each
 * skipped and counted or failing the run; the files written into the case's directory, and the
 * {@code spilljoin join} arguments.
 */
final class FuzzCase {
    private static final String[] TYPES = {"inner", "left", "right", "full", "semi", "anti", "not-in"};
    private static final String[] BUDGETS = {"60kB", "64kB", "64kB", "100kB", "128kB", "256kB", "1MB", "64MB"};
    private static final int[] THREADS = {1, 2, 4};
    /** Also characters that keys, keys as written and names hold: {@code -5}, {@code 1.0E20}, {@code NaN}. */
    private static final char[] DELIMITERS = {
        ',', ',', ',', ',', ',', ',', ';', '\t', '|', ' ', '-', '.', 'e', 'E', '0', '1', 'k', 'N', 'a', 'I', 't', 'f',
    };
    private static final String[] OUTPUTS = {"out.csv", "out.csv", "out.csv", "out.csv.gz", "out.parquet"};
    private static final String[] BUILD_SIDES = {"auto", "left", "right"};
    private static final KeyStyle[][] STYLE_GROUPS = {
        {KeyStyle.BIGINT, KeyStyle.WIDE_INTEGER, KeyStyle.DOUBLE_OF_INTEGERS, KeyStyle.DECIMAL},
        {KeyStyle.LEADING_ZEROS, KeyStyle.TEXT},
        {KeyStyle.BOOLEAN},
    };
    /** Weights of the groups above: booleans, having two values, make the fewest interesting cases. */
    private static final int[] GROUP_DRAWS = {0, 0, 0, 0, 1, 1, 1, 2};
    private static final int LONG_FIELD_SMALL_BUDGET = 1_500;
    private static final int LONG_FIELD = 10_000;
    /** The most rows of the hot key the right side has when both sides have it: bounds the output. */
    private static final int HOT_PARTNERS = 30;
    /** Rows of the hot key a side has when both sides have it as wide rows of HEAVY_PAYLOAD characters. */
    private static final int HEAVY_ROWS = 150;
    private static final int HEAVY_PAYLOAD = 1_000;

    final long seed;
    final String type;
    /** The rows of each side the join must see: malformed records and rows whose keys do not read left out. */
    final FuzzInput left;
    final FuzzInput right;
    /** Per key pair, how it compares; null when the README makes the types a usage error. */
    final Pairing[] pairings;
    final Path spillDir;
    final Path output;
    final Path stats;
    final List<String> args;
    final char delimiter;
    /**
     * Malformed records and rows whose keys do not read as their type (in one input at most); when not 0, the run
     * fails naming {@link #firstError} (input and line) unless {@link #skip}.
     */
    final int skipped;
    final String firstError;
    final boolean skip;
    /** The FIFO one side is read from, fed with {@link #pipeData}'s bytes; null when both are files. */
    final Path pipe;
    final Path pipeData;
    /** 1 or 2 when the left or right input is longer than the inference sample, else 0. */
    final int longSide;
    private final String description;

    private FuzzCase(long seed, Path dir) throws IOException {
        this.seed = seed;
        SplittableRandom random = new SplittableRandom(seed);
        type = TYPES[random.nextInt(TYPES.length)];
        int keys = type.equals("not-in") || random.nextInt(4) > 0 ? 1 : 2;
        KeyStyle[] leftStyles = new KeyStyle[keys];
        KeyStyle[] rightStyles = new KeyStyle[keys];
        for (int k = 0; k < keys; k++) {
            KeyStyle[] group = STYLE_GROUPS[GROUP_DRAWS[random.nextInt(GROUP_DRAWS.length)]];
            leftStyles[k] = random.nextInt(10) == 0 ? KeyStyle.NULL_ONLY : group[random.nextInt(group.length)];
            KeyStyle[] rightGroup = random.nextInt(12) == 0 ? STYLE_GROUPS[random.nextInt(STYLE_GROUPS.length)] : group;
            rightStyles[k] = random.nextInt(10) == 0 ? KeyStyle.NULL_ONLY
                    : rightGroup[random.nextInt(rightGroup.length)];
        }
        boolean fewKeys = Arrays.asList(leftStyles).contains(KeyStyle.BOOLEAN)
                || Arrays.asList(rightStyles).contains(KeyStyle.BOOLEAN);
        String budget = BUDGETS[random.nextInt(BUDGETS.length)];
        int longField = budget.endsWith("MB") ? LONG_FIELD : LONG_FIELD_SMALL_BUDGET;
        boolean sharedNames = random.nextInt(3) == 0;
        boolean header = random.nextInt(10) > 0;
        // One side read from a FIFO (which needs a header): its key types are its partner's, not inferred; or else,
        // now and then, one side longer than the inference sample, whose later keys may not read as inferred.
        int pipeSide = header && random.nextInt(6) == 0 ? 1 + random.nextInt(2) : 0;
        longSide = pipeSide == 0 && !fewKeys && random.nextInt(12) == 0 ? 1 + random.nextInt(2) : 0;
        // Without a header an input needs a record: an empty file is refused (exit 3), as documented.
        int leftRows = longSide == 1 ? longRows(random) : Math.max(header ? 0 : 1, rows(random, fewKeys));
        int rightRows = longSide == 2 ? longRows(random) : Math.max(header ? 0 : 1, rows(random, fewKeys));
        int pool = Math.max(1, Math.max(leftRows, rightRows) / (1 + random.nextInt(4)));
        // A hot key on the left, on the right, on both (the right's at most HOT_PARTNERS rows), on both with wide
        // rows (about HEAVY_ROWS a side, larger than the small budgets: the nested-loop path), or none.
        int hotSide = random.nextInt(5);
        long hotIndex = pool / 3 + random.nextInt(pool - pool / 3);
        double leftHot = hotSide == 0 || hotSide == 2 ? 0.3 + 0.6 * random.nextDouble()
                : hotSide == 3 ? share(HEAVY_ROWS, leftRows) : 0;
        double rightHot = hotSide == 1 ? 0.3 + 0.6 * random.nextDouble() : hotSide == 2 ? share(HOT_PARTNERS, rightRows)
                : hotSide == 3 ? share(HEAVY_ROWS, rightRows) : 0;
        int hotPayload = hotSide == 3 ? HEAVY_PAYLOAD : 0;
        FuzzInput leftInput = side(random, "l", leftStyles,
                new Shape(leftRows, 0, pool, hotIndex, leftHot, hotPayload), sharedNames, longField);
        FuzzInput rightInput = side(random, "r", rightStyles,
                new Shape(rightRows, pool / 3, pool, hotIndex, rightHot, hotPayload), sharedNames, longField);
        delimiter = DELIMITERS[random.nextInt(DELIMITERS.length)];
        pairings = new Pairing[keys];
        Inferred[] leftReadAs = new Inferred[keys];
        Inferred[] rightReadAs = new Inferred[keys];
        for (int k = 0; k < keys; k++) {
            Inferred leftType = FuzzKeyTyping.infer(leftInput.keyValues(k));
            Inferred rightType = FuzzKeyTyping.infer(rightInput.keyValues(k));
            leftType = pipeSide == 1 ? rightType : leftType;
            rightType = pipeSide == 2 ? leftType : rightType;
            pairings[k] = FuzzKeyTyping.pair(leftType, rightType);
            leftReadAs[k] = FuzzKeyTyping.readAs(pairings[k], leftType);
            rightReadAs[k] = FuzzKeyTyping.readAs(pairings[k], rightType);
        }
        if (longSide > 0 && !mismatched()) { // past the sample: the types stay; the run with hints stays clean
            misspell(longSide == 1 ? leftInput : rightInput, random);
        }
        Path leftFile = dir.resolve("left" + (pipeSide == 1 ? ".csv" : extension(random)));
        Path rightFile = dir.resolve("right" + (pipeSide == 2 ? ".csv" : extension(random)));
        // Malformed records in one file, skipped and counted or failing the run, when the key types pair and
        // no side has keys that may not read as their type.
        boolean malformed = !mismatched() && pipeSide == 0 && longSide == 0 && random.nextInt(5) == 0;
        boolean malformedLeft = random.nextBoolean();
        double rate = 0.005 + 0.03 * random.nextDouble();
        FuzzInput.Written leftWritten = leftInput.write(leftFile, delimiter, header,
                malformed && malformedLeft ? rate : 0, random);
        FuzzInput.Written rightWritten = rightInput.write(rightFile, delimiter, header,
                malformed && !malformedLeft ? rate : 0, random);
        skip = random.nextInt(3) > 0;
        pipeData = pipeSide == 0 ? null : pipeSide == 1 ? leftFile : rightFile;
        pipe = pipeData == null ? null : dir.resolve(pipeSide == 1 ? "left.fifo" : "right.fifo");
        // Rows whose keys do not read as their type are malformed too; one side at most has problems.
        left = fitting(leftInput, leftReadAs);
        right = fitting(rightInput, rightReadAs);
        int leftProblems = leftWritten.malformed() + leftInput.rows.size() - left.rows.size();
        skipped = leftProblems + rightWritten.malformed() + rightInput.rows.size() - right.rows.size();
        boolean leftBad = leftProblems > 0;
        Path badInput = leftBad ? pipeSide == 1 ? pipe : leftFile : pipeSide == 2 ? pipe : rightFile;
        firstError = skipped == 0 ? null : badInput + " line " + (leftBad ? firstProblem(leftInput, leftReadAs,
                leftWritten) : firstProblem(rightInput, rightReadAs, rightWritten));
        output = dir.resolve(OUTPUTS[random.nextInt(OUTPUTS.length)]);
        stats = dir.resolve("stats.json");
        spillDir = Files.createDirectory(dir.resolve("spill"));
        String threads = Integer.toString(THREADS[random.nextInt(THREADS.length)]);
        String buildSide = BUILD_SIDES[random.nextInt(BUILD_SIDES.length)];
        StringBuilder on = new StringBuilder();
        for (int k = 0; k < keys; k++) {
            on.append(k == 0 ? "" : ",").append(name(left, left.keyColumns[k], header)).append('=')
                    .append(name(right, right.keyColumns[k], header));
        }
        args = new ArrayList<>(List.of("join", "--quiet", "--left", (pipeSide == 1 ? pipe : leftFile).toString(),
                "--right", (pipeSide == 2 ? pipe : rightFile).toString(), "--on", on.toString(), "--type", type,
                "--work-mem", budget, "--threads", threads, "--output", output.toString(), "--stats", stats.toString(),
                "--spill-dir", spillDir.toString(), "--delimiter",
                delimiter == '\t' ? "\\t" : String.valueOf(delimiter), "--build-side", buildSide));
        if (!header) {
            args.add("--no-header");
        }
        if (skip) {
            args.addAll(List.of("--on-error", "skip"));
        }
        description = "keys " + Arrays.toString(leftStyles) + " = " + Arrays.toString(rightStyles) + " pairings "
                + Arrays.toString(pairings) + ", rows " + leftRows + " x " + rightRows + ", pool " + pool
                + ", hot side " + hotSide + ", pipe " + pipe + ", long side " + longSide + "\n  left "
                + leftWritten.dialect() + "\n  right " + rightWritten.dialect() + "\n  spilljoin "
                + String.join(" ", args);
    }

    /** Draws the case of {@code seed} and writes its inputs into {@code dir}. */
    static FuzzCase draw(long seed, Path dir) throws IOException {
        return new FuzzCase(seed, dir);
    }

    /** True when the key types are a usage error (exit 2). */
    boolean mismatched() {
        return Arrays.asList(pairings).contains(null);
    }

    /** The output's column names (README "Output"). */
    List<String> outputHeader() {
        return FuzzRuns.outputHeader(type, names(left), names(right));
    }

    private List<String> names(FuzzInput input) {
        boolean header = !args.contains("--no-header");
        List<String> names = new ArrayList<>();
        for (int c = 0; c < input.header.length; c++) {
            names.add(name(input, c, header));
        }
        return names;
    }

    @Override
    public String toString() {
        return "seed " + seed + ", " + type + ", " + description;
    }

    private static String name(FuzzInput input, int column, boolean header) {
        return header ? input.header[column] : "column" + (column + 1);
    }

    private static int rows(SplittableRandom random, boolean fewKeys) {
        int most = fewKeys ? 250 : 6_000;
        return random.nextInt(5) == 0 ? random.nextInt(20) : 50 + random.nextInt(most - 50);
    }

    private static int longRows(SplittableRandom random) {
        return FuzzKeyTyping.SAMPLE_ROWS + random.nextInt(4_000);
    }

    /** Misspells now and then a key of a row past the inference sample, so that it may not read as inferred. */
    private static void misspell(FuzzInput input, SplittableRandom random) {
        String[] misfits = {"x1", "1.5", "99999999999999999999", "tru", "01"};
        for (int r = FuzzKeyTyping.SAMPLE_ROWS; r < input.rows.size(); r++) {
            if (random.nextInt(300) == 0) {
                input.rows.get(r)[input.keyColumns[0]] = misfits[random.nextInt(misfits.length)];
            }
        }
    }

    /** The input without the rows whose keys do not read as {@code readAs} says. */
    private static FuzzInput fitting(FuzzInput input, Inferred[] readAs) {
        return new FuzzInput(input.header, input.keyColumns, input.rows.stream().filter(row -> fits(input, readAs, row))
                .toList());
    }

    private static boolean fits(FuzzInput input, Inferred[] readAs, String[] row) {
        for (int k = 0; k < readAs.length; k++) {
            if (!FuzzKeyTyping.fits(readAs[k], row[input.keyColumns[k]])) {
                return false;
            }
        }
        return true;
    }

    /** The line of the first malformed record or row whose keys do not fit. */
    private static long firstProblem(FuzzInput input, Inferred[] readAs, FuzzInput.Written written) {
        long first = written.malformed() > 0 ? written.firstMalformedLine() : Long.MAX_VALUE;
        for (int r = 0; r < input.rows.size(); r++) {
            if (!fits(input, readAs, input.rows.get(r))) {
                return Math.min(first, written.rowLines()[r]);
            }
        }
        return first;
    }

    private static String extension(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> ".csv.gz";
            case 1 -> ".CSV.GZ";
            default -> ".csv";
        };
    }

    /**
     * The rows of a side: {@code rows} rows whose first key draws from pool indexes [from, from + pool), a share
     * {@code hotShare} of them the key {@code hotIndex}, with a payload of {@code hotPayload} characters when not 0.
     */
    private record Shape(int rows, int from, int pool, long hotIndex, double hotShare, int hotPayload) {
    }

    private static double share(int hotRows, int rows) {
        return Math.min(0.9, (double) hotRows / Math.max(1, rows));
    }

    private static FuzzInput side(SplittableRandom random, String prefix, KeyStyle[] styles, Shape shape,
                                  boolean sharedNames, int longField) {
        int keys = styles.length;
        int payloads = random.nextInt(shape.hotPayload > 0 ? 1 : 0, 4);
        int columns = keys + payloads;
        List<Integer> order = new ArrayList<>();
        for (int c = 0; c < columns; c++) {
            order.add(c);
        }
        Collections.shuffle(order, new Random(random.nextLong()));
        String[] header = new String[columns];
        int[] keyColumns = new int[keys];
        boolean[] isKey = new boolean[columns];
        for (int c = 0; c < columns; c++) {
            int slot = order.get(c);
            if (c < keys) {
                keyColumns[c] = slot;
                isKey[slot] = true;
                header[slot] = sharedNames ? "k" + c : prefix + "k" + c;
            } else {
                header[slot] = sharedNames ? "p" + (c - keys) : prefix + "p" + (c - keys);
            }
        }
        double nulls = new double[] {0, 0.02, 0.2}[random.nextInt(3)];
        double empties = new double[] {0, 0.02}[random.nextInt(2)];
        List<String[]> data = new ArrayList<>(shape.rows);
        for (int r = 0; r < shape.rows; r++) {
            String[] row = new String[columns];
            boolean hot = random.nextDouble() < shape.hotShare;
            for (int k = 0; k < keys; k++) {
                long index = k > 0 ? random.nextInt(3) : hot ? shape.hotIndex : shape.from + random.nextInt(shape.pool);
                double draw = random.nextDouble();
                row[keyColumns[k]] = draw < nulls ? null : draw < nulls + empties ? ""
                        : FuzzInput.key(styles[k], index, random);
            }
            for (int c = 0; c < columns; c++) {
                if (!isKey[c]) {
                    row[c] = hot && shape.hotPayload > 0 ? "w".repeat(shape.hotPayload) : payload(random, longField);
                }
            }
            data.add(row);
        }
        return new FuzzInput(header, keyColumns, data);
    }

    private static String payload(SplittableRandom random, int longField) {
        int draw = random.nextInt(100);
        if (draw < 5) {
            return null;
        }
        if (draw < 10) {
            return "";
        }
        String text = FuzzInput.text(random, 1 + random.nextInt(8));
        return draw == 99 ? text.repeat(1 + random.nextInt(longField) / text.length()) : text;
    }
}
