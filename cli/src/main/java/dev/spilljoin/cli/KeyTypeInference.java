package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import java.util.Arrays;

/**
 * Infers a key column's type from the first {@value #SAMPLE_ROWS} data rows, and resolves the type a pair of
 * key columns is compared as.
 *
 * <p>A column is BIGINT if every sampled value is one, else DOUBLE if every value is one (BIGINT values
 * count as DOUBLE), else BOOLEAN if every value is {@code true}/{@code false} in any case, else VARCHAR (see
 * {@link ValueParser} for the grammar). NULL and empty values are ignored; a column whose sample holds nothing
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
    static ColumnType[] infer(CsvReader reader, int[] columns) {
        boolean[] seen = new boolean[columns.length];
        boolean[] bigint = filled(columns.length);
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
                    dbl[k] = dbl[k] && parser.parseDouble(b, from, to);
                    bool[k] = bool[k] && parser.parseBoolean(b, from, to);
                }
            }
            sampled += rows;
        }
        ColumnType[] types = new ColumnType[columns.length];
        for (int k = 0; k < columns.length; k++) {
            types[k] = !seen[k] ? null
                    : bigint[k] ? ColumnType.BIGINT
                    : dbl[k] ? ColumnType.DOUBLE
                    : bool[k] ? ColumnType.BOOLEAN
                    : ColumnType.VARCHAR;
        }
        return types;
    }

    /**
     * The type both columns of a key pair are read and compared as. {@code null} means "no type of its own"
     * (an all-NULL/empty sample). Equal types stay; BIGINT and INTEGER compare as BIGINT; either of them with
     * DOUBLE compares as DOUBLE; VARCHAR with VARBINARY compares bytes (VARBINARY); both untyped is VARCHAR;
     * any other mix is a {@link UsageException} whose message is built by {@code mismatch}.
     */
    static ColumnType compareType(ColumnType left, ColumnType right, Mismatch mismatch) {
        if (left == null && right == null) {
            return ColumnType.VARCHAR;
        }
        if (left == null || left == right) {
            return right;
        }
        if (right == null) {
            return left;
        }
        if (isIntegral(left) && isIntegral(right)) {
            return ColumnType.BIGINT;
        }
        if ((isIntegral(left) && right == ColumnType.DOUBLE) || (left == ColumnType.DOUBLE && isIntegral(right))) {
            return ColumnType.DOUBLE;
        }
        if (left.isVariableWidth() && right.isVariableWidth()) {
            return ColumnType.VARBINARY;
        }
        throw mismatch.error();
    }

    /** Builds the error for key columns whose types cannot be compared. */
    interface Mismatch {
        UsageException error();
    }

    private static boolean isIntegral(ColumnType type) {
        return type == ColumnType.BIGINT || type == ColumnType.INTEGER;
    }

    private static boolean[] filled(int n) {
        boolean[] flags = new boolean[n];
        Arrays.fill(flags, true);
        return flags;
    }
}
