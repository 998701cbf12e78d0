package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.workloads.W1Rows;

import java.math.BigInteger;
import java.util.function.LongUnaryOperator;

/**
 * A {@code (k BIGINT, p BIGINT)} input generated batch by batch into one reused batch (nothing is held on the heap
 * but the batch), from a row function: {@code key(i)} and {@code payload(i)}. Size hints: rows and 16 bytes a row.
 * {@link #w1Build}/{@link #w1Probe}: workload W1 of docs/WORKLOADS.md ({@link W1Rows}); other row functions draw on
 * its generators ({@link dev.spilljoin.workloads.WorkloadMath}).
 */
public abstract class GeneratedSource implements BatchSource {
    public static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("p", ColumnType.BIGINT));
    private static final int BATCH_ROWS = 4096;
    private final long rows;
    private final Batch batch;
    private long next;

    protected GeneratedSource(long rows) {
        this(SCHEMA, rows);
    }

    /** A source of {@code rows} rows of {@code schema}, two BIGINT columns (key, payload) under other names. */
    protected GeneratedSource(Schema schema, long rows) {
        this.rows = rows;
        this.batch = new Batch(schema, BATCH_ROWS);
    }

    protected abstract long key(long i);

    protected abstract long payload(long i);

    /** Called before each batch is generated with the index of its first row (tests hook interrupts here). */
    protected void beforeBatch(long firstRow) {
    }

    @Override
    public Batch next() {
        if (next >= rows) {
            return null;
        }
        beforeBatch(next);
        batch.reset();
        int n = (int) Math.min(BATCH_ROWS, rows - next);
        long[] k = batch.column(0).longs();
        long[] p = batch.column(1).longs();
        for (int j = 0; j < n; j++) {
            k[j] = key(next + j);
            p[j] = payload(next + j);
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

    /** A source of {@code rows} rows {@code (key(i), payload(i))} given as functions of the row index. */
    public static GeneratedSource of(long rows, LongUnaryOperator key, LongUnaryOperator payload) {
        return new GeneratedSource(rows) {
            @Override
            protected long key(long i) {
                return key.applyAsLong(i);
            }

            @Override
            protected long payload(long i) {
                return payload.applyAsLong(i);
            }
        };
    }

    /** W1's build side R: {@code k = perm(i, nR)}, {@code p = payload(0x11, i)}. */
    public static GeneratedSource w1Build(long nR) {
        return of(nR, i -> W1Rows.buildKey(i, nR), W1Rows::buildPayload);
    }

    /** W1's probe side S: {@code k = uniform(0x21, i, nR)}, {@code p = payload(0x22, i)}. */
    public static GeneratedSource w1Probe(long nS, long nR) {
        return of(nS, i -> W1Rows.probeKey(i, nR), W1Rows::probePayload);
    }

    /**
     * W1's {@code count(*), sum(r.p + s.p)} without a join: S row i has key {@code uniform(0x21, i, nR)}, the key
     * of exactly one R row, {@code perm}'s inverse of it ({@code perm(j, n) = j × 2654435761 mod n}, a prime
     * above n, so its inverse mod n exists).
     */
    public static long[] w1CountAndSum(long nR, long nS) {
        long inverse = BigInteger.valueOf(2654435761L).modInverse(BigInteger.valueOf(nR)).longValueExact();
        long sum = 0;
        for (long i = 0; i < nS; i++) {
            long key = W1Rows.probeKey(i, nR);
            long j = Math.floorMod(key * inverse, nR);
            if (W1Rows.buildKey(j, nR) != key) {
                throw new IllegalStateException("perm's inverse is wrong at probe row " + i);
            }
            sum += W1Rows.probePayload(i) + W1Rows.buildPayload(j);
        }
        return new long[] {nS, sum};
    }
}
