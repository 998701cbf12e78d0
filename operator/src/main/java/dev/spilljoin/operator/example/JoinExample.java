package dev.spilljoin.operator.example;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.ByteSize;

/**
 * Joins the two inputs of workload W1 (WORKLOADS.md: R.k = perm(i, nR), S.k = uniform(0x21, i, nR)), generated batch
 * by batch without materializing them, computes {@code count(*)} and {@code sum(r.p + s.p)} from the result batches,
 * and prints a summary with the join's stats. At the small scale (1M × 10M) it checks the published count and sum.
 *
 * <p>Arguments: {@code [nR] [nS] [budget]}, defaults {@code 1000000 10000000 256MB}.
 */
public final class JoinExample {
    private static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("p", ColumnType.BIGINT));
    private static final int BATCH_ROWS = 4096;

    private JoinExample() {
    }

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static long h(long seed, long i) {
        return mix64(seed + (i + 1) * 0x9E3779B97F4A7C15L);
    }

    static long payload(long seed, long i) {
        return h(seed, i) >>> 33;
    }

    static long uniform(long seed, long i, long m) {
        return (h(seed, i) >>> 1) % m;
    }

    static long perm(long i, long n) {
        return Long.remainderUnsigned(i * 2654435761L, n);
    }

    /** A W1 input generated batch by batch into one reused batch. */
    private static final class W1Source implements BatchSource {
        private final boolean build;
        private final long rows;
        private final long nR;
        private final Batch batch = new Batch(SCHEMA, BATCH_ROWS);
        private long next;

        W1Source(boolean build, long rows, long nR) {
            this.build = build;
            this.rows = rows;
            this.nR = nR;
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
            for (int j = 0; j < n; j++) {
                long i = next + j;
                k[j] = build ? perm(i, nR) : uniform(0x21, i, nR);
                p[j] = payload(build ? 0x11 : 0x22, i);
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

    public static void main(String[] args) {
        long nR = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        long nS = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000;
        long budget = ByteSize.parse(args.length > 2 ? args[2] : "256MB");
        JoinSpec spec = JoinSpec.builder(SCHEMA, SCHEMA).on("k", "k").project(Side.LEFT, "p").project(Side.RIGHT, "p")
                .budgetBytes(budget).build();
        long count = 0;
        long sum = 0;
        long start = System.nanoTime();
        long cpuStart = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        JoinStats stats;
        try (HashJoin join = HashJoin.create(spec)) {
            var results = join.iterator(new W1Source(true, nR, nR), new W1Source(false, nS, nR));
            while (results.hasNext()) {
                Batch b = results.next();
                long[] rp = b.column(0).longs();
                long[] sp = b.column(1).longs();
                for (int j = 0, n = b.rowCount(); j < n; j++) {
                    sum += rp[j] + sp[j];
                }
                count += b.rowCount();
            }
            stats = join.stats();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuStart) / 1e9;
        System.out.printf("W1 inner join, R %,d rows x S %,d rows, budget %s%n", nR, nS, ByteSize.format(budget));
        System.out.printf("count %,d  sum %d%n", count, sum);
        System.out.printf("time %.2f s wall, %.2f s CPU of the joining thread (input generation included), %.1f M probe rows"
                + " per CPU second%n", seconds, cpuSeconds, nS / cpuSeconds / 1e6);
        System.out.println("stats " + stats.toJson());
        if (nR == 1_000_000 && nS == 10_000_000) {
            boolean ok = count == 10_000_000L && sum == 21481313584743985L;
            System.out.println(ok ? "matches WORKLOADS.md (count 10,000,000, sum 21481313584743985)"
                    : "MISMATCH with WORKLOADS.md: expected count 10,000,000 and sum 21481313584743985");
            if (!ok) {
                System.exit(1);
            }
        }
    }
}
