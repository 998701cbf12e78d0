package dev.spilljoin.spark;

import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.optimizer.BuildRight$;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.joins.BroadcastNestedLoopJoinExec;

/**
 * A single-column {@code x NOT IN (subquery)} that Spark planned as a broadcast nested-loop join: Spark rewrites it
 * into a left anti join on {@code x = y OR isnull(x = y)}, and when the subquery is too large to broadcast as a hash
 * table (its null-aware anti hash join) it broadcasts the subquery's rows anyway and compares every pair. Recognised
 * here so that {@link SpillJoinRule} can plan it as a shuffled null-aware anti join instead ({@link SpillJoinExec}).
 *
 * @param leftKey  x, over the left child's output
 * @param rightKey y, over the subquery's output
 * @param left     the left child
 * @param right    the subquery's plan, below the broadcast exchange
 */
record NotInJoin(Expression leftKey, Expression rightKey, SparkPlan left, SparkPlan right) {

    /** The NOT IN in {@code join}, or null when it is not one (another condition, join type or build side). */
    static NotInJoin of(BroadcastNestedLoopJoinExec join) {
        if (join.joinType() != LeftAnti$.MODULE$ || join.buildSide() != BuildRight$.MODULE$
                || join.condition().isEmpty() || !(join.right() instanceof BroadcastExchangeExec exchange)) {
            return null;
        }
        if (!(join.condition().get() instanceof Or or) || !(or.left() instanceof EqualTo equal)
                || !(or.right() instanceof IsNull isNull) || !isNull.child().semanticEquals(equal)) {
            return null;
        }
        SparkPlan left = join.left();
        SparkPlan right = exchange.child();
        if (equal.left().references().subsetOf(left.outputSet())
                && equal.right().references().subsetOf(right.outputSet())) {
            return new NotInJoin(equal.left(), equal.right(), left, right);
        }
        if (equal.right().references().subsetOf(left.outputSet())
                && equal.left().references().subsetOf(right.outputSet())) {
            return new NotInJoin(equal.right(), equal.left(), left, right);
        }
        return null;
    }
}
