package dev.spilljoin.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where Spark's shuffled hash join fails, spilljoin finishes: a build side whose hot key (four fifths of 300,000
 * rows of about 110 bytes) lands in one partition larger than the whole execution pool ({@link SharedSpark}'s
 * off-heap pool). Spark's own shuffled hash join cannot build its in-memory hash map for that partition and the
 * query fails; with the extension the same query spills and gives the sort-merge join's result. The node's SQL
 * metrics show what it did.
 */
class SparkOutOfMemoryTest {
    private static final String JOIN = " count(*), sum(length(b.p)), sum(s.n) FROM sj_big b JOIN sj_small s ON b.k = s.k";
    private static SparkSession spark;

    @BeforeAll
    static void inputs() {
        spark = SharedSpark.session();
        spark.sql("CREATE OR REPLACE TEMP VIEW sj_big AS SELECT CAST(IF(id % 5 = 0, id, 7) AS STRING) AS k,"
                + " concat(repeat('x', 100), id) AS p FROM range(300000)");
        spark.sql("CREATE OR REPLACE TEMP VIEW sj_small AS SELECT CAST(id AS STRING) AS k, id AS n FROM range(5000)");
        spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    }

    @AfterAll
    static void reset() {
        spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
        spark.conf().unset(SpillJoinRule.JOINS_SETTING);
        spark.catalog().dropTempView("sj_big");
        spark.catalog().dropTempView("sj_small");
    }

    @Test
    void aSkewedShuffledHashJoinSparkCannotBuildFinishesWithSpillJoin() throws InterruptedException {
        List<String> sortMerge = SpillJoinExtensionsTest.rows("SELECT /*+ MERGE(b) */" + JOIN, "off");
        assertThat(sortMerge).singleElement().asString().startsWith("[241000,");

        String shuffledHash = "SELECT /*+ SHUFFLE_HASH(b) */" + JOIN;
        assertThatThrownBy(() -> SpillJoinExtensionsTest.rows(shuffledHash, "off"))
                .hasStackTraceContaining("SparkOutOfMemoryError");
        SharedSpark.awaitIdle();

        assertThat(SpillJoinExtensionsTest.rows(shuffledHash, "shuffled_hash")).isEqualTo(sortMerge);
        List<SpillJoinExec> nodes = SpillJoinExtensionsTest.nodes(SpillJoinExec.class);
        assertThat(nodes).hasSize(1);
        Map<String, SQLMetric> metrics = scala.jdk.javaapi.CollectionConverters.asJava(nodes.get(0).metrics());
        assertThat(metrics.get("numOutputRows").value()).isEqualTo(241000);
        assertThat(metrics.get("buildRows").value()).as("build side rows").isEqualTo(300000);
        assertThat(metrics.get("spillSize").value()).as("bytes spilled").isPositive();
        assertThat(metrics.get("spilledPartitions").value()).as("spilled partitions").isPositive();
        assertThat(metrics.get("peakMemory").value()).as("peak memory").isPositive();
    }
}
