package dev.spilljoin.spark;

import dev.spilljoin.operator.JoinStats;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import scala.collection.immutable.Map;
import scala.jdk.javaapi.CollectionConverters;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The SQL metrics of a {@link SpillJoinExec} node, shown per node in the Spark UI's SQL tab: created on the driver,
 * shipped with the tasks, each task adding its join's {@link JoinStats} once when its output is exhausted (output
 * rows are added batch by batch as they leave). Size and time metrics show total (min, med, max) over tasks; the
 * per-task ones (max recursion depth, workers used) show (min, med, max) over tasks, as Spark's average metrics do
 * (set as doubles: Spark keeps them ×10 for one decimal).
 */
final class SpillJoinMetrics implements Serializable {
    private static final long serialVersionUID = 1L;

    private final SQLMetric outputRows;
    private final SQLMetric buildRows;
    private final SQLMetric peakMemory;
    private final SQLMetric spillSize;
    private final SQLMetric spilledPartitions;
    private final SQLMetric maxRecursionDepth;
    private final SQLMetric heavyHitterKeys;
    private final SQLMetric threadsUsed;
    private final SQLMetric buildTime;
    private final SQLMetric probeTime;
    private final SQLMetric spilledPairsTime;
    private final Map<String, SQLMetric> all;

    SpillJoinMetrics(SparkContext sc) {
        outputRows = SQLMetrics.createMetric(sc, "number of output rows");
        buildRows = SQLMetrics.createMetric(sc, "build side rows");
        peakMemory = SQLMetrics.createSizeMetric(sc, "peak memory", SQLMetrics.createSizeMetric$default$3());
        spillSize = SQLMetrics.createSizeMetric(sc, "spill size", SQLMetrics.createSizeMetric$default$3());
        spilledPartitions = SQLMetrics.createMetric(sc, "spilled partitions");
        maxRecursionDepth = SQLMetrics.createAverageMetric(sc, "max recursion depth");
        heavyHitterKeys = SQLMetrics.createMetric(sc, "heavy-hitter keys");
        threadsUsed = SQLMetrics.createAverageMetric(sc, "workers used");
        buildTime = SQLMetrics.createTimingMetric(sc, "time in build", SQLMetrics.createTimingMetric$default$3());
        probeTime = SQLMetrics.createTimingMetric(sc, "time in probe", SQLMetrics.createTimingMetric$default$3());
        spilledPairsTime = SQLMetrics.createTimingMetric(sc, "time in spilled pairs",
                SQLMetrics.createTimingMetric$default$3());
        java.util.Map<String, SQLMetric> m = new LinkedHashMap<>();
        m.put("numOutputRows", outputRows);
        m.put("buildRows", buildRows);
        m.put("peakMemory", peakMemory);
        m.put("spillSize", spillSize);
        m.put("spilledPartitions", spilledPartitions);
        m.put("maxRecursionDepth", maxRecursionDepth);
        m.put("heavyHitterKeys", heavyHitterKeys);
        m.put("threadsUsed", threadsUsed);
        m.put("buildTime", buildTime);
        m.put("probeTime", probeTime);
        m.put("spilledPairsTime", spilledPairsTime);
        all = scala.collection.immutable.Map.from(CollectionConverters.asScala(m));
    }

    Map<String, SQLMetric> asMap() {
        return all;
    }

    void addOutputRows(long rows) {
        outputRows.add(rows);
    }

    /** Adds a finished task's join. */
    void record(JoinStats stats) {
        buildRows.add(stats.rows(stats.buildSide()));
        peakMemory.add(stats.peakReservedBytes());
        spillSize.add(stats.spilledBytesBuild() + stats.spilledBytesProbe());
        spilledPartitions.add(stats.partitions());
        maxRecursionDepth.set((double) stats.maxRecursionDepth());
        heavyHitterKeys.add(stats.heavyHitterKeys());
        threadsUsed.set((double) stats.threadsUsed());
        buildTime.add(TimeUnit.NANOSECONDS.toMillis(stats.buildNanos()));
        probeTime.add(TimeUnit.NANOSECONDS.toMillis(stats.probeNanos()));
        spilledPairsTime.add(TimeUnit.NANOSECONDS.toMillis(stats.spilledPairsNanos()));
    }

}
