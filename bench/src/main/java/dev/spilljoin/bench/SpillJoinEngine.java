package dev.spilljoin.bench;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;

import java.util.Iterator;
import java.util.OptionalLong;

/**
 * spilljoin's operator as a contender: the tables are held in memory as {@code long[]} columns (loading is untimed,
 * as every engine's is), and a run streams them through a {@link HashJoin} in batches under the budget, computing
 * {@code count(*)} and {@code sum(r.p + s.p)} from the result batches as the SQL query would (for W3L, S LEFT JOIN R,
 * a row whose {@code r.p} is NULL counts but adds nothing to the sum). The timed run includes the batch copies from
 * the columns, the join and the aggregation.
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
        return new TimedRun(result, System.nanoTime() - start);
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
        long count = 0;
        long sum = 0;
        try (HashJoin join = HashJoin.create(spec)) {
            Iterator<Batch> results = join.iterator(new ColumnsSource(left), new ColumnsSource(right));
            while (results.hasNext()) {
                Batch batch = results.next();
                int n = batch.rowCount();
                ColumnVector rp = batch.column(0);
                long[] r = rp.longs();
                long[] s = batch.column(1).longs();
                count += n;
                if (rp.mayHaveNulls()) {
                    for (int i = 0; i < n; i++) {
                        sum += rp.isNull(i) ? 0 : r[i] + s[i];
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        sum += r[i] + s[i];
                    }
                }
            }
            lastStats = join.stats();
        }
        return new JoinResult(count, sum);
    }

    @Override
    public void close() {
        build = null;
        probe = null;
    }

    /** Streams in-memory columns as batches of {@link #BATCH_ROWS} rows, with exact size hints. */
    private static final class ColumnsSource implements BatchSource {
        private final TableSource.Columns columns;
        private final Batch batch = new Batch(SCHEMA, BATCH_ROWS);
        private int next;

        ColumnsSource(TableSource.Columns columns) {
            this.columns = columns;
        }

        @Override
        public Batch next() {
            int rows = columns.keys().length;
            if (next >= rows) {
                return null;
            }
            batch.reset();
            int n = Math.min(BATCH_ROWS, rows - next);
            System.arraycopy(columns.keys(), next, batch.column(0).longs(), 0, n);
            System.arraycopy(columns.payloads(), next, batch.column(1).longs(), 0, n);
            batch.setRowCount(n);
            next += n;
            return batch;
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
