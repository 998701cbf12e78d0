package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.CollectionAccumulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A per-task budget small enough that every task's join spills: the stats of every task show spilled partitions
 * and spilled bytes, peak memory within the budget, the workers asked for, the result equals Spark's own join, and no
 * spill file or root is left in Spark's local directories afterwards.
 */
class SpillingTasksTest {
    private static final int PARTITIONS = 3;

    @ParameterizedTest
    @EnumSource(value = JoinType.class, names = {"INNER", "FULL_OUTER", "LEFT_ANTI"})
    void everyTaskSpillsAndTheResultMatchesSpark(JoinType type) throws InterruptedException {
        SparkSession spark = SharedSpark.session();
        long seed = RandomInputs.seed("SpillingTasksTest " + type);
        SplittableRandom random = new SplittableRandom(seed);
        // Either side, if built on, is some twice the budget in every task whatever the seed: 3,000 rows a side,
        // and 8,000 right rows for the anti join, whose right rows are its keys alone in the join's compact rows.
        everyTaskSpills(type, 1, RandomInputs.left(spark, random, 3000, 2000),
                RandomInputs.right(spark, random, type == JoinType.LEFT_ANTI ? 8000 : 3000, 2000), "seed " + seed);
    }

    /**
     * {@code withTaskThreads(2)} at the minimum budget for two workers (larger than one worker's, so larger inputs:
     * each task's build side about three times the budget, a NULL key now and then): each task's join spills and runs
     * on two workers.
     */
    @Test
    void twoWorkersPerTaskSpillAndTheResultMatchesSpark() throws InterruptedException {
        SparkSession spark = SharedSpark.session();
        everyTaskSpills(JoinType.FULL_OUTER, 2,
                spark.sql("SELECT IF(id % 97 = 0, NULL, id % 8000) AS k, concat('l', id) AS v FROM range(16000)"),
                spark.sql("SELECT IF(id % 89 = 0, NULL, id) AS k, repeat(concat('r', id), 16) AS w FROM range(8000)"),
                "inputs from range()");
    }

    /**
     * Each task of a {@code type} join of {@code left} and {@code right} at the minimum budget for {@code threads}
     * workers spills, runs that many, and Spark's rows come out.
     */
    private static void everyTaskSpills(JoinType type, int threads, Dataset<Row> left, Dataset<Row> right,
                                        String inputs) throws InterruptedException {
        SparkSession spark = SharedSpark.session();
        left.createOrReplaceTempView("spill_l");
        right.createOrReplaceTempView("spill_r");
        int batchRows = 256;
        long budget = Math.max(HashJoin.minimumBudget(PartitionJoinTask.config(Side.LEFT, batchRows, threads), threads),
                HashJoin.minimumBudget(PartitionJoinTask.config(Side.RIGHT, batchRows, threads), threads));
        CollectionAccumulator<TaskJoinSummary> stats = spark.sparkContext().collectionAccumulator("spilling " + type);
        SpillJoinOptions options = SpillJoinOptions.DEFAULT.withPartitions(PARTITIONS).withTaskBudgetBytes(budget)
                .withBatchRows(batchRows).withTaskStats(stats).withTaskThreads(threads);
        Dataset<Row> ours = SpillJoinSpark.join(left, right, List.of("k"), List.of("k"), type, options);
        String sql = switch (type) {
            case INNER -> "SELECT l.*, r.* FROM spill_l l JOIN spill_r r ON l.k = r.k";
            case FULL_OUTER -> "SELECT l.*, r.* FROM spill_l l FULL JOIN spill_r r ON l.k = r.k";
            case LEFT_ANTI -> "SELECT l.* FROM spill_l l LEFT ANTI JOIN spill_r r ON l.k = r.k";
            default -> throw new IllegalArgumentException(type.name());
        };
        List<String> actual = SparkRows.sorted(ours);
        List<String> expected = SparkRows.sorted(SparkRows.castLike(spark.sql(sql), ours));
        assertThat(actual).as("%s rows (%s)", type, inputs).isNotEmpty().isEqualTo(expected);

        assertThat(stats.value()).as("one summary per task").hasSize(PARTITIONS).allSatisfy(t -> {
            assertThat(t.budgetBytes()).isEqualTo(budget);
            assertThat(t.peakReservedBytes()).isBetween(1L, budget);
            assertThat(t.spilledPartitions()).as("spilled partitions of task %d: %s", t.partition(), t.statsJson()).isPositive();
            assertThat(t.spilledBytes()).as("spilled bytes of task %d", t.partition()).isPositive();
            assertThat(t.threadsUsed()).as("workers of task %d: %s", t.partition(), t.statsJson()).isEqualTo(threads);
        });
        SharedSpark.awaitIdle();
        assertThat(SharedSpark.tempLocalBlocks()).as("spill roots left in Spark's local directories").isEmpty();
    }
}
