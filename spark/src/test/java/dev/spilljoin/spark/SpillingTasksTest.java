package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinType;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.CollectionAccumulator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A per-task budget small enough that every task's join spills: the stats of every task show spilled partitions
 * and spilled bytes, peak memory within the budget, the result equals Spark's own join, and no spill file or root is
 * left in Spark's local directories afterwards.
 */
class SpillingTasksTest {
    private static final int PARTITIONS = 3;

    @ParameterizedTest
    @EnumSource(value = JoinType.class, names = {"INNER", "FULL_OUTER", "LEFT_ANTI"})
    void everyTaskSpillsAndTheResultMatchesSpark(JoinType type) throws InterruptedException {
        SparkSession spark = SharedSpark.session();
        long seed = RandomInputs.seed("SpillingTasksTest " + type);
        SplittableRandom random = new SplittableRandom(seed);
        Dataset<Row> left = RandomInputs.left(spark, random, 2000, 2000);
        Dataset<Row> right = RandomInputs.right(spark, random, 2000, 2000);
        left.createOrReplaceTempView("spill_l");
        right.createOrReplaceTempView("spill_r");
        long budget = HashJoin.minimumBudget(JoinConfig.DEFAULT);
        CollectionAccumulator<TaskJoinSummary> stats = spark.sparkContext().collectionAccumulator("spilling " + type);
        SpillJoinOptions options = SpillJoinOptions.DEFAULT.withPartitions(PARTITIONS).withTaskBudgetBytes(budget)
                .withBatchRows(256).withTaskStats(stats);
        Dataset<Row> ours = SpillJoinSpark.join(left, right, List.of("k"), List.of("k"), type, options);
        String sql = switch (type) {
            case INNER -> "SELECT l.*, r.* FROM spill_l l JOIN spill_r r ON l.k = r.k";
            case FULL_OUTER -> "SELECT l.*, r.* FROM spill_l l FULL JOIN spill_r r ON l.k = r.k";
            case LEFT_ANTI -> "SELECT l.* FROM spill_l l LEFT ANTI JOIN spill_r r ON l.k = r.k";
            default -> throw new IllegalArgumentException(type.name());
        };
        List<String> actual = SparkRows.sorted(ours);
        List<String> expected = SparkRows.sorted(SparkRows.castLike(spark.sql(sql), ours));
        assertThat(actual).as("%s rows (seed %d)", type, seed).isNotEmpty().isEqualTo(expected);

        assertThat(stats.value()).as("one summary per task").hasSize(PARTITIONS).allSatisfy(t -> {
            assertThat(t.budgetBytes()).isEqualTo(budget);
            assertThat(t.peakReservedBytes()).isBetween(1L, budget);
            assertThat(t.spilledPartitions()).as("spilled partitions of task %d: %s", t.partition(), t.statsJson()).isPositive();
            assertThat(t.spilledBytes()).as("spilled bytes of task %d", t.partition()).isPositive();
        });
        SharedSpark.awaitIdle();
        assertThat(SharedSpark.tempLocalBlocks()).as("spill roots left in Spark's local directories").isEmpty();
    }
}
