package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

/**
 * A two-column input {@code (k BIGINT, p BIGINT)} generated on the fly, row {@code i} in {@code [0, rows)} being
 * {@code k = i % keys}, {@code p = (i * multiplier + addend) % modulus}: formulas every SQL engine computes the same
 * way, so that an oracle builds the very same table with {@code range}/{@code generate_series} instead of loading
 * it. One batch is reused; nothing is held but it.
 */
final class GeneratedSource implements BatchSource {
    static final int BATCH_ROWS = 4096;

    private final long rows;
    private final long keys;
    private final long multiplier;
    private final long addend;
    private final long modulus;
    private final Batch batch;
    private long next;

    GeneratedSource(String prefix, long rows, long keys, long multiplier, long addend, long modulus) {
        this.rows = rows;
        this.keys = keys;
        this.multiplier = multiplier;
        this.addend = addend;
        this.modulus = modulus;
        this.batch = new Batch(schema(prefix), BATCH_ROWS);
    }

    static Schema schema(String prefix) {
        return Schema.of(Column.of(prefix + "k", ColumnType.BIGINT), Column.of(prefix + "p", ColumnType.BIGINT));
    }

    /** The same rows as SQL over an integer {@code i}: {@code i % keys AS k, (i * m + a) % mod AS p}. */
    String sqlColumns(String i) {
        return i + " % " + keys + " AS k, (" + i + " * " + multiplier + " + " + addend + ") % " + modulus + " AS p";
    }

    long rows() {
        return rows;
    }

    @Override
    public Batch next() {
        if (next >= rows) {
            return null;
        }
        batch.reset();
        int n = (int) Math.min(BATCH_ROWS, rows - next);
        long[] k = batch.column(0).longs();
        long[] p = batch.column(1).longs();
        for (int r = 0; r < n; r++) {
            long i = next + r;
            k[r] = i % keys;
            p[r] = (i * multiplier + addend) % modulus;
        }
        batch.setRowCount(n);
        next += n;
        return batch;
    }

    @Override
    public long sizeHintRows() {
        return rows;
    }

    @Override
    public long sizeHintBytes() {
        return rows * 16;
    }
}
