package dev.spilljoin.spark;

import dev.spilljoin.operator.JoinType;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.CollectionAccumulator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.SplittableRandom;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every join type against Spark's own join of the same random inputs (NULL keys, duplicates, a hot key, an INT key
 * joined to a BIGINT key), compared as multisets (sorted rows collected to the driver). Each join also reports its
 * tasks' stats: one per partition, each within its budget, summing to the result's row count.
 */
class SpillJoinSparkJoinTypesTest {
    private static final int PARTITIONS = 3;
    private static SparkSession spark;
    private static long seed;
    private static Dataset<Row> left;
    private static Dataset<Row> right;

    @BeforeAll
    static void inputs() {
        spark = SharedSpark.session();
        seed = RandomInputs.seed("SpillJoinSparkJoinTypesTest");
        SplittableRandom random = new SplittableRandom(seed);
        left = RandomInputs.left(spark, random, 1200, 150).cache();
        right = RandomInputs.right(spark, random, 1500, 150).cache();
        left.createOrReplaceTempView("l");
        right.createOrReplaceTempView("r");
    }

    @ParameterizedTest
    @EnumSource(JoinType.class)
    void singleKeyMatchesSparkJoin(JoinType type) {
        long rows = assertMatches(left, right, List.of("k"), type, spark.sql(referenceSql(type)), true);
        if (type != JoinType.NULL_AWARE_LEFT_ANTI) {
            assertThat(rows).as("a non-empty result, so the comparison means something").isPositive();
        } else {
            assertThat(rows).as("the right side has a NULL key: NOT IN is empty").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = JoinType.class, names = {"INNER", "FULL_OUTER", "RIGHT_ANTI"})
    void publicRowApiPathMatchesSparkJoin(JoinType type) {
        assertThat(assertMatches(left, right, List.of("k"), type, spark.sql(referenceSql(type)), false)).isPositive();
    }

    private static String referenceSql(JoinType type) {
        return switch (type) {
            case INNER -> "SELECT l.*, r.* FROM l JOIN r ON l.k = r.k";
            case LEFT_OUTER -> "SELECT l.*, r.* FROM l LEFT JOIN r ON l.k = r.k";
            case RIGHT_OUTER -> "SELECT l.*, r.* FROM l RIGHT JOIN r ON l.k = r.k";
            case FULL_OUTER -> "SELECT l.*, r.* FROM l FULL JOIN r ON l.k = r.k";
            case LEFT_SEMI -> "SELECT l.* FROM l LEFT SEMI JOIN r ON l.k = r.k";
            case LEFT_ANTI -> "SELECT l.* FROM l LEFT ANTI JOIN r ON l.k = r.k";
            case RIGHT_SEMI -> "SELECT r.* FROM r LEFT SEMI JOIN l ON r.k = l.k";
            case RIGHT_ANTI -> "SELECT r.* FROM r LEFT ANTI JOIN l ON r.k = l.k";
            case NULL_AWARE_LEFT_ANTI -> "SELECT * FROM l WHERE k NOT IN (SELECT k FROM r)";
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"without NULL keys", "empty"})
    void notInMatchesSparkWhenTheRightSideHasNoNullKey(String rightSide) {
        Dataset<Row> r = rightSide.equals("empty") ? right.limit(0) : right.where(col("k").lt(100)); // no NULL key; left keys 100.. qualify
        r.createOrReplaceTempView("r_not_in");
        long rows = assertMatches(left, r, List.of("k"), JoinType.NULL_AWARE_LEFT_ANTI,
                spark.sql("SELECT * FROM l WHERE k NOT IN (SELECT k FROM r_not_in)"), true);
        assertThat(rows).isPositive();
        if (rightSide.equals("empty")) {
            assertThat(rows).as("every left row, NULL keys too").isEqualTo(left.count());
        }
    }

    @ParameterizedTest
    @EnumSource(value = JoinType.class, names = {"FULL_OUTER", "RIGHT_SEMI"})
    void twoKeyColumnsMatchSparkJoin(JoinType type) {
        String on = "l.k = r.k AND l.s = r.s";
        String sql = switch (type) {
            case INNER -> "SELECT l.*, r.* FROM l JOIN r ON " + on;
            case FULL_OUTER -> "SELECT l.*, r.* FROM l FULL JOIN r ON " + on;
            case LEFT_ANTI -> "SELECT l.* FROM l LEFT ANTI JOIN r ON " + on;
            case RIGHT_SEMI -> "SELECT r.* FROM r LEFT SEMI JOIN l ON " + on;
            default -> throw new IllegalArgumentException(type.name());
        };
        assertThat(assertMatches(left, right, List.of("k", "s"), type, spark.sql(sql), true)).isPositive();
    }

    @Test
    void doubleKeysMatchLikeSpark() {
        StructType schema = DataTypes.createStructType(List.of(DataTypes.createStructField("d", DataTypes.DoubleType, true)));
        List<Row> values = List.of(RowFactory.create(0.0), RowFactory.create(-0.0), RowFactory.create(Double.NaN),
                RowFactory.create(1.5), RowFactory.create((Object) null));
        spark.createDataFrame(values, schema).createOrReplaceTempView("dl");
        spark.createDataFrame(values, schema).createOrReplaceTempView("dr");
        long rows = assertMatches(spark.table("dl"), spark.table("dr"), List.of("d"), JoinType.INNER,
                spark.sql("SELECT dl.d, dr.d FROM dl JOIN dr ON dl.d = dr.d"), true);
        assertThat(rows).as("0.0 and -0.0 match each other (4 pairs), NaN matches NaN, 1.5 matches 1.5").isEqualTo(6);
    }

    @Test
    void clashingNamesArePrefixedByTheirSide() {
        Dataset<Row> joined = SpillJoinSpark.join(left, right, "k", "inner");
        assertThat(joined.columns()).containsExactly("left.k", "left.s", "left.v", "x", "right.k", "right.s", "right.v", "y");
        assertThat(SpillJoinSpark.join(left, right, "k", "left_semi").columns()).containsExactly("k", "s", "v", "x");
        assertThat(joined.schema().fields()[0].dataType().simpleString())
                .as("the INT key was cast to the right side's BIGINT").isEqualTo("bigint");
    }

    @Test
    void badInputGetsAClearError() {
        assertThatThrownBy(() -> SpillJoinSpark.join(left, right, "nope", "inner"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no column 'nope' on the left side");
        assertThatThrownBy(() -> SpillJoinSpark.join(left, right, List.of("v"), List.of("k"), "inner", SpillJoinOptions.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key pair 0: left column 'v' is string but right column 'k' is bigint");
        assertThatThrownBy(() -> SpillJoinSpark.join(left, right, "k", "cross"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown join type 'cross'");
        Dataset<Row> dated = left.withColumn("d", col("x").cast("timestamp"));
        assertThatThrownBy(() -> SpillJoinSpark.join(dated, right, "k", "inner"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("left column 'd' has type timestamp");
    }

    /**
     * Runs spilljoin (on internal rows or through the public Row API) and compares its rows with {@code reference}'s
     * (positionally, cast to spilljoin's types) as sorted lists collected to the driver: the same multiset of rows,
     * which is what exceptAll both ways checks, in two Spark jobs instead of six; returns the row count.
     */
    private static long assertMatches(Dataset<Row> l, Dataset<Row> r, List<String> keys, JoinType type,
                                      Dataset<Row> reference, boolean internalRows) {
        CollectionAccumulator<TaskJoinSummary> stats = spark.sparkContext().collectionAccumulator("spilljoin " + type);
        SpillJoinOptions options = SpillJoinOptions.DEFAULT.withPartitions(PARTITIONS).withBatchRows(100)
                .withInternalRows(internalRows).withTaskStats(stats);
        Dataset<Row> ours = SpillJoinSpark.join(l, r, keys, keys, type, options);
        List<String> actual = SparkRows.sorted(ours);
        List<String> expected = SparkRows.sorted(SparkRows.castLike(reference, ours));
        assertThat(actual).as("%s rows (seed %d)", type, seed).hasSameSizeAs(expected);
        assertThat(actual).as("%s rows (seed %d)", type, seed).isEqualTo(expected);
        List<TaskJoinSummary> tasks = stats.value();
        if (!tasks.isEmpty() || type != JoinType.NULL_AWARE_LEFT_ANTI) {
            assertThat(tasks).as("one summary per task").hasSize(PARTITIONS);
            assertThat(tasks).allSatisfy(t -> {
                assertThat(t.budgetBytes()).as("a budget from Spark's memory manager").isPositive();
                assertThat(t.peakReservedBytes()).isBetween(0L, t.budgetBytes());
            });
            assertThat(tasks.stream().mapToLong(TaskJoinSummary::outputRows).sum()).isEqualTo(actual.size());
        }
        return actual.size();
    }
}
