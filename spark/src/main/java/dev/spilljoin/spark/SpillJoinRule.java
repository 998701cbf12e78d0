package dev.spilljoin.spark;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.optimizer.BuildRight$;
import org.apache.spark.sql.catalyst.optimizer.BuildSide;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.execution.exchange.EnsureRequirements;
import org.apache.spark.sql.execution.joins.BroadcastNestedLoopJoinExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractPartialFunction;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The physical-plan rule of {@link SpillJoinExtensions}: replaces Spark's shuffled joins by {@link SpillJoinExec},
 * as {@value #JOINS_SETTING} says: {@code shuffled_hash} (the default) takes the shuffled hash joins Spark planned,
 * {@code all_shuffled} also the sort-merge joins (building the side the optimizer estimates smaller), {@code off}
 * none. Broadcast joins stay Spark's, but for one: under both settings, a single-column {@code NOT IN} that Spark
 * planned as a broadcast nested-loop join (its subquery too large for a broadcast hash table: every pair compared,
 * every subquery row on every executor) becomes a shuffled null-aware anti join ({@link NotInJoin}). A join spilljoin cannot run (see {@link SpillJoinExec#unsupported}) stays
 * Spark's under a {@link SpillJoinFallbackExec} that shows the reason in the plan, and the reason is logged at WARN
 * (once per join, though a plan passes through the rule several times, which first removes its earlier notes).
 *
 * <p>It runs after Spark's {@code EnsureRequirements} (as a query-stage preparation rule under adaptive execution,
 * after its skew-join split; as a pre-columnar rule without it), so the exchanges the replaced join needed are in
 * place and {@link SpillJoinExec} requires the same distribution. The sorts a sort-merge join needed are dropped, and
 * after any replacement {@code EnsureRequirements} runs again, so a parent that requires the replaced join's output
 * order gets a sort; before that, a local sort that Spark had dropped as redundant given that order (a {@code
 * sortWithinPartitions}, a write's sort) is put back ({@link LocalSortMarks#putBack}).
 */
final class SpillJoinRule extends Rule<SparkPlan> {
    static final String JOINS_SETTING = "spark.spilljoin.joins";
    private static final Logger LOG = LoggerFactory.getLogger(SpillJoinRule.class);
    /** Joins already reported as left to Spark (a query's plan passes through the rule several times). */
    private static final int REPORTED_LIMIT = 1024;
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    /** Which of Spark's joins are replaced. */
    enum Joins {
        OFF, SHUFFLED_HASH, ALL_SHUFFLED;

        static Joins parse(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "off" -> OFF;
                case "shuffled_hash" -> SHUFFLED_HASH;
                case "all_shuffled" -> ALL_SHUFFLED;
                default -> throw new IllegalArgumentException(JOINS_SETTING + " is '" + value
                        + "'; set it to shuffled_hash, all_shuffled or off");
            };
        }
    }

    @Override
    public SparkPlan apply(SparkPlan plan) {
        Joins joins = Joins.parse(SQLConf.get().getConfString(JOINS_SETTING, "shuffled_hash"));
        SparkPlan unnoted = plan.transformUp(new AbstractPartialFunction<SparkPlan, SparkPlan>() {
            @Override
            public boolean isDefinedAt(SparkPlan node) {
                return node instanceof SpillJoinFallbackExec;
            }

            @Override
            public SparkPlan apply(SparkPlan node) {
                return ((SpillJoinFallbackExec) node).child();
            }
        });
        if (joins == Joins.OFF) {
            return unnoted;
        }
        boolean[] replaced = {false};
        SparkPlan result = unnoted.transformUp(new AbstractPartialFunction<SparkPlan, SparkPlan>() {
            @Override
            public boolean isDefinedAt(SparkPlan node) {
                return node instanceof ShuffledHashJoinExec
                        || (joins == Joins.ALL_SHUFFLED && node instanceof SortMergeJoinExec)
                        || node instanceof BroadcastNestedLoopJoinExec nested && NotInJoin.of(nested) != null;
            }

            @Override
            public SparkPlan apply(SparkPlan node) {
                SparkPlan exec = node instanceof ShuffledHashJoinExec shj ? replace(shj)
                        : node instanceof SortMergeJoinExec smj ? replace(smj)
                        : replace(node, NotInJoin.of((BroadcastNestedLoopJoinExec) node));
                replaced[0] |= exec instanceof SpillJoinExec;
                return exec;
            }
        });
        return replaced[0] ? StageMemoryShares.mark(new EnsureRequirements(true, Option.empty())
                .apply(LocalSortMarks.putBack(result))) : StageMemoryShares.mark(result);
    }

    private SparkPlan replace(ShuffledHashJoinExec j) {
        return replace(j, j.leftKeys(), j.rightKeys(), j.joinType(), j.buildSide(), j.condition(), j.left(), j.right(),
                j.isSkewJoin(), false);
    }

    /** A NOT IN planned as a broadcast nested-loop join becomes a shuffled null-aware anti join. */
    private SparkPlan replace(SparkPlan join, NotInJoin notIn) {
        return replace(join, seq(notIn.leftKey()), seq(notIn.rightKey()), LeftAnti$.MODULE$, BuildRight$.MODULE$,
                Option.empty(), notIn.left(), notIn.right(), false, true);
    }

    private static Seq<Expression> seq(Expression e) {
        return scala.jdk.javaapi.CollectionConverters.asScala(java.util.List.of(e)).toList();
    }

    private SparkPlan replace(SortMergeJoinExec j) {
        return replace(j, j.leftKeys(), j.rightKeys(), j.joinType(), smallerSide(j), j.condition(), unsorted(j.left()),
                unsorted(j.right()), j.isSkewJoin(), false);
    }

    private SparkPlan replace(SparkPlan join, Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinType type,
                                     BuildSide build, Option<Expression> condition, SparkPlan left, SparkPlan right,
                                     boolean skew, boolean nullAware) {
        String reason = SpillJoinExec.unsupported(leftKeys, rightKeys, type, condition, left, right);
        if (reason != null) {
            String what = join.simpleString(200);
            if (REPORTED.size() > REPORTED_LIMIT) {
                REPORTED.clear();
            }
            if (REPORTED.add(what)) {
                LOG.warn("spilljoin leaves {} to Spark: {}", what, reason);
            }
            SpillJoinFallbackExec note = new SpillJoinFallbackExec(reason, join);
            note.copyTagsFrom(join);
            return note;
        }
        SpillJoinExec exec = new SpillJoinExec(leftKeys, rightKeys, type, build, condition, left, right, skew, nullAware);
        exec.copyTagsFrom(join);
        return exec;
    }

    /** The child below the local sort a sort-merge join needed (EnsureRequirements adds it back where needed). */
    private static SparkPlan unsorted(SparkPlan child) {
        return child instanceof SortExec s && !s.global() ? s.child() : child;
    }

    /** The side the optimizer estimates smaller (right when it has no estimate). */
    private static BuildSide smallerSide(SortMergeJoinExec j) {
        Option<LogicalPlan> link = j.logicalLink();
        if (link.isDefined() && link.get() instanceof Join join
                && join.left().stats().sizeInBytes().compare(join.right().stats().sizeInBytes()) < 0) {
            return BuildLeft$.MODULE$;
        }
        return BuildRight$.MODULE$;
    }
}
