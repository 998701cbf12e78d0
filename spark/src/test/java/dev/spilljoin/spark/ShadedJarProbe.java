package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.Side;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Run by {@link ShadedJarIT} in its own JVM, with Spark's jars first on the class path and the -all jar after them
 * (as {@code spark-submit --jars} arranges it): a SQL join planned as {@link SpillJoinExec} that spills in every task
 * (its key-frequency sketches included), compared with Spark's own join; prints what the test checks.
 * Argument: the directory for Spark's local files.
 */
final class ShadedJarProbe {
    private ShadedJarProbe() {
    }

    public static void main(String[] args) throws ClassNotFoundException {
        SparkSession spark = SparkSession.builder().master("local[1]").appName("spilljoin-shaded-jar-probe")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.local.dir", args[0])
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.extensions", SpillJoinExtensions.class.getName())
                .getOrCreate();
        try {
            spark.sql("CREATE TEMP VIEW probe_l AS SELECT IF(id % 3 = 0, 7, id % 5000) AS k, id FROM range(60000)");
            spark.sql("CREATE TEMP VIEW probe_r AS SELECT IF(id % 4 = 0, 7, id % 7000) AS k, id,"
                    + " repeat('x', 40) AS pad FROM range(40000)");
            String sql = "SELECT /*+ SHUFFLE_HASH(r) */ count(*), sum(l.id + r.id), sum(length(r.pad))"
                    + " FROM probe_l l JOIN probe_r r ON l.k = r.k";
            spark.conf().set(SpillJoinRule.JOINS_SETTING, "off");
            Row expected = spark.sql(sql).first();
            spark.conf().set(SpillJoinRule.JOINS_SETTING, "shuffled_hash");
            spark.conf().set(SpillJoinExecTask.BUDGET_SETTING, Long.toString(
                    HashJoin.minimumBudget(PartitionJoinTask.config(Side.RIGHT, SpillJoinExec.BATCH_ROWS, 1))));
            Dataset<Row> query = spark.sql(sql);
            Row actual = query.collectAsList().get(0);
            long spilled = SparkPlans.nodes(query.queryExecution().executedPlan(), SpillJoinExec.class).stream()
                    .mapToLong(n -> n.metrics().apply("spilledPartitions").value()).sum();
            System.out.println("rows equal: " + expected.equals(actual) + " (" + actual + ")");
            System.out.println("spilled partitions: " + spilled);
            System.out.println("spilljoin from: " + location(SpillJoinExec.class.getName()));
            System.out.println("sketches from: "
                    + location("dev.spilljoin.shaded.org.apache.datasketches.frequencies.LongsSketch"));
            System.out.println("caffeine from: " + location("dev.spilljoin.shaded.com.github.benmanes.caffeine.cache.Caffeine"));
        } finally {
            spark.stop();
        }
    }

    private static String location(String className) throws ClassNotFoundException {
        return Class.forName(className).getProtectionDomain().getCodeSource().getLocation().getPath();
    }
}
