package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.util.Arrays;

/**
 * Infers a key column's type from the first {@value #SAMPLE_ROWS} data rows, and resolves the types a pair of key
 * columns is read and compared as. Inference never loses a digit of an integer.
 *
 * <p>A column is BIGINT if every sampled value is one, else exact integer text ({@link KeyType#WIDE_INTEGER}) if
 * every value is an integer (some beyond the BIGINT range), else DOUBLE if every value is one (integers count as
 * DOUBLE), else BOOLEAN if every value is {@code true}/{@code false} in any case, else VARCHAR (see
 * {@link ValueParser} for the grammars). NULL and empty values are ignored; a column whose sample holds nothing
 * else has no type of its own ({@code null}) and takes its partner's ({@link #compareType}).
 */
final class KeyTypeInference {
    static final int SAMPLE_ROWS = 10_000;
    private static final int SAMPLE_CHUNK_ROWS = 2_048;

    private KeyTypeInference() {
    }

    /**
     * Reads up to {@value #SAMPLE_ROWS} rows from {@code reader} (a text reader, freshly opened) and returns the
     * inferred type of each of {@code columns}, null where the sample is all NULL or empty.
     */
    static KeyType[] infer(CsvReader reader, int[] columns) {
        boolean[] seen = new boolean[columns.length];
        boolean[] bigint = filled(columns.length);
        boolean[] integer = filled(columns.length);
        boolean[] dbl = filled(columns.length);
        boolean[] bool = filled(columns.length);
        ValueParser parser = new ValueParser();
        CsvChunk chunk = reader.newChunk(SAMPLE_CHUNK_ROWS);
        int sampled = 0;
        while (sampled < SAMPLE_ROWS && reader.read(chunk)) {
            int rows = Math.min(chunk.rows(), SAMPLE_ROWS - sampled);
            for (int k = 0; k < columns.length; k++) {
                int c = columns[k];
                byte[] b = chunk.bytes(c);
                for (int r = 0; r < rows; r++) {
                    int from = chunk.start(c, r);
                    int to = from + chunk.length(c, r);
                    if (chunk.isNull(c, r) || from == to) {
                        continue;
                    }
                    seen[k] = true;
                    bigint[k] = bigint[k] && parser.parseBigint(b, from, to);
                    integer[k] = integer[k] && parser.parseIntegerText(b, from, to);
                    dbl[k] = dbl[k] && parser.parseDouble(b, from, to);
                    bool[k] = bool[k] && parser.parseBoolean(b, from, to);
                }
            }
            sampled += rows;
        }
        KeyType[] types = new KeyType[columns.length];
        for (int k = 0; k < columns.length; k++) {
            types[k] = !seen[k] ? null
                    : bigint[k] ? KeyType.of(ColumnType.BIGINT)
                    : integer[k] ? KeyType.WIDE_INTEGER
                    : dbl[k] ? KeyType.of(ColumnType.DOUBLE)
                    : bool[k] ? KeyType.of(ColumnType.BOOLEAN)
                    : KeyType.of(ColumnType.VARCHAR);
        }
        return types;
    }

    /** How the two columns of a key pair are read: the same operator type on both sides. */
    record PairType(KeyType left, KeyType right) {
        /** The operator's key type: the sides' own, and BIGINT for INTEGER beside BIGINT (read as longs). */
        ColumnType type() {
            return left.isIntegral() && right.isIntegral() && !left.equals(right) ? ColumnType.BIGINT : left.type();
        }
    }

    /**
     * The types both columns of a key pair are read and compared as. {@code null} means "no type of its own" (an
     * all-NULL/empty sample): it takes the other's, and both untyped is VARCHAR. Equal types stay. BIGINT and
     * INTEGER compare as BIGINT, each side read as its own type (an INTEGER column's values must fit 32 bits).
     * Exact integers (beyond BIGINT) with exact integers, BIGINT or INTEGER compare as exact integer text. BIGINT or INTEGER with DOUBLE compare exactly as decimals: the integer side as BIGINT-range
     * integer text, the DOUBLE side as {@link NumberText#DECIMAL} text (so {@code 1} matches {@code 1.0} and
     * {@code 1e0}, and no fraction matches an integer). VARCHAR with VARBINARY compares bytes (VARBINARY). Any
     * other mix, exact integers with DOUBLE included, is a {@link UsageException} built by {@code mismatch}.
     */
    static PairType compareType(KeyType left, KeyType right, Mismatch mismatch) {
        if (left == null && right == null) {
            return new PairType(KeyType.of(ColumnType.VARCHAR), KeyType.of(ColumnType.VARCHAR));
        }
        if (left == null || right == null || left.equals(right)) {
            KeyType type = left == null ? right : left;
            return new PairType(type, type);
        }
        if (left.isIntegral() && right.isIntegral()) {
            return new PairType(left, right); // compared as BIGINT; an INTEGER side's values must still fit 32 bits
        }
        boolean leftWide = left.equals(KeyType.WIDE_INTEGER);
        boolean rightWide = right.equals(KeyType.WIDE_INTEGER);
        if ((leftWide || left.isIntegral()) && (rightWide || right.isIntegral())) {
            return new PairType(KeyType.WIDE_INTEGER, KeyType.WIDE_INTEGER);
        }
        KeyType asInteger = new KeyType(ColumnType.VARCHAR, NumberText.BIGINT_RANGE);
        KeyType asDecimal = new KeyType(ColumnType.VARCHAR, NumberText.DECIMAL);
        if (left.isIntegral() && right.equals(KeyType.of(ColumnType.DOUBLE))) {
            return new PairType(asInteger, asDecimal);
        }
        if (left.equals(KeyType.of(ColumnType.DOUBLE)) && right.isIntegral()) {
            return new PairType(asDecimal, asInteger);
        }
        if (isBytes(left) && isBytes(right)) {
            return new PairType(KeyType.of(ColumnType.VARBINARY), KeyType.of(ColumnType.VARBINARY));
        }
        throw mismatch.error();
    }

    /** Builds the error for key columns whose types cannot be compared. */
    interface Mismatch {
        UsageException error();
    }

    private static boolean isBytes(KeyType type) {
        return type.numberText() == null && type.type().isVariableWidth();
    }

    private static boolean[] filled(int n) {
        boolean[] flags = new boolean[n];
        Arrays.fill(flags, true);
        return flags;
    }
}
