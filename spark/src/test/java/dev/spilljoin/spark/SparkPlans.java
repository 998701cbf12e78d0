package dev.spilljoin.spark;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.List;

/** The nodes of an executed physical plan, looking inside adaptive plans (their current plan) and query stages. */
final class SparkPlans {
    private SparkPlans() {
    }

    static <T> List<T> nodes(SparkPlan plan, Class<T> type) {
        List<T> found = new ArrayList<>();
        collect(plan, type, found);
        return found;
    }

    private static <T> void collect(SparkPlan plan, Class<T> type, List<T> found) {
        if (plan instanceof AdaptiveSparkPlanExec a) {
            collect(a.executedPlan(), type, found);
            return;
        }
        if (plan instanceof QueryStageExec q) {
            collect(q.plan(), type, found);
            return;
        }
        if (type.isInstance(plan)) {
            found.add(type.cast(plan));
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            collect(child, type, found);
        }
    }
}
