package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

/**
 * A {@code (k BIGINT, p BIGINT)} input generated batch by batch into one reused batch (nothing is held on the heap
 * but the batch), from a row function: {@code key(i)} and {@code payload(i)}. Size hints: rows and 16 bytes a row.
 * Also the generators of ../shared/WORKLOADS.md (mix64, h, payload, uniform, perm).
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

    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public static long h(long seed, long i) {
        return mix64(seed + (i + 1) * 0x9E3779B97F4A7C15L);
    }

    public static long payload(long seed, long i) {
        return h(seed, i) >>> 33;
    }

    public static long uniform(long seed, long i, long m) {
        return (h(seed, i) >>> 1) % m;
    }

    public static long perm(long i, long n) {
        return Long.remainderUnsigned(i * 2654435761L, n);
    }

    /** W1's build side R: {@code k = perm(i, nR)}, {@code p = payload(0x11, i)}. */
    public static GeneratedSource w1Build(long nR) {
        return new GeneratedSource(nR) {
            @Override
            protected long key(long i) {
                return perm(i, nR);
            }

            @Override
            protected long payload(long i) {
                return GeneratedSource.payload(0x11, i);
            }
        };
    }

    /** W1's probe side S: {@code k = uniform(0x21, i, nR)}, {@code p = payload(0x22, i)}. */
    public static GeneratedSource w1Probe(long nS, long nR) {
        return new GeneratedSource(nS) {
            @Override
            protected long key(long i) {
                return uniform(0x21, i, nR);
            }

            @Override
            protected long payload(long i) {
                return GeneratedSource.payload(0x22, i);
            }
        };
    }
}
