package dev.spilljoin.spark;

import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each finished task added to each accumulator, as Spark's listener bus reports it (a task reports only the
 * accumulators it changed): per-task values of a node's SQL metrics, which the driver only shows merged. Register it
 * with {@code sparkContext().addSparkListener} before the query, drain the bus after it ({@link SharedSpark#awaitIdle}).
 */
final class TaskMetricUpdates extends SparkListener {
    private final List<Map<Long, Long>> tasks = new ArrayList<>();

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        Map<Long, Long> updates = new HashMap<>();
        for (AccumulableInfo info : CollectionConverters.asJava(end.taskInfo().accumulables())) {
            if (info.update().isDefined() && info.update().get() instanceof Long value) {
                updates.put(info.id(), value);
            }
        }
        tasks.add(updates);
    }

    /** Per task that changed {@code metric}: its value of {@code metric} and of {@code other} (0 if unchanged). */
    synchronized List<long[]> of(SQLMetric metric, SQLMetric other) {
        List<long[]> values = new ArrayList<>();
        for (Map<Long, Long> task : tasks) {
            Long value = task.get(metric.id());
            if (value != null) {
                values.add(new long[]{value, task.getOrDefault(other.id(), 0L)});
            }
        }
        return values;
    }
}
