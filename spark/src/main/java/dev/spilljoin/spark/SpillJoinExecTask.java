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
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Predicate;
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
 * An extra join condition (inner joins only: the planner leaves other conditional joins to Spark) is evaluated on
 * each joined row; rows failing it are skipped. Metrics go to the node's {@link SpillJoinMetrics}.
 */
final class SpillJoinExecTask implements FlatMapFunction2<Iterator<InternalRow>, Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;
    static final String BUDGET_SETTING = "spark.spilljoin.taskBudget";

    private final JoinInputLayout left;
    private final JoinInputLayout right;
    private final JoinType joinType;
    private final Side buildSide;
    private final long fixedBudget;
    private final long expectedBudget;
    private final int batchRows;
    private final Expression condition;
    private final Seq<Attribute> output;
    private final SpillJoinMetrics metrics;

    /**
     * @param condition the extra condition of an inner join, bound against {@code output}; null = none
     * @param output    the node's output attributes (the joined row)
     */
    SpillJoinExecTask(JoinInputLayout left, JoinInputLayout right, JoinType joinType, Side buildSide, long fixedBudget,
                      long expectedBudget, int batchRows, Expression condition, Seq<Attribute> output,
                      SpillJoinMetrics metrics) {
        this.left = left;
        this.right = right;
        this.joinType = joinType;
        this.buildSide = buildSide;
        this.fixedBudget = fixedBudget;
        this.expectedBudget = expectedBudget;
        this.batchRows = batchRows;
        this.condition = condition;
        this.output = output;
        this.metrics = metrics;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> leftRows, Iterator<InternalRow> rightRows) {
        TaskContext context = TaskContext.get();
        JoinConfig config = PartitionJoinTask.config(buildSide, batchRows);
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
        for (int c = 0; c < left.childColumns(); c++) {
            projection.add(new ColumnRef(Side.LEFT, c));
            columns.add(left.column(c));
        }
        if (joinType.returnedSideOnly() == null) {
            for (int c = 0; c < right.childColumns(); c++) {
                projection.add(new ColumnRef(Side.RIGHT, c));
                columns.add(right.column(c));
            }
        }
        JoinSpec spec = b.projection(projection).build();
        HashJoin join = HashJoin.create(spec);
        resources.attach(join);
        BatchSource l = left.source(leftRows, spec.leftSchema(), batchRows);
        BatchSource r = right.source(rightRows, spec.rightSchema(), batchRows);
        BasePredicate predicate = null;
        if (condition != null) {
            predicate = Predicate.create(condition, output);
            predicate.initialize(context.partitionId());
        }
        ResultRows rows = new ResultRows(new BatchUnsafeRows(columns.toArray(new SparkColumn[0])), predicate,
                batchRows, metrics);
        return new TaskResultIterator<>(context, resources, join.iterator(l, r), rows, metrics::record);
    }

    /** A result batch as UnsafeRows: all of them, or those the condition accepts (their indexes kept). */
    private static final class ResultRows implements RowFormat.ResultRows<InternalRow> {
        private final BatchUnsafeRows rows;
        private final BasePredicate predicate;
        private final SpillJoinMetrics metrics;
        private int[] selected;
        private int count;

        ResultRows(BatchUnsafeRows rows, BasePredicate predicate, int batchRows, SpillJoinMetrics metrics) {
            this.rows = rows;
            this.predicate = predicate;
            this.metrics = metrics;
            this.selected = new int[batchRows];
        }

        @Override
        public void load(Batch batch) {
            rows.load(batch);
            int n = rows.rowCount();
            if (predicate == null) {
                count = n;
            } else {
                if (selected.length < n) {
                    selected = new int[n];
                }
                count = 0;
                for (int r = 0; r < n; r++) {
                    if (predicate.eval(rows.row(r))) {
                        selected[count++] = r;
                    }
                }
            }
            metrics.addOutputRows(count);
        }

        @Override
        public int rowCount() {
            return count;
        }

        @Override
        public InternalRow row(int r) {
            return rows.row(predicate == null ? r : selected[r]);
        }
    }
}
