package dev.spilljoin.bench;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * spilljoin's operator as a contender: the tables are held in memory as {@code long[]} columns (loading is untimed,
 * as every engine's is), and a run streams them through a {@link HashJoin} in batches under the budget, computing
 * {@code count(*)} and {@code sum(r.p + s.p)} from the result batches as the SQL query would (for W3L, S LEFT JOIN R,
 * a row whose {@code r.p} is NULL counts but adds nothing to the sum). The timed run includes the batch copies from
 * the columns, the join and the aggregation. As an engine with parallel scans and aggregation would, it hands the join
 * sources that every worker reads for itself ({@link BatchSource#concurrentReader()}) and a thread-safe sink that
 * aggregates each batch on the thread that made it, as DuckDB's own scan and aggregate run on all its threads.
 */
final class SpillJoinEngine implements Engine {
    private static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("p", ColumnType.BIGINT));
    private static final int BATCH_ROWS = 4096;

    private final int threads;
    private TableSource.Columns build;
    private TableSource.Columns probe;
    private JoinStats lastStats;

    /** The operator with {@code threads} workers ({@link JoinConfig#threads()}). */
    SpillJoinEngine(int threads) {
        this.threads = threads;
    }

    @Override
    public String name() {
        return ResultTable.SPILLJOIN;
    }

    @Override
    public void load(TableSource rows) {
        if (rows.role() == TableSource.Role.BUILD) {
            build = null;
            build = rows.materialize();
        } else {
            probe = null;
            probe = rows.materialize();
        }
    }

    @Override
    public EngineProfile profile(Workload workload, long budgetBytes) {
        JoinResult result = join(workload, budgetBytes);
        return new EngineProfile(OptionalLong.of(lastStats.peakReservedBytes()),
                OptionalLong.of(lastStats.spilledBytesBuild() + lastStats.spilledBytesProbe()), result,
                "build side " + lastStats.buildSide().name().toLowerCase(java.util.Locale.ROOT) + ", fanout "
                        + lastStats.fanout() + ", spilled partitions " + lastStats.partitions() + ", depth "
                        + lastStats.maxRecursionDepth() + ", tables " + lastStats.tableKind() + " (direct "
                        + lastStats.directTables() + ", hash " + lastStats.hashTables() + "), workers "
                        + lastStats.threadsUsed() + " of " + lastStats.threads());
    }

    @Override
    public TimedRun run(Workload workload, long budgetBytes) {
        long start = System.nanoTime();
        JoinResult result = join(workload, budgetBytes);
        return new TimedRun(result, System.nanoTime() - start, lastStats.toJson());
    }

    private JoinResult join(Workload workload, long budgetBytes) {
        if (build == null || probe == null) {
            throw new IllegalStateException("load both tables before running a workload");
        }
        boolean probeOuter = workload.joinKind() == Workload.JoinKind.PROBE_OUTER;
        // The SQL texts: R JOIN S, or S LEFT JOIN R. Output columns are always (r.p, s.p).
        TableSource.Columns left = probeOuter ? probe : build;
        TableSource.Columns right = probeOuter ? build : probe;
        Side rSide = probeOuter ? Side.RIGHT : Side.LEFT;
        JoinSpec spec = JoinSpec.builder(SCHEMA, SCHEMA).on("k", "k")
                .joinType(probeOuter ? JoinType.LEFT_OUTER : JoinType.INNER)
                .project(rSide, "p").project(rSide == Side.LEFT ? Side.RIGHT : Side.LEFT, "p")
                .budgetBytes(budgetBytes).config(JoinConfig.builder().threads(threads).build()).build();
        CountAndSum aggregate = new CountAndSum();
        try (HashJoin join = HashJoin.create(spec)) {
            join.run(new ColumnsSource(left, new AtomicInteger()), new ColumnsSource(right, new AtomicInteger()),
                    aggregate);
            lastStats = join.stats();
        }
        return aggregate.result();
    }

    /**
     * {@code count(*)} and {@code sum(r.p + s.p)} over the result batches, from any number of threads at once: each
     * batch is summed on its thread, then added under this object's monitor (once a batch; a
     * {@link java.util.concurrent.atomic.LongAdder} did the same with far more code for the JIT to compile into the
     * workers' hand-off, and recompile when two workers first contended).
     */
    private static final class CountAndSum implements BatchSink {
        private long count;
        private long sum;

        @Override
        public void accept(Batch batch) {
            int n = batch.rowCount();
            ColumnVector rp = batch.column(0);
            long[] r = rp.longs();
            long[] s = batch.column(1).longs();
            long total = 0;
            if (rp.mayHaveNulls()) {
                for (int i = 0; i < n; i++) {
                    total += rp.isNull(i) ? 0 : r[i] + s[i];
                }
            } else {
                for (int i = 0; i < n; i++) {
                    total += r[i] + s[i];
                }
            }
            synchronized (this) {
                count += n;
                sum += total;
            }
        }

        synchronized JoinResult result() {
            return new JoinResult(count, sum);
        }

        @Override
        public boolean isThreadSafe() {
            return true;
        }
    }

    @Override
    public void close() {
        build = null;
        probe = null;
    }

    /**
     * Streams in-memory columns as batches of {@link #BATCH_ROWS} rows, with exact size hints; its readers take the
     * next batch's rows from one shared position, each copying them into a batch of its own.
     */
    private static final class ColumnsSource implements BatchSource {
        private final TableSource.Columns columns;
        private final AtomicInteger position;
        private final Batch batch = new Batch(SCHEMA, BATCH_ROWS);

        ColumnsSource(TableSource.Columns columns, AtomicInteger position) {
            this.columns = columns;
            this.position = position;
        }

        @Override
        public Batch next() {
            int rows = columns.keys().length;
            int first = position.getAndAdd(BATCH_ROWS);
            if (first >= rows) {
                return null;
            }
            batch.reset();
            int n = Math.min(BATCH_ROWS, rows - first);
            System.arraycopy(columns.keys(), first, batch.column(0).longs(), 0, n);
            System.arraycopy(columns.payloads(), first, batch.column(1).longs(), 0, n);
            batch.setRowCount(n);
            return batch;
        }

        @Override
        public BatchSource concurrentReader() {
            return new ColumnsSource(columns, position);
        }

        @Override
        public long sizeHintBytes() {
            return 16L * columns.keys().length;
        }

        @Override
        public long sizeHintRows() {
            return columns.keys().length;
        }
    }
}
