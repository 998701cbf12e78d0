package dev.spilljoin.spark;

import org.apache.spark.sql.SparkSession;

/** The Spark session of a benchmark: {@code local[2]}, quiet, loopback only, broadcast joins off. */
final class BenchSession {
    private BenchSession() {
    }

    /** A builder with the benchmark settings and {@code partitions} shuffle partitions; add settings, then create. */
    static SparkSession.Builder builder(String appName, int partitions) {
        return SparkSession.builder().master("local[2]").appName(appName)
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", String.valueOf(partitions))
                .config("spark.sql.autoBroadcastJoinThreshold", "-1");
    }
}
