package dev.spilljoin.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.SparkPlan;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * spilljoin inside Spark SQL, for unchanged queries: {@code spark.sql.extensions=dev.spilljoin.spark.SpillJoinExtensions}
 * installs {@link SpillJoinRule}, which plans Spark's shuffled joins as {@link SpillJoinExec} (which ones:
 * {@value SpillJoinRule#JOINS_SETTING}). The rule is injected twice, because adaptive execution and plain execution
 * prepare plans through different hooks: as a query-stage preparation rule (adaptive) and as a pre-columnar rule
 * (plain; under adaptive execution it then finds nothing left to replace). A planner strategy that plans nothing,
 * {@link LocalSortMarks}, marks local sorts so that the rule can put back those Spark dropped given a replaced
 * join's output order.
 */
public final class SpillJoinExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
        extensions.injectPlannerStrategy(session -> new LocalSortMarks());
        extensions.injectQueryStagePrepRule(session -> new SpillJoinRule());
        extensions.injectColumnar(session -> new ColumnarRule() {
            @Override
            public Rule<SparkPlan> preColumnarTransitions() {
                return new SpillJoinRule();
            }
        });
        return BoxedUnit.UNIT;
    }
}
