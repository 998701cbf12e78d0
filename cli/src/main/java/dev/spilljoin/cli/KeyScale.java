package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnVector;

/**
 * How a Parquet key column held as longs is brought to the unit of the key it pairs with, so that equal values are
 * equal longs ({@link LogicalKeyPairing}): a DECIMAL of a smaller scale to the larger (unscaled × 10^k), an integer
 * to a DECIMAL's scale (× 10^s), a TIMESTAMP or TIME to a finer unit (× 1000^k), a DATE to a TIMESTAMP's unit
 * (days × units per day).
 *
 * <p>Algorithm: {@link #normalize} multiplies a batch column's values in place as it is read, before the join
 * hashes, stores or spills them; {@link #restore} divides a result column's values back before it is written, so the
 * output gives each side's own stored value. Invariants: a normalized finite value is a multiple of {@link #factor},
 * so the division is exact; DuckDB's infinite dates and timestamps ({@code infinity} below, ±(2^31 − 1) days or
 * ±(2^63 − 1) units) become the infinite timestamp ±(2^63 − 1) and back, which no finite value becomes (no factor
 * here divides 2^63 − 1, which is odd and not a multiple of 3 or 5); a value whose product does not fit a long
 * cannot be held in the common unit and is refused ({@link OutOfRange}), as DuckDB's cast fails on it. A loop over
 * the vector's array: no object per value.
 */
final class KeyScale {
    /** The infinite timestamp of every unit, which an infinite value of the column becomes. */
    static final long INFINITE = Long.MAX_VALUE;

    private final long factor;
    /** The column's own infinite value (positive; its negation is minus infinity), or 0 when it has none. */
    private final long infinity;
    /** For messages: what the column's values are brought to ("DECIMAL(12,3)", "TIMESTAMP in NANOS"). */
    private final String common;

    KeyScale(long factor, long infinity, String common) {
        if (factor < 2) {
            throw new IllegalArgumentException("a factor of " + factor + " scales nothing");
        }
        this.factor = factor;
        this.infinity = infinity;
        this.common = common;
    }

    long factor() {
        return factor;
    }

    /** Multiplies rows {@code from .. from + rows - 1} of {@code v} (BIGINT, key column {@code name}), in place. */
    void normalize(ColumnVector v, int from, int rows, String name) {
        long[] longs = v.longs();
        long max = Long.MAX_VALUE / factor;
        for (int r = from; r < from + rows; r++) {
            long value = longs[r];
            if (infinity != 0 && (value == infinity || value == -infinity)) {
                longs[r] = value > 0 ? INFINITE : -INFINITE;
            } else if (value <= max && value >= -max) {
                longs[r] = value * factor;
            } else if (!v.isNull(r)) {
                throw new OutOfRange("key column '" + name + "' holds " + value + " (as stored), which as " + common
                        + " is beyond a 64-bit integer, so it cannot be compared with its partner's values (DuckDB's"
                        + " cast fails on it too); write the file again with values within that range");
            }
        }
    }

    /** Divides rows {@code 0 .. rows - 1} of {@code v} (BIGINT, as {@link #normalize} made them) back, in place. */
    void restore(ColumnVector v, int rows) {
        long[] longs = v.longs();
        for (int r = 0; r < rows; r++) {
            long value = longs[r];
            if (infinity != 0 && (value == INFINITE || value == -INFINITE)) {
                longs[r] = value > 0 ? infinity : -infinity;
            } else {
                longs[r] = value / factor;
            }
        }
    }

    /** Written out, not a record's: a fresh JVM bootstraps a record's through method handles. */
    @Override
    public boolean equals(Object other) {
        return other instanceof KeyScale scale && scale.factor == factor && scale.infinity == infinity;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(factor * 31 + infinity);
    }

    @Override
    public String toString() {
        return "× " + factor + " as " + common;
    }

    /** A value that the common unit cannot hold: the reader names the file ({@link ParquetBatchSource}). */
    static final class OutOfRange extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OutOfRange(String message) {
            super(message);
        }
    }
}
