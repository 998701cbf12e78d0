package dev.spilljoin.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * One case of the Parquet fuzz test ({@link ParquetDifferentialFuzzTest}), drawn from its seed: DuckDB writes each
 * side as 1–3 Parquet part files (one file, a directory of part files or a glob), or now and then one side as a CSV
 * file whose keys pair with the Parquet keys (README "Key types"); each side's key and 0–6 payload columns of random
 * types ({@link ParquetFuzzType}), shared names or not, NULL shares, few or many distinct values (dictionary or
 * plain pages), keys dense, sparse, negative, hot, mostly NULL or at the type's extremes, one or two key pairs of one
 * type on both sides, and per part file its compression, row-group size and Parquet version; then a join type,
 * {@code --threads}, {@code --work-mem}, build side, CSV or Parquet output (with {@code --compression} or not). A few
 * percent of cases make a Parquet side fail instead: a truncated part file, a part file without a key column, or a
 * nested column the join needs. The case holds the {@code spilljoin join} arguments and the SQL of DuckDB's join of
 * the same files.
 */
final class ParquetFuzzCase {
    private static final String[] TYPES = {"inner", "left", "right", "full", "semi", "anti", "not-in"};
    private static final String[] BUDGETS = {"64kB", "100kB", "256kB", "512kB", "1MB", "4MB", "64MB"};
    private static final int[] THREADS = {1, 2, 4};
    private static final String[] BUILD_SIDES = {"auto", "left", "right"};
    private static final String[] CODECS = {"snappy", "zstd", "gzip", "uncompressed"};
    private static final String[] FLAG_CODECS = {"snappy", "zstd", "gzip", "none"};
    private static final int[] ROW_GROUPS = {2048, 4096, 122880};
    private static final int MOST_ROWS = 5000;
    private static final int FEW_VALUES_ROWS = 150;
    /** The most rows of the hot key the right side has when both sides have it: bounds the output. */
    private static final int HOT_PARTNERS = 10;

    /** How a side's first key column's indexes are drawn. */
    enum Distribution { DENSE, SPARSE, NEGATIVE, HOT, NULLS, EXTREMES }

    /** How a case fails: not at all, or on one Parquet side. */
    enum Failure { NONE, TRUNCATED, MISSING_KEY, NESTED }

    /** One input as the command and DuckDB see it. */
    static final class Side {
        final String name;
        final boolean csv;
        final List<String> names = new ArrayList<>();
        /** Per column its type; null for a CSV side's payload (text passed through). */
        final List<ParquetFuzzType> types = new ArrayList<>();
        final int[] keyColumns;
        final int rows;
        /** Its part files in path order (a CSV side: its one file). */
        final List<Path> parts = new ArrayList<>();
        /** The {@code --left}/{@code --right} argument. */
        String argument;
        private String description = "";

        Side(String name, boolean csv, int keys, int rows) {
            this.name = name;
            this.csv = csv;
            this.keyColumns = new int[keys];
            this.rows = rows;
        }

        /** The relation DuckDB reads the same rows from: the part files, or the CSV side's keys read as typed. */
        String relation() {
            if (!csv) {
                return "read_parquet(" + parts.stream().map(p -> "'" + p + "'")
                        .collect(Collectors.joining(", ", "[", "]")) + ")";
            }
            List<String> columns = new ArrayList<>();
            for (int c = 0; c < names.size(); c++) {
                ParquetFuzzType type = types.get(c);
                String column = quoted(names.get(c));
                columns.add(type == null ? column : "CAST(" + column + " AS " + type.csvPartnerSql() + ") AS "
                        + column);
            }
            return "(SELECT " + String.join(", ", columns) + " FROM " + table() + ")";
        }

        /** The DuckDB table of the side's rows (a CSV side's as spelled), in order of {@code _i}. */
        String table() {
            return name + "_rows";
        }

        @Override
        public String toString() {
            return name + " " + rows + " rows, " + (csv ? "CSV" : parts.size() + " part(s)") + " " + argument
                    + ", columns " + names + " " + types + description;
        }
    }

    final long seed;
    final String type;
    final Side left;
    final Side right;
    final ParquetFuzzType[] keyTypes;
    final boolean csvOutput;
    final Path output;
    final Path stats;
    final Path spillDir;
    final List<String> args;
    final Failure failure;
    /** The part file the failure is in ({@link Failure#NESTED}: the side's first), and the column it names. */
    final Path failingFile;
    final String failingColumn;

    private ParquetFuzzCase(long seed, Path dir, Connection duck) throws IOException, SQLException {
        this.seed = seed;
        SplittableRandom random = new SplittableRandom(seed);
        type = TYPES[random.nextInt(TYPES.length)];
        int keys = type.equals("not-in") || random.nextInt(4) > 0 ? 1 : 2;
        keyTypes = new ParquetFuzzType[keys];
        for (int k = 0; k < keys; k++) {
            keyTypes[k] = ParquetFuzzType.draw(random);
        }
        boolean fewValues = Arrays.stream(keyTypes).anyMatch(ParquetFuzzType::fewValues);
        boolean csvPairs = Arrays.stream(keyTypes).allMatch(ParquetFuzzType::pairsWithCsv);
        int csvSide = csvPairs && random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0;
        int failureDraw = random.nextInt(100);
        failure = failureDraw < 2 ? Failure.TRUNCATED : failureDraw < 4 ? Failure.MISSING_KEY
                : failureDraw < 6 ? Failure.NESTED : Failure.NONE;
        // The failing side: Parquet, and for a nested column one whose every column the join reads.
        int failingSide = failure == Failure.NONE ? 0 : failure == Failure.NESTED && !bothSides() ? 1
                : csvSide == 0 ? 1 + random.nextInt(2) : 3 - csvSide;
        if (failure == Failure.NESTED && failingSide == csvSide) {
            csvSide = 0;
        }
        int leftRows = rows(random, fewValues);
        int rightRows = rows(random, fewValues);
        int pool = Math.max(1, Math.max(leftRows, rightRows) / (1 + random.nextInt(4)));
        boolean sharedNames = random.nextInt(3) == 0;
        Distribution leftKeys = Distribution.values()[random.nextInt(Distribution.values().length)];
        Distribution rightKeys = Distribution.values()[random.nextInt(Distribution.values().length)];
        long hotIndex = random.nextInt(pool);
        boolean csvSafe = csvSide > 0;
        left = side(duck, dir, random, new Side("left", csvSide == 1, keys, leftRows), sharedNames ? "" : "l_",
                csvSafe, new Keys(leftKeys, 0, pool, hotIndex, 0.3 + 0.6 * random.nextDouble()),
                failingSide == 1 ? failure : Failure.NONE);
        double rightHot = leftKeys == Distribution.HOT ? Math.min(0.9, (double) HOT_PARTNERS / Math.max(1, rightRows))
                : 0.3 + 0.6 * random.nextDouble();
        right = side(duck, dir, random, new Side("right", csvSide == 2, keys, rightRows), sharedNames ? "" : "r_",
                csvSafe, new Keys(rightKeys, pool / 3, pool, hotIndex, rightHot), failingSide == 2 ? failure
                        : Failure.NONE);
        Side failing = failingSide == 1 ? left : right;
        Path failingPart = failure == Failure.NONE ? null : failing.parts.get(random.nextInt(failing.parts.size()));
        failingColumn = failure == Failure.NONE || failure == Failure.TRUNCATED ? null
                : failure == Failure.NESTED ? "nested" : failing.names.get(failing.keyColumns[0]);
        if (failure == Failure.TRUNCATED) {
            byte[] bytes = Files.readAllBytes(failingPart);
            Files.write(failingPart, Arrays.copyOf(bytes, random.nextInt(bytes.length)));
        } else if (failure == Failure.MISSING_KEY) {
            writePart(duck, failing, failingPart, "* EXCLUDE (_i, " + quoted(failingColumn) + ")", "TRUE", random);
        }
        failingFile = failure == Failure.NESTED ? failing.parts.get(0) : failingPart;
        csvOutput = random.nextBoolean();
        output = dir.resolve(csvOutput ? "out.csv" : "out.parquet");
        stats = dir.resolve("stats.json");
        spillDir = Files.createDirectory(dir.resolve("spill"));
        StringBuilder on = new StringBuilder();
        for (int k = 0; k < keys; k++) {
            String l = left.names.get(left.keyColumns[k]);
            String r = right.names.get(right.keyColumns[k]);
            on.append(k == 0 ? "" : ",").append(l).append(l.equals(r) && random.nextBoolean() ? "" : "=" + r);
        }
        args = new ArrayList<>(List.of("join", "--quiet", "--left", left.argument, "--right", right.argument, "--on",
                on.toString(), "--type", type, "--work-mem", BUDGETS[random.nextInt(BUDGETS.length)], "--threads",
                Integer.toString(THREADS[random.nextInt(THREADS.length)]), "--output", output.toString(), "--stats",
                stats.toString(), "--spill-dir", spillDir.toString(), "--build-side",
                BUILD_SIDES[random.nextInt(BUILD_SIDES.length)]));
        if (!csvOutput && random.nextBoolean()) {
            args.addAll(List.of("--compression", FLAG_CODECS[random.nextInt(FLAG_CODECS.length)]));
        }
    }

    /** Draws the case of {@code seed} and has {@code duck} write its inputs into {@code dir}. */
    static ParquetFuzzCase draw(long seed, Path dir, Connection duck) throws IOException, SQLException {
        return new ParquetFuzzCase(seed, dir, duck);
    }

    /** DuckDB's join of the same inputs (NULL keys never match), left columns then right ones as the command's. */
    String joinSql() {
        String l = left.relation() + " l";
        String r = right.relation() + " r";
        List<String> conditions = new ArrayList<>();
        for (int k = 0; k < keyTypes.length; k++) {
            conditions.add("l." + quoted(left.names.get(left.keyColumns[k])) + " = r."
                    + quoted(right.names.get(right.keyColumns[k])));
        }
        String on = String.join(" AND ", conditions);
        return switch (type) {
            case "inner" -> "SELECT l.*, r.* FROM " + l + " JOIN " + r + " ON " + on;
            case "left", "right", "full" -> "SELECT l.*, r.* FROM " + l + " " + type + " JOIN " + r + " ON " + on;
            case "semi" -> "SELECT l.* FROM " + l + " WHERE EXISTS (SELECT 1 FROM " + r + " WHERE " + on + ")";
            case "anti" -> "SELECT l.* FROM " + l + " WHERE NOT EXISTS (SELECT 1 FROM " + r + " WHERE " + on + ")";
            default -> "SELECT l.* FROM " + l + " WHERE l." + quoted(left.names.get(left.keyColumns[0]))
                    + " NOT IN (SELECT r." + quoted(right.names.get(right.keyColumns[0])) + " FROM " + r + ")";
        };
    }

    /** True when the output has the right side's columns too. */
    boolean bothSides() {
        return List.of("inner", "left", "right", "full").contains(type);
    }

    /** Per output column, the type whose CSV text rules apply (null: text passed through). */
    List<ParquetFuzzType> outputTypes() {
        List<ParquetFuzzType> types = new ArrayList<>(left.types);
        if (bothSides()) {
            types.addAll(right.types);
        }
        return types;
    }

    /** The output's header (README "Output"). */
    List<String> outputHeader() {
        return FuzzRuns.outputHeader(type, left.names, right.names);
    }

    @Override
    public String toString() {
        return "seed " + seed + ", " + type + " on " + Arrays.toString(keyTypes) + ", failure " + failure + "\n  "
                + left + "\n  " + right + "\n  spilljoin " + String.join(" ", args);
    }

    private static int rows(SplittableRandom random, boolean fewValues) {
        int most = fewValues ? FEW_VALUES_ROWS : MOST_ROWS;
        return random.nextInt(8) == 0 ? random.nextInt(5) : random.nextInt(most);
    }

    /**
     * A side's first key: indexes of {@code distribution} over [from, from + pool), a share {@code hotShare} of
     * them {@code hotIndex} when HOT.
     */
    private record Keys(Distribution distribution, int from, int pool, long hotIndex, double hotShare) {
    }

    /**
     * Draws the side's columns, writes its files (Parquet parts or a CSV file) and sets its argument; {@code csvSafe}
     * keeps key values to those a CSV key spells.
     */
    private Side side(Connection duck, Path dir, SplittableRandom random, Side side, String prefix, boolean csvSafe,
                      Keys keys, Failure sideFailure) throws IOException, SQLException {
        // a part file without the key must have another column
        int payloads = random.nextInt(sideFailure == Failure.MISSING_KEY && keyTypes.length == 1 ? 1 : 0, 7);
        List<Integer> order = new ArrayList<>();
        for (int c = 0; c < keyTypes.length + payloads; c++) {
            order.add(c);
        }
        Collections.shuffle(order, new Random(random.nextLong()));
        String[] expressions = new String[order.size()];
        String[] names = new String[order.size()];
        ParquetFuzzType[] types = new ParquetFuzzType[order.size()];
        for (int c = 0; c < order.size(); c++) {
            int slot = order.get(c);
            long salt = random.nextLong(1L << 40);
            String h = "hash(i + " + salt + ")";
            if (c < keyTypes.length) {
                side.keyColumns[c] = slot;
                names[slot] = prefix + "k" + c;
                types[slot] = keyTypes[c];
                expressions[slot] = keyValue(random, side.csv, csvSafe, keyTypes[c], c == 0 ? keys : null, h,
                        salt);
            } else {
                names[slot] = prefix + "p" + (c - keyTypes.length);
                ParquetFuzzType payload = ParquetFuzzType.draw(random);
                types[slot] = side.csv ? null : payload;
                long distinct = random.nextBoolean() ? 8 : 100_000_000;
                int nulls = new int[] {0, 50, 300, 1000}[random.nextInt(4)];
                String value = payload.value("((" + h + " % " + distinct + ")::BIGINT - " + distinct / 2 + ")", false);
                if (random.nextInt(3) == 0) {
                    value = withExtremes(payload, value, false, "hash(i + " + (salt + 3) + ")", 3);
                }
                expressions[slot] = "CASE WHEN hash(i + " + (salt + 1) + ") % 1000 < " + nulls + " THEN NULL ELSE "
                        + (side.csv ? "(" + value + ")::VARCHAR" : value) + " END";
            }
        }
        side.names.addAll(Arrays.asList(names));
        side.types.addAll(Arrays.asList(types));
        StringBuilder select = new StringBuilder("SELECT i AS _i");
        for (int c = 0; c < names.length; c++) {
            select.append(", ").append(expressions[c]).append(" AS ").append(quoted(names[c]));
        }
        if (sideFailure == Failure.NESTED) {
            select.append(", [i, i + 1] AS nested");
        }
        try (Statement s = duck.createStatement()) {
            s.execute("CREATE OR REPLACE TABLE " + side.table() + " AS " + select
                    + " FROM range(" + side.rows + ") t(i)");
        }
        if (side.csv) {
            Path file = dir.resolve(side.name + ".csv");
            try (Statement s = duck.createStatement()) {
                s.execute("COPY (SELECT " + Arrays.stream(names).map(ParquetFuzzCase::quoted)
                        .collect(Collectors.joining(", ")) + " FROM " + side.table() + " ORDER BY _i) TO '" + file
                        + "' (FORMAT csv, HEADER)");
            }
            side.parts.add(file);
            side.argument = file.toString();
            side.description = ", keys " + keys.distribution;
            return side;
        }
        writeParts(duck, dir, random, side, sideFailure == Failure.MISSING_KEY ? 2 + random.nextInt(2)
                : 1 + random.nextInt(3));
        side.description = ", keys " + keys.distribution + side.description;
        return side;
    }

    /**
     * The SQL of a key column's value for row {@code i}: NULL at the distribution's share, else the value of an
     * index the distribution draws ({@code keys} null: the second key, of three indexes), now and then an extreme.
     */
    private static String keyValue(SplittableRandom random, boolean csv, boolean csvSafe, ParquetFuzzType type,
                                   Keys keys, String h, long salt) {
        Distribution d = keys == null ? Distribution.DENSE : keys.distribution;
        String dense = keys == null ? "(" + h + " % 3)::BIGINT" : "(" + keys.from + " + " + h + " % " + keys.pool
                + ")::BIGINT";
        String index = switch (d) {
            case SPARSE -> dense + " * 104729";
            case NEGATIVE -> "-" + dense + " - 1";
            case HOT -> "CASE WHEN hash(i + " + (salt + 2) + ") % 1000 < " + (int) (keys.hotShare * 1000) + " THEN "
                    + keys.hotIndex + " ELSE " + dense + " END";
            default -> dense;
        };
        int nulls = d == Distribution.NULLS ? 500 + random.nextInt(450) : new int[] {0, 20, 200}[random.nextInt(3)];
        String value = type.value("(" + index + ")", csvSafe);
        if (d == Distribution.EXTREMES) {
            // a twentieth of the rows: each extreme is a hot key on both sides
            value = withExtremes(type, value, csvSafe, "hash(i + " + (salt + 3) + ")", 20);
        }
        return "CASE WHEN hash(i + " + (salt + 1) + ") % 1000 < " + nulls + " THEN NULL ELSE "
                + (csv ? type.csvSpelling(value, "hash(i + " + (salt + 4) + ")") : value) + " END";
    }

    /** {@code value} or, for one in {@code every} of the hashes {@code h}, one of the type's extremes. */
    private static String withExtremes(ParquetFuzzType type, String value, boolean csvSafe, String h, int every) {
        String[] extremes = type.extremes(csvSafe);
        StringBuilder cases = new StringBuilder("CASE " + h + " % " + extremes.length * every);
        for (int e = 0; e < extremes.length; e++) {
            cases.append(" WHEN ").append(e).append(" THEN ").append(extremes[e]);
        }
        return cases.append(" ELSE ").append(value).append(" END").toString();
    }

    /** Writes the side's rows as {@code parts} part files: one file, a directory, or a glob of the directory. */
    private static void writeParts(Connection duck, Path dir, SplittableRandom random, Side side, int parts)
            throws IOException, SQLException {
        int layout = parts == 1 ? random.nextInt(3) : 1 + random.nextInt(2);
        Path partDir = layout == 0 ? dir : Files.createDirectory(dir.resolve(side.name));
        int[] cuts = new int[parts + 1];
        cuts[parts] = side.rows;
        for (int p = 1; p < parts; p++) {
            cuts[p] = random.nextInt(side.rows + 1);
        }
        Arrays.sort(cuts);
        StringBuilder written = new StringBuilder();
        for (int p = 0; p < parts; p++) {
            Path file = partDir.resolve(layout == 0 ? side.name + ".parquet" : "part-" + p + ".parquet");
            written.append(" | ").append(writePart(duck, side, file, "* EXCLUDE (_i)", "_i >= " + cuts[p]
                    + " AND _i < " + cuts[p + 1], random));
            side.parts.add(file);
        }
        if (layout > 0 && random.nextBoolean()) {
            Files.writeString(partDir.resolve("_SUCCESS"), "");
        }
        side.argument = layout == 0 ? side.parts.get(0).toString() : layout == 1 ? partDir.toString()
                : partDir.resolve("part-*.parquet").toString();
        side.description = written.toString();
    }

    /** Writes the side's {@code columns} of the rows {@code where} picks to {@code file}; returns its options. */
    private static String writePart(Connection duck, Side side, Path file, String columns, String where,
                                    SplittableRandom random) throws SQLException {
        String options = "COMPRESSION " + CODECS[random.nextInt(CODECS.length)] + ", ROW_GROUP_SIZE "
                + ROW_GROUPS[random.nextInt(ROW_GROUPS.length)] + ", PARQUET_VERSION " + (random.nextBoolean() ? "V1"
                : "V2");
        try (Statement s = duck.createStatement()) {
            s.execute("COPY (SELECT " + columns + " FROM " + side.table() + " WHERE " + where + " ORDER BY _i) TO '"
                    + file + "' (FORMAT parquet, " + options + ")");
        }
        return file.getFileName() + " " + options;
    }

    private static String quoted(String name) {
        return '"' + name + '"';
    }
}
