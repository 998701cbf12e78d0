package dev.spilljoin.spark;

import dev.spilljoin.operator.Side;
import dev.spilljoin.spill.ByteSize;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.optimizer.BuildSide;
import org.apache.spark.sql.catalyst.plans.FullOuter$;
import org.apache.spark.sql.catalyst.plans.InnerLike;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.physical.ClusteredDistribution;
import org.apache.spark.sql.catalyst.plans.physical.Distribution;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.PartitioningCollection;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.UnspecifiedDistribution$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A shuffled equi-join run by spilljoin: Spark's physical plan node that {@link SpillJoinRule} puts where Spark
 * planned a shuffled hash join (or, if configured, a sort-merge join). Like Spark's shuffled joins it requires both
 * children clustered by their join keys, so Spark's own rules insert (and adaptive execution coalesces) the
 * exchanges; a join adaptive execution has already split for skew ({@code isSkewJoin}) takes its children's
 * partitions as they are. Each task joins partition i of both sides with {@link SpillJoinExecTask}: the task's budget
 * comes from Spark's memory manager (or {@value SpillJoinExecTask#BUDGET_SETTING}), its workers from
 * {@value SpillJoinExecTask#THREADS_SETTING} (default 1), spills go to Spark's local directories, and everything is
 * released on success, failure and kill. Rows in and out are {@code UnsafeRow}s.
 *
 * <p>Output: left then right attributes (the outer side's other side nullable); left only for semi and anti joins.
 * Output partitioning follows Spark's shuffled joins; no output ordering is promised (a spilling join does not keep
 * the streamed side's order). The fields are the case-class shape Spark's tree transformations expect: nine
 * constructor arguments in {@link #productElement} order.
 *
 * <p>A NOT IN ({@code isNullAwareAntiJoin}, see {@link NotInJoin}) needs two facts about the whole subquery that no
 * single partition knows: whether it is empty and whether it holds a NULL. Two jobs over the subquery's shuffled rows
 * that stop at the first row found find them first; then a NULL in a non-empty subquery makes the result empty, an empty subquery returns every left
 * row (NULL keys too), and otherwise each task runs a left anti join of the left rows whose key is not NULL.
 */
public final class SpillJoinExec extends SparkPlan {
    private static final long serialVersionUID = 1L;
    static final int BATCH_ROWS = SpillJoinOptions.DEFAULT.batchRows();

    private final Seq<Expression> leftKeys;
    private final Seq<Expression> rightKeys;
    private final JoinType joinType;
    private final BuildSide buildSide;
    private final Option<Expression> condition;
    private final SparkPlan left;
    private final SparkPlan right;
    private final boolean isSkewJoin;
    /** A NOT IN ({@link NotInJoin}): the left anti join's NULL semantics are SQL's {@code NOT IN}'s. */
    private final boolean isNullAwareAntiJoin;
    private final Seq<SparkPlan> children;
    private final Seq<Attribute> output;
    private SpillJoinMetrics metrics;

    public SpillJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinType joinType, BuildSide buildSide,
                         Option<Expression> condition, SparkPlan left, SparkPlan right, boolean isSkewJoin,
                         boolean isNullAwareAntiJoin) {
        this.leftKeys = leftKeys;
        this.rightKeys = rightKeys;
        this.joinType = joinType;
        this.buildSide = buildSide;
        this.condition = condition;
        this.left = left;
        this.right = right;
        this.isSkewJoin = isSkewJoin;
        this.isNullAwareAntiJoin = isNullAwareAntiJoin;
        this.children = seq(left, right);
        this.output = joinOutput(joinType, left.output(), right.output());
    }

    /**
     * Why spilljoin cannot run this join (it stays Spark's); null when it can: the join type must be one of inner,
     * left/right/full outer, left semi, left anti (an extra condition on any of them: the operator evaluates it on
     * candidate pairs, see {@link dev.spilljoin.operator.PairCondition}); every column and key of a type
     * {@link SparkColumn} reads.
     */
    static String unsupported(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinType joinType,
                              Option<Expression> condition, SparkPlan left, SparkPlan right) {
        if (operatorJoinType(joinType) == null) {
            return "join type " + joinType + " is not one spilljoin runs";
        }
        String l = JoinInputLayout.unsupported(left.output(), leftKeys, "left");
        return l != null ? l : JoinInputLayout.unsupported(right.output(), rightKeys, "right");
    }

    /** The operator's join type of a Spark join type; null when spilljoin does not run it. */
    static dev.spilljoin.operator.JoinType operatorJoinType(JoinType type) {
        if (type instanceof InnerLike) {
            return dev.spilljoin.operator.JoinType.INNER;
        }
        if (type == LeftOuter$.MODULE$) {
            return dev.spilljoin.operator.JoinType.LEFT_OUTER;
        }
        if (type == RightOuter$.MODULE$) {
            return dev.spilljoin.operator.JoinType.RIGHT_OUTER;
        }
        if (type == FullOuter$.MODULE$) {
            return dev.spilljoin.operator.JoinType.FULL_OUTER;
        }
        if (type == LeftSemi$.MODULE$) {
            return dev.spilljoin.operator.JoinType.LEFT_SEMI;
        }
        if (type == LeftAnti$.MODULE$) {
            return dev.spilljoin.operator.JoinType.LEFT_ANTI;
        }
        return null;
    }

    private static Seq<Attribute> joinOutput(JoinType type, Seq<Attribute> l, Seq<Attribute> r) {
        if (type == LeftSemi$.MODULE$ || type == LeftAnti$.MODULE$) {
            return l;
        }
        boolean nullLeft = type == RightOuter$.MODULE$ || type == FullOuter$.MODULE$;
        boolean nullRight = type == LeftOuter$.MODULE$ || type == FullOuter$.MODULE$;
        List<Attribute> out = new ArrayList<>();
        for (Attribute a : CollectionConverters.asJava(l)) {
            out.add(nullLeft ? a.withNullability(true) : a);
        }
        for (Attribute a : CollectionConverters.asJava(r)) {
            out.add(nullRight ? a.withNullability(true) : a);
        }
        return CollectionConverters.asScala(out).toList();
    }

    /** The attributes of a joined pair, left then right, as the condition is bound against them. */
    private static Seq<Attribute> bothSides(Seq<Attribute> l, Seq<Attribute> r) {
        List<Attribute> out = new ArrayList<>(CollectionConverters.asJava(l));
        out.addAll(CollectionConverters.asJava(r));
        return CollectionConverters.asScala(out).toList();
    }

    @SafeVarargs
    private static <T> Seq<T> seq(T... items) {
        return CollectionConverters.asScala(Arrays.asList(items)).toList();
    }

    public Seq<Expression> leftKeys() {
        return leftKeys;
    }

    public Seq<Expression> rightKeys() {
        return rightKeys;
    }

    public JoinType joinType() {
        return joinType;
    }

    public BuildSide buildSide() {
        return buildSide;
    }

    public Option<Expression> condition() {
        return condition;
    }

    public SparkPlan left() {
        return left;
    }

    public SparkPlan right() {
        return right;
    }

    public boolean isSkewJoin() {
        return isSkewJoin;
    }

    public boolean isNullAwareAntiJoin() {
        return isNullAwareAntiJoin;
    }

    @Override
    public Seq<Attribute> output() {
        return output;
    }

    @Override
    public Seq<SparkPlan> children() {
        return children;
    }

    @Override
    public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
        return new SpillJoinExec(leftKeys, rightKeys, joinType, buildSide, condition, newChildren.apply(0),
                newChildren.apply(1), isSkewJoin, isNullAwareAntiJoin);
    }

    @Override
    public Seq<Distribution> requiredChildDistribution() {
        if (isSkewJoin) {
            return seq(UnspecifiedDistribution$.MODULE$, UnspecifiedDistribution$.MODULE$);
        }
        return seq(clustered(leftKeys), clustered(rightKeys));
    }

    private static Distribution clustered(Seq<Expression> keys) {
        return ClusteredDistribution.apply(keys, ClusteredDistribution.apply$default$2(),
                ClusteredDistribution.apply$default$3());
    }

    @Override
    public Partitioning outputPartitioning() {
        if (joinType instanceof InnerLike) {
            return new PartitioningCollection(seq(left.outputPartitioning(), right.outputPartitioning()));
        }
        if (joinType == RightOuter$.MODULE$) {
            return right.outputPartitioning();
        }
        if (joinType == FullOuter$.MODULE$) {
            return new UnknownPartitioning(left.outputPartitioning().numPartitions());
        }
        return left.outputPartitioning();
    }

    @Override
    public synchronized Map<String, SQLMetric> metrics() {
        if (metrics == null) {
            metrics = new SpillJoinMetrics(sparkContext());
        }
        return metrics.asMap();
    }

    @Override
    public RDD<InternalRow> doExecute() {
        metrics();
        RDD<InternalRow> leftRows = left.execute();
        RDD<InternalRow> rightRows = right.execute();
        JoinInputLayout rightLayout = JoinInputLayout.of(right.output(), rightKeys);
        boolean dropsNullKeyLeftRows = false;
        if (isNullAwareAntiJoin && !rightRows.isEmpty()) {
            if (rightLayout.anyNullKey(rightRows)) {
                return leftRows.toJavaRDD().mapPartitions(rows -> Collections.<InternalRow>emptyIterator()).rdd();
            }
            dropsNullKeyLeftRows = true;
        }
        long fixedBudget = JavaUtils.byteStringAsBytes(conf().getConfString(SpillJoinExecTask.BUDGET_SETTING, "0"));
        int threads = SpillJoinExecTask.threads(conf().getConfString(SpillJoinExecTask.THREADS_SETTING, "1"));
        SpillJoinExecTask task = new SpillJoinExecTask(JoinInputLayout.of(left.output(), leftKeys), rightLayout,
                operatorJoinType(joinType), buildSide == BuildLeft$.MODULE$ ? Side.LEFT : Side.RIGHT, fixedBudget,
                PartitionSizing.expectedTaskBudget(sparkContext()) / StageMemoryShares.operatorsBeside(this), threads,
                BATCH_ROWS,
                condition.isDefined() ? condition.get() : null, bothSides(left.output(), right.output()),
                dropsNullKeyLeftRows, metrics);
        return leftRows.toJavaRDD().zipPartitions(rightRows.toJavaRDD(), task).rdd();
    }

    /** EXPLAIN's line: keys, join type, build side, the condition if any, and whether adaptive execution split it. */
    @Override
    public scala.collection.Iterator<Object> stringArgs() {
        List<Object> args = new ArrayList<>(List.of(leftKeys, rightKeys, joinType, buildSide));
        if (condition.isDefined()) {
            args.add(condition.get());
        }
        if (isSkewJoin) {
            args.add("isSkewJoin=true");
        }
        if (isNullAwareAntiJoin) {
            args.add("isNullAwareAntiJoin=true");
        }
        return CollectionConverters.asScala(args.iterator());
    }

    /** EXPLAIN FORMATTED's block, like Spark's joins'. */
    @Override
    public String verboseStringWithOperatorId() {
        String budget = conf().getConfString(SpillJoinExecTask.BUDGET_SETTING, "0");
        return formattedNodeName() + "\n"
                + "Left keys [" + leftKeys.size() + "]: " + leftKeys.mkString("[", ", ", "]") + "\n"
                + "Right keys [" + rightKeys.size() + "]: " + rightKeys.mkString("[", ", ", "]") + "\n"
                + "Join type: " + joinType + (isNullAwareAntiJoin ? " (null-aware: NOT IN)" : "") + "\n"
                + "Build side: " + buildSide + "\n"
                + "Join condition: " + (condition.isDefined() ? condition.get().sql() : "None") + "\n"
                + "Task budget: " + ("0".equals(budget) ? "from Spark's memory manager"
                : ByteSize.format(JavaUtils.byteStringAsBytes(budget))) + "\n"
                + "Task threads: " + SpillJoinExecTask.threads(conf().getConfString(SpillJoinExecTask.THREADS_SETTING, "1"))
                + "\n";
    }

    @Override
    public int productArity() {
        return 9;
    }

    @Override
    public Object productElement(int n) {
        return switch (n) {
            case 0 -> leftKeys;
            case 1 -> rightKeys;
            case 2 -> joinType;
            case 3 -> buildSide;
            case 4 -> condition;
            case 5 -> left;
            case 6 -> right;
            case 7 -> isSkewJoin;
            case 8 -> isNullAwareAntiJoin;
            default -> throw new IndexOutOfBoundsException("SpillJoinExec has 9 elements, not " + n);
        };
    }

    @Override
    public boolean canEqual(Object that) {
        return that instanceof SpillJoinExec;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SpillJoinExec j && leftKeys.equals(j.leftKeys) && rightKeys.equals(j.rightKeys)
                && joinType.equals(j.joinType) && buildSide.equals(j.buildSide) && condition.equals(j.condition)
                && left.equals(j.left) && right.equals(j.right) && isSkewJoin == j.isSkewJoin
                && isNullAwareAntiJoin == j.isNullAwareAntiJoin;
    }

    @Override
    public int hashCode() {
        return Objects.hash(leftKeys, rightKeys, joinType, buildSide, condition, left, right, isSkewJoin,
                isNullAwareAntiJoin);
    }
}
