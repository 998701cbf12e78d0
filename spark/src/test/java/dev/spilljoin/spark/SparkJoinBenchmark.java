package dev.spilljoin.spark;

import dev.spilljoin.workloads.W1Rows;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.function.Supplier;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

/**
 * Workload W1 of docs/WORKLOADS.md ({@code SELECT count(*), sum(r.p + s.p) FROM r JOIN s ON r.k = s.k}) in Spark
 * {@code local[2]}: spilljoin-in-Spark (on internal rows, and through the public Row API) against Spark's shuffled-hash and sort-merge joins, all with the same partition
 * count and broadcast joins off. The inputs are generated in the tasks (the same rows every run; no caching), so each
 * run includes generating and shuffling both sides. Each contender runs once to warm up, then {@code runs} rounds run
 * every contender in turn; the minimum and median wall times are printed, and every run's count and sum must agree (at 1M × 10M they are
 * checked against the published W1 values).
 *
 * <p>Arguments: {@code [nR] [nS] [partitions] [rounds]}, defaults {@code 1000000 10000000 8 5}. Run with the
 * {@code run-spark-bench} profile of this module (see its pom).
 */
public final class SparkJoinBenchmark {
    private static final StructType SCHEMA = DataTypes.createStructType(List.of(
            DataTypes.createStructField("k", DataTypes.LongType, false),
            DataTypes.createStructField("p", DataTypes.LongType, false)));
    private static final long W1_COUNT = 10_000_000L;
    private static final long W1_SUM = 21481313584743985L;

    private SparkJoinBenchmark() {
    }

    public static void main(String[] args) {
        long nR = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        long nS = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        SparkSession spark = BenchSession.builder("spilljoin-spark-benchmark", partitions)
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        try {
            Dataset<Row> r = generate(spark, nR, true, nR);
            Dataset<Row> s = generate(spark, nS, false, nR);
            SpillJoinOptions options = SpillJoinOptions.DEFAULT.withPartitions(partitions);
            System.out.printf("W1 %d x %d, local[2], %d partitions, %d rounds after a warm-up, heap %d MiB%n",
                    nR, nS, partitions, runs, Runtime.getRuntime().maxMemory() >> 20);
            Map<String, Supplier<Row>> contenders = new LinkedHashMap<>();
            contenders.put("spilljoin-in-Spark", () -> aggregate(
                    SpillJoinSpark.join(r, s, List.of("k"), List.of("k"), "inner", options),
                    col("`left.p`").plus(col("`right.p`"))).first());
            contenders.put("spilljoin-in-Spark, Row API", () -> aggregate(
                    SpillJoinSpark.join(r, s, List.of("k"), List.of("k"), "inner", options.withInternalRows(false)),
                    col("`left.p`").plus(col("`right.p`"))).first());
            contenders.put("Spark shuffled-hash join", () -> sparkJoin(r, s, "shuffle_hash").first());
            contenders.put("Spark sort-merge join", () -> sparkJoin(r, s, "merge").first());
            InterleavedRuns.measure(contenders, runs, (name, result) -> check(name, result.getLong(0), result.getLong(1),
                    nR, nS));
        } finally {
            spark.stop();
        }
    }

    private static Dataset<Row> sparkJoin(Dataset<Row> r, Dataset<Row> s, String hint) {
        Dataset<Row> joined = r.as("r").hint(hint).join(s.as("s"), col("r.k").equalTo(col("s.k")), "inner");
        return aggregate(joined, col("r.p").plus(col("s.p")));
    }

    private static Dataset<Row> aggregate(Dataset<Row> joined, Column payloadSum) {
        return joined.agg(count(lit(1)), sum(payloadSum));
    }

    private static void check(String name, long count, long sum, long nR, long nS) {
        if (nR == 1_000_000L && nS == 10_000_000L && (count != W1_COUNT || sum != W1_SUM)) {
            throw new AssertionError(name + ": count " + count + ", sum " + sum + "; W1 expects " + W1_COUNT + ", " + W1_SUM);
        }
        if (count != nS) {
            throw new AssertionError(name + ": count " + count + ", but every one of the " + nS + " S rows matches once");
        }
    }

    /** W1's R (k = perm(i, nR), p = payload(0x11, i)) or S (k = uniform(0x21, i, nR), p = payload(0x22, i)). */
    private static Dataset<Row> generate(SparkSession spark, long rows, boolean build, long nR) {
        MapPartitionsFunction<Long, Row> rowsOf = ids -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return ids.hasNext();
            }

            @Override
            public Row next() {
                long i = ids.next();
                return build ? RowFactory.create(W1Rows.buildKey(i, nR), W1Rows.buildPayload(i))
                        : RowFactory.create(W1Rows.probeKey(i, nR), W1Rows.probePayload(i));
            }
        };
        return spark.range(0, rows, 1, 2).mapPartitions(rowsOf, Encoders.row(SCHEMA));
    }
}
