package dev.spilljoin.spark;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction2;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import scala.collection.immutable.Seq;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The task of a {@link SpillJoinExec}: joins partition i of both children (co-partitioned by the join keys, or
 * matching skew-split pieces) with a spilljoin {@link HashJoin} over Spark's internal rows, and returns
 * {@code UnsafeRow}s of the node's output (left columns then right columns; left only for semi and anti joins).
 *
 * <p>Resources, budget, spill root and cleanup on success, failure and kill are {@link TaskJoinResources#forTask}'s;
 * the inputs are read per {@link JoinInputLayout}; keys the child does not have as a column are computed per row.
 * An extra join condition goes to the operator as a {@link TaskPairCondition} over both sides' columns: it is evaluated on
 * each candidate pair (equal keys) as an UnsafeRow of the left then the right child's columns, so outer, semi and
 * anti joins count only the pairs it accepts as matches, as Spark's own joins do. The join runs on one worker unless
 * {@value #THREADS_SETTING} gives more (Spark already runs a task per core). Metrics go to the node's
 * {@link SpillJoinMetrics}.
 */
final class SpillJoinExecTask implements FlatMapFunction2<Iterator<InternalRow>, Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;
    static final String BUDGET_SETTING = "spark.spilljoin.taskBudget";
    static final String THREADS_SETTING = "spark.spilljoin.taskThreads";

    private final JoinInputLayout left;
    private final JoinInputLayout right;
    private final JoinType joinType;
    private final Side buildSide;
    private final long fixedBudget;
    private final long expectedBudget;
    private final int threads;
    private final int batchRows;
    private final Expression condition;
    private final Seq<Attribute> pairAttributes;
    private final boolean dropsNullKeyLeftRows;
    private final SpillJoinMetrics metrics;

    /**
     * @param threads        the workers of each task's join ({@value #THREADS_SETTING}, see {@link #threads(String)})
     * @param condition      the extra join condition, over {@code pairAttributes}; null = none
     * @param pairAttributes the attributes of a joined pair: the left child's output, then the right child's
     * @param dropsNullKeyLeftRows whether left rows with a NULL key are dropped before the join (a NOT IN whose
     *                             subquery is non-empty and has no NULL: such rows are not in the result)
     */
    SpillJoinExecTask(JoinInputLayout left, JoinInputLayout right, JoinType joinType, Side buildSide, long fixedBudget,
                      long expectedBudget, int threads, int batchRows, Expression condition, Seq<Attribute> pairAttributes,
                      boolean dropsNullKeyLeftRows, SpillJoinMetrics metrics) {
        this.left = left;
        this.right = right;
        this.joinType = joinType;
        this.buildSide = buildSide;
        this.fixedBudget = fixedBudget;
        this.expectedBudget = expectedBudget;
        this.threads = threads;
        this.batchRows = batchRows;
        this.condition = condition;
        this.pairAttributes = pairAttributes;
        this.dropsNullKeyLeftRows = dropsNullKeyLeftRows;
        this.metrics = metrics;
    }

    /**
     * The workers per task's join that {@value #THREADS_SETTING} gives (1 when unset): a whole number from 1 to
     * {@value JoinConfig#MAX_THREADS}, else an error that says so.
     */
    static int threads(String setting) {
        int threads;
        try {
            threads = Integer.parseInt(setting.trim());
        } catch (NumberFormatException e) {
            threads = 0;
        }
        if (threads < 1 || threads > JoinConfig.MAX_THREADS) {
            throw new IllegalArgumentException(THREADS_SETTING + " is '" + setting + "'; set it to a whole number of"
                    + " workers per task from 1 to " + JoinConfig.MAX_THREADS + " (1, the default, leaves the"
                    + " parallelism to Spark's tasks)");
        }
        return threads;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> leftRows, Iterator<InternalRow> rightRows) {
        TaskContext context = TaskContext.get();
        JoinConfig config = PartitionJoinTask.config(buildSide, batchRows, threads);
        TaskJoinResources resources = TaskJoinResources.forTask(context, fixedBudget, expectedBudget,
                HashJoin.minimumBudget(config), BUDGET_SETTING);
        JoinSpec.Builder b = JoinSpec.builder(left.schema("l"), right.schema("r")).joinType(joinType)
                .budgetBytes(resources.budget()).config(config.toBuilder().spillDirectory(resources.spillRoot()).build());
        int[] lk = left.keys();
        int[] rk = right.keys();
        for (int k = 0; k < lk.length; k++) {
            b.on(lk[k], rk[k]);
        }
        List<ColumnRef> projection = new ArrayList<>();
        List<SparkColumn> columns = new ArrayList<>();
        List<ColumnRef> pairColumns = new ArrayList<>();
        List<SparkColumn> pairSparkColumns = new ArrayList<>();
        for (int c = 0; c < left.childColumns(); c++) {
            projection.add(new ColumnRef(Side.LEFT, c));
            columns.add(left.column(c));
        }
        pairColumns.addAll(projection);
        pairSparkColumns.addAll(columns);
        for (int c = 0; c < right.childColumns(); c++) {
            pairColumns.add(new ColumnRef(Side.RIGHT, c));
            pairSparkColumns.add(right.column(c));
        }
        if (joinType.returnedSideOnly() == null) {
            projection = pairColumns;
            columns = pairSparkColumns;
        }
        if (condition != null) {
            b.condition(pairColumns, TaskPairCondition.create(context, condition, pairAttributes,
                    pairSparkColumns.toArray(new SparkColumn[0]), threads));
        }
        JoinSpec spec = b.projection(projection).build();
        HashJoin join = HashJoin.create(spec);
        resources.attach(join);
        BatchSource l = left.source(dropsNullKeyLeftRows ? left.withNonNullKeys(leftRows) : leftRows, spec.leftSchema(),
                batchRows);
        BatchSource r = right.source(rightRows, spec.rightSchema(), batchRows);
        ResultRows rows = new ResultRows(new BatchUnsafeRows(columns.toArray(new SparkColumn[0])), metrics);
        return new TaskResultIterator<>(context, resources, join.iterator(l, r), rows, metrics::record);
    }

    /** A result batch as UnsafeRows. */
    private static final class ResultRows implements RowFormat.ResultRows<InternalRow> {
        private final BatchUnsafeRows rows;
        private final SpillJoinMetrics metrics;

        ResultRows(BatchUnsafeRows rows, SpillJoinMetrics metrics) {
            this.rows = rows;
            this.metrics = metrics;
        }

        @Override
        public void load(Batch batch) {
            rows.load(batch);
            metrics.addOutputRows(rows.rowCount());
        }

        @Override
        public int rowCount() {
            return rows.rowCount();
        }

        @Override
        public InternalRow row(int r) {
            return rows.row(r);
        }
    }
}
