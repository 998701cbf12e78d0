package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A task that fails or is killed midway through a join's output (the join open, its spill files, memory and spill
 * root held) leaves no spill file or root in Spark's local directories and no execution memory held: the
 * task-completion listener cleaned up. What the task saw midway is recorded, so the tests prove the resources existed
 * before they were gone. One join spills (a per-task budget at the join's minimum), one takes its memory from Spark;
 * each through {@link SpillJoinSpark} and as a SQL query planned with {@link SpillJoinExec}.
 */
class TaskCleanupTest {
    /** The partition that misbehaves, after this many of its output rows. */
    private static final int BAD_PARTITION = 1;
    private static final int ROWS_BEFORE = 100;
    private static final AtomicInteger spillRootsMidway = new AtomicInteger();
    private static final AtomicLong spillFilesMidway = new AtomicLong();
    private static final AtomicLong taskMemoryMidway = new AtomicLong();
    private static volatile CountDownLatch reachedMidway;
    private static SparkSession spark;
    private static Dataset<Row> spilling;
    private static Dataset<Row> sparkMemory;
    private static Dataset<Row> sqlSpilling;
    private static Dataset<Row> sqlSparkMemory;
    private static String shufflePartitions;

    @BeforeAll
    static void inputs() {
        spark = SharedSpark.session();
        SplittableRandom random = new SplittableRandom(RandomInputs.seed("TaskCleanupTest"));
        Dataset<Row> left = RandomInputs.left(spark, random, 3000, 3000);
        Dataset<Row> right = RandomInputs.right(spark, random, 3000, 3000);
        SpillJoinOptions options = SpillJoinOptions.DEFAULT.withPartitions(2).withBatchRows(50);
        long minimum = HashJoin.minimumBudget(PartitionJoinTask.config(Side.RIGHT, 50, 1));
        spilling = SpillJoinSpark.join(left, right, List.of("k"), List.of("k"), JoinType.INNER,
                options.withTaskBudgetBytes(minimum));
        sparkMemory = SpillJoinSpark.join(left, right, List.of("k"), List.of("k"), JoinType.INNER, options);
        left.createOrReplaceTempView("tc_l");
        right.createOrReplaceTempView("tc_r");
        spark.conf().set(SpillJoinRule.JOINS_SETTING, "shuffled_hash");
        spark.conf().set("spark.sql.adaptive.enabled", "false");
        // Two tasks, both running from the start (as the SpillJoinSpark joins above): no task launched late, while
        // the job is already failing, starts a join after the test looked.
        shufflePartitions = spark.conf().get("spark.sql.shuffle.partitions");
        spark.conf().set("spark.sql.shuffle.partitions", "2");
        String sql = "SELECT /*+ SHUFFLE_HASH(r) */ l.k, l.v, r.v FROM tc_l l JOIN tc_r r ON l.k = r.k";
        sqlSparkMemory = planned(spark.sql(sql));
        spark.conf().set(SpillJoinExecTask.BUDGET_SETTING,
                Long.toString(HashJoin.minimumBudget(PartitionJoinTask.config(Side.RIGHT, SpillJoinExec.BATCH_ROWS, 1))));
        sqlSpilling = planned(spark.sql(sql));
    }

    /** The query with its plan made now (the settings above are read while planning); it must have the node. */
    private static Dataset<Row> planned(Dataset<Row> query) {
        assertThat(SparkPlans.nodes(query.queryExecution().executedPlan(), SpillJoinExec.class)).hasSize(1);
        query.rdd();
        return query;
    }

    @AfterAll
    static void reset() {
        spark.conf().unset(SpillJoinRule.JOINS_SETTING);
        spark.conf().unset("spark.sql.adaptive.enabled");
        spark.conf().set("spark.sql.shuffle.partitions", shufflePartitions);
        spark.conf().unset(SpillJoinExecTask.BUDGET_SETTING);
    }

    @BeforeEach
    void nothingLeftBefore() throws InterruptedException {
        SharedSpark.awaitIdle();
        assertThat(SharedSpark.tempLocalBlocks()).as("spill roots before the test").isEmpty();
        spillRootsMidway.set(0);
        spillFilesMidway.set(0);
        taskMemoryMidway.set(0);
    }

    @Test
    void aTaskFailingMidwayLeavesNoSpillFile() throws InterruptedException {
        failMidwayThroughThe(spilling);
        assertThat(spillFilesMidway.get()).as("spill files while the join ran").isPositive();
        assertNothingLeft();
    }

    @Test
    void aTaskFailingMidwayReturnsItsExecutionMemory() throws InterruptedException {
        failMidwayThroughThe(sparkMemory);
        assertThat(taskMemoryMidway.get()).as("execution memory the failing task held").isPositive();
        assertNothingLeft();
    }

    private static void failMidwayThroughThe(Dataset<Row> joined) throws InterruptedException {
        JavaRDD<Long> failing = joined.javaRDD().mapPartitions(TaskCleanupTest::failMidway);
        assertThatThrownBy(failing::count).isInstanceOf(SparkException.class)
                .hasMessageContaining("injected failure in partition " + BAD_PARTITION);
        SharedSpark.awaitIdle();
        assertThat(spillRootsMidway.get()).as("spill roots while the join ran").isPositive();
    }

    @Test
    void aSpillJoinExecTaskFailingMidwayLeavesNoSpillFile() throws InterruptedException {
        failMidwayThroughThe(sqlSpilling);
        assertThat(spillFilesMidway.get()).as("spill files while the join ran").isPositive();
        assertNothingLeft();
    }

    @Test
    void aSpillJoinExecTaskFailingMidwayReturnsItsExecutionMemory() throws InterruptedException {
        failMidwayThroughThe(sqlSparkMemory);
        assertThat(taskMemoryMidway.get()).as("execution memory the failing task held").isPositive();
        assertNothingLeft();
    }

    @Test
    void aTaskKilledMidwayLeavesNoSpillFile() throws Exception {
        killMidwayThroughThe(spilling);
    }

    @Test
    void aSpillJoinExecTaskKilledMidwayLeavesNoSpillFile() throws Exception {
        killMidwayThroughThe(sqlSpilling);
    }

    private static void killMidwayThroughThe(Dataset<Row> joined) throws Exception {
        SparkContext sc = spark.sparkContext();
        JavaRDD<Long> blocking = joined.javaRDD().mapPartitions(TaskCleanupTest::blockMidway);
        reachedMidway = new CountDownLatch(1);
        CompletableFuture<Long> job = CompletableFuture.supplyAsync(() -> {
            sc.setJobGroup("kill-midway", "a join task killed midway", true);
            return blocking.count();
        });
        assertThat(reachedMidway.await(120, TimeUnit.SECONDS)).as("the task reached the middle of the join").isTrue();
        sc.cancelJobGroup("kill-midway");
        assertThatThrownBy(job::join).isInstanceOf(CompletionException.class)
                .hasRootCauseInstanceOf(SparkException.class).rootCause().hasMessageContaining("cancelled");
        SharedSpark.awaitIdle();
        assertThat(spillFilesMidway.get()).as("spill files while the join ran").isPositive();
        assertNothingLeft();
    }

    /**
     * After a failed job Spark may report the failure while the job's other task is still closing its join (its
     * completion listener runs on its own thread, after the kill), so this waits for the spill roots to go (polling,
     * at most 30 s) before asserting: a root that is never deleted still fails.
     */
    private static void assertNothingLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!SharedSpark.tempLocalBlocks().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(SharedSpark.tempLocalBlocks()).as("spill roots left in Spark's local directories").isEmpty();
        assertThat(SparkEnv.get().memoryManager().executionMemoryUsed()).as("execution memory still held").isZero();
    }

    private static Iterator<Long> failMidway(Iterator<Row> rows) {
        long n = 0;
        while (rows.hasNext()) {
            rows.next();
            if (++n == ROWS_BEFORE && TaskContext.getPartitionId() == BAD_PARTITION) {
                recordMidway();
                throw new IllegalStateException("injected failure in partition " + BAD_PARTITION);
            }
        }
        return List.of(n).iterator();
    }

    private static Iterator<Long> blockMidway(Iterator<Row> rows) throws InterruptedException {
        long n = 0;
        while (rows.hasNext()) {
            rows.next();
            if (++n == ROWS_BEFORE && TaskContext.getPartitionId() == BAD_PARTITION) {
                recordMidway();
                reachedMidway.countDown();
                new CountDownLatch(1).await(); // until the kill interrupts this task's thread
            }
        }
        return List.of(n).iterator();
    }

    private static void recordMidway() {
        spillRootsMidway.set(SharedSpark.tempLocalBlocks().size());
        spillFilesMidway.set(SharedSpark.spillFiles());
        taskMemoryMidway.set(TaskContext.get().taskMemoryManager().getMemoryConsumptionForThisTask());
    }
}
