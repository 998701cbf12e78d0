package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;

/**
 * Computes the 64-bit key hash H (see {@link HashFunctions}) of every row of a batch, and which rows have a NULL
 * key (any key column NULL).
 *
 * <p>Algorithm: column at a time. The hashes start at {@link HashFunctions#KEY_SEED}; for each key column one loop
 * over the rows folds the column's values in ({@code h = fmix64(h ^ v * GOLDEN)}), the type switch outside the loop.
 * Values: BIGINT as is, INTEGER sign-extended, BOOLEAN as 0/1, DOUBLE normalized (-0.0 = 0.0, one NaN), VARCHAR and
 * VARBINARY by an xxHash-style hash of their bytes. NULL-ness is or-ed in a word (64 rows) at a time from the
 * column's null bitmap; a NULL row's hash is meaningless and never used.
 */
public final class KeyHasher {
    private final int[] keyColumns;

    public KeyHasher(int[] keyColumns) {
        this.keyColumns = keyColumns.clone();
    }

    /**
     * Fills {@code hashes[0..n)} and the bitmap {@code nullKeys} (bit set = NULL key) for the batch's {@code n} rows;
     * returns whether any row has a NULL key.
     */
    public boolean hash(Batch batch, long[] hashes, long[] nullKeys) {
        int n = batch.rowCount();
        int words = (n + 63) >>> 6;
        java.util.Arrays.fill(hashes, 0, n, HashFunctions.KEY_SEED);
        java.util.Arrays.fill(nullKeys, 0, words, 0L);
        boolean anyNull = false;
        for (int keyColumn : keyColumns) {
            ColumnVector v = batch.column(keyColumn);
            hashColumn(v, n, hashes);
            if (v.mayHaveNulls()) {
                long[] nulls = v.nullBitmap();
                for (int w = 0; w < words; w++) {
                    nullKeys[w] |= nulls[w];
                }
                anyNull = true;
            }
        }
        if (anyNull && (n & 63) != 0) {
            nullKeys[words - 1] &= -1L >>> (64 - (n & 63));
        }
        return anyNull;
    }

    /**
     * For a single fixed-width key column: each row's key as the long the hash folds in (BIGINT as is, INTEGER
     * sign-extended, DOUBLE normalized bits, BOOLEAN 0/1), which is also the value of its stored key field read
     * sign-extended; into {@code values[0..n)}. A NULL row's value is meaningless.
     */
    public void keyValues(Batch batch, long[] values) {
        int n = batch.rowCount();
        ColumnVector v = batch.column(keyColumns[0]);
        switch (v.type()) {
            case BIGINT -> System.arraycopy(v.longs(), 0, values, 0, n);
            case INTEGER -> {
                int[] a = v.ints();
                for (int i = 0; i < n; i++) {
                    values[i] = a[i];
                }
            }
            case DOUBLE -> {
                double[] a = v.doubles();
                for (int i = 0; i < n; i++) {
                    values[i] = HashFunctions.normalizedDoubleBits(a[i]);
                }
            }
            case BOOLEAN -> {
                boolean[] a = v.booleans();
                for (int i = 0; i < n; i++) {
                    values[i] = a[i] ? 1 : 0;
                }
            }
            case VARCHAR, VARBINARY -> throw new IllegalStateException(
                    "a variable-width key has no single value; its rows compare encoded key bytes");
        }
    }

    private static void hashColumn(ColumnVector v, int n, long[] h) {
        switch (v.type()) {
            case BIGINT -> {
                long[] a = v.longs();
                for (int i = 0; i < n; i++) {
                    h[i] = HashFunctions.combine(h[i], a[i]);
                }
            }
            case INTEGER -> {
                int[] a = v.ints();
                for (int i = 0; i < n; i++) {
                    h[i] = HashFunctions.combine(h[i], a[i]);
                }
            }
            case DOUBLE -> {
                double[] a = v.doubles();
                for (int i = 0; i < n; i++) {
                    h[i] = HashFunctions.combine(h[i], HashFunctions.normalizedDoubleBits(a[i]));
                }
            }
            case BOOLEAN -> {
                boolean[] a = v.booleans();
                for (int i = 0; i < n; i++) {
                    h[i] = HashFunctions.combine(h[i], a[i] ? 1 : 0);
                }
            }
            case VARCHAR, VARBINARY -> {
                int[] off = v.offsets();
                byte[] bytes = v.bytes();
                for (int i = 0; i < n; i++) {
                    h[i] = HashFunctions.combine(h[i], HashFunctions.hashBytes(bytes, off[i], off[i + 1] - off[i]));
                }
            }
        }
    }
}
