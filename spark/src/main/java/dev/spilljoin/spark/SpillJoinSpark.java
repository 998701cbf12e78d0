package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.spill.ByteSize;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.math.BigInt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.hash;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.when;

/**
 * spilljoin as the per-task join of a shuffled join in Apache Spark: the public entry point.
 *
 * <p>Plan, on the driver: (1) each key pair is cast to one type ({@link SparkTypes#commonKeyType}) and other columns
 * to types the join carries; (2) rows whose key is NULL are dropped before the shuffle on a side whose NULL-key rows
 * cannot reach the result, and spread over all partitions by a hash of the whole row on a side whose NULL-key rows
 * are kept (outer and anti sides), instead of all landing in one partition; (3) both sides are repartitioned by
 * {@code hash(keys)} (doubles with -0.0 read as 0.0) into the <em>same explicit</em> partition count, so partition i
 * of both sides holds the same keys; (4) the partition pairs are zipped and each task runs {@link PartitionJoinTask}.
 * The build side of every task is the side with the smaller estimated size. Tasks read and write Spark's internal
 * rows by default ({@link RowFormat#INTERNAL}); {@code SpillJoinOptions.withInternalRows(false)} keeps to the
 * public Row API.
 *
 * <p>NOT IN ({@link JoinType#NULL_AWARE_LEFT_ANTI}) depends on two global facts about the right side — does it have
 * a NULL key, is it empty — that no single task can see. They are computed up front with two small Spark jobs
 * ({@code where(key IS NULL).limit(1)} and {@code limit(1)}): a NULL key gives an empty result, an empty right side
 * gives every left row, and otherwise NOT IN equals a LEFT_ANTI join without the left NULL-key rows.
 *
 * <p>Output columns follow the CLI's rules: left columns then right; a name both sides have becomes
 * {@code left.name} / {@code right.name}; semi and anti joins return one side's columns only.
 */
public final class SpillJoinSpark {
    private SpillJoinSpark() {
    }

    /** Joins on {@code key} = {@code key} with default options; {@code joinType} as Spark names it ("inner", "left", …). */
    public static Dataset<Row> join(Dataset<Row> left, Dataset<Row> right, String key, String joinType) {
        return join(left, right, List.of(key), List.of(key), joinType, SpillJoinOptions.DEFAULT);
    }

    /** {@code joinType} as Spark names it: inner, left, right, full, left_semi, left_anti, right_semi, right_anti, not_in. */
    public static Dataset<Row> join(Dataset<Row> left, Dataset<Row> right, List<String> leftKeys, List<String> rightKeys,
                                    String joinType, SpillJoinOptions options) {
        return join(left, right, leftKeys, rightKeys, JoinTypeNames.parse(joinType), options);
    }

    public static Dataset<Row> join(Dataset<Row> left, Dataset<Row> right, List<String> leftKeys, List<String> rightKeys,
                                    JoinType joinType, SpillJoinOptions options) {
        SparkSession session = left.sparkSession();
        if (session != right.sparkSession()) {
            throw new IllegalArgumentException("both Datasets must belong to the same SparkSession");
        }
        if (leftKeys.isEmpty() || leftKeys.size() != rightKeys.size()) {
            throw new IllegalArgumentException("give key columns in pairs, at least one: left " + leftKeys + ", right "
                    + rightKeys);
        }
        int[] lk = indexes(left.schema(), leftKeys, "left");
        int[] rk = indexes(right.schema(), rightKeys, "right");
        DataType[] keyTypes = new DataType[lk.length];
        for (int k = 0; k < lk.length; k++) {
            StructField l = left.schema().fields()[lk[k]];
            StructField r = right.schema().fields()[rk[k]];
            keyTypes[k] = SparkTypes.commonKeyType(k, l.name(), l.dataType(), r.name(), r.dataType());
        }
        Dataset<Row> l = joinable(left, lk, keyTypes, "left");
        Dataset<Row> r = joinable(right, rk, keyTypes, "right");

        JoinType taskType = joinType;
        boolean keepLeftNulls = keepsNullKeyRows(joinType, Side.LEFT);
        if (joinType == JoinType.NULL_AWARE_LEFT_ANTI) {
            if (lk.length != 1) {
                throw new IllegalArgumentException("not_in (NULL_AWARE_LEFT_ANTI) supports exactly one key column, got "
                        + lk.length + "; use left_anti (NOT EXISTS) for multi-column keys");
            }
            if (!r.where(col(quote(rightKeys.get(0))).isNull()).limit(1).isEmpty()) {
                return session.createDataFrame(List.of(), l.schema());
            }
            if (r.limit(1).isEmpty()) {
                return l;
            }
            taskType = JoinType.LEFT_ANTI;
            keepLeftNulls = false;
        }
        l = routeNullKeys(l, lk, keepLeftNulls);
        r = routeNullKeys(r, rk, keepsNullKeyRows(taskType, Side.RIGHT));

        SparkContext sc = session.sparkContext();
        long leftBytes = estimatedBytes(l);
        long rightBytes = estimatedBytes(r);
        Side build = leftBytes < rightBytes ? Side.LEFT : Side.RIGHT;
        long minimum = HashJoin.minimumBudget(PartitionJoinTask.config(build, options.batchRows(),
                options.taskThreads()));
        if (options.taskBudgetBytes() > 0 && options.taskBudgetBytes() < minimum) {
            throw new IllegalArgumentException("taskBudgetBytes of " + options.taskBudgetBytes() + " is below the join's"
                    + " minimum of " + minimum + " bytes (" + ByteSize.format(minimum) + "); give each task at least that");
        }
        long expectedBudget = options.taskBudgetBytes() > 0 ? options.taskBudgetBytes()
                : PartitionSizing.expectedTaskBudget(sc);
        int partitions = options.partitions() > 0 ? options.partitions()
                : PartitionSizing.partitions(Math.min(leftBytes, rightBytes), expectedBudget, sc.defaultParallelism(),
                Integer.parseInt(session.conf().get("spark.sql.shuffle.partitions")));

        Dataset<Row> leftShuffled = l.repartition(partitions, partitionKey(l, lk));
        Dataset<Row> rightShuffled = r.repartition(partitions, partitionKey(r, rk));
        if (options.internalRows()) {
            PartitionJoinTask<InternalRow> task = new PartitionJoinTask<>(l.schema(), r.schema(), lk, rk, taskType, build,
                    expectedBudget, options, RowFormat.INTERNAL);
            JavaRDD<InternalRow> joined = leftShuffled.queryExecution().toRdd().toJavaRDD()
                    .zipPartitions(rightShuffled.queryExecution().toRdd().toJavaRDD(), task);
            return ((org.apache.spark.sql.classic.SparkSession) session)
                    .internalCreateDataFrame(joined.rdd(), outputStruct(task, expectedBudget), false);
        }
        PartitionJoinTask<Row> task = new PartitionJoinTask<>(l.schema(), r.schema(), lk, rk, taskType, build,
                expectedBudget, options, RowFormat.PUBLIC);
        JavaRDD<Row> joined = leftShuffled.toJavaRDD().zipPartitions(rightShuffled.toJavaRDD(), task);
        return session.createDataFrame(joined, outputStruct(task, expectedBudget));
    }

    private static StructType outputStruct(PartitionJoinTask<?> task, long budget) {
        return SparkTypes.toStruct(task.spec(budget, null).outputSchema());
    }

    /** Whether {@code side}'s NULL-key rows can be in the result of {@code type} (outer sides and anti sides). */
    static boolean keepsNullKeyRows(JoinType type, Side side) {
        return switch (type) {
            case LEFT_OUTER, LEFT_ANTI, NULL_AWARE_LEFT_ANTI -> side == Side.LEFT;
            case RIGHT_OUTER, RIGHT_ANTI -> side == Side.RIGHT;
            case FULL_OUTER -> true;
            case INNER, LEFT_SEMI, RIGHT_SEMI -> false;
        };
    }

    private static int[] indexes(StructType schema, List<String> names, String side) {
        int[] result = new int[names.size()];
        List<String> fields = Arrays.asList(schema.fieldNames());
        for (int i = 0; i < result.length; i++) {
            result[i] = fields.indexOf(names.get(i));
            if (result[i] < 0) {
                throw new IllegalArgumentException("no column '" + names.get(i) + "' on the " + side
                        + " side; its columns are " + fields);
            }
        }
        return result;
    }

    /** All columns, key columns cast to their pair's common type and others to a type the join carries. */
    private static Dataset<Row> joinable(Dataset<Row> ds, int[] keys, DataType[] keyTypes, String side) {
        StructField[] fields = ds.schema().fields();
        Column[] columns = new Column[fields.length];
        for (int i = 0; i < fields.length; i++) {
            DataType target = SparkTypes.joinable(fields[i].dataType(), fields[i].name(), side);
            for (int k = 0; k < keys.length; k++) {
                if (keys[k] == i) {
                    target = keyTypes[k];
                }
            }
            Column c = col(quote(fields[i].name()));
            columns[i] = target.equals(fields[i].dataType()) ? c : c.cast(target).as(fields[i].name());
        }
        return ds.select(columns);
    }

    private static Column anyKeyNull(Dataset<Row> ds, int[] keys) {
        Column any = lit(false);
        for (int k : keys) {
            any = any.or(col(quote(ds.schema().fields()[k].name())).isNull());
        }
        return any;
    }

    /** Drops NULL-key rows when they cannot reach the result; kept ones are spread by {@link #partitionKey}. */
    private static Dataset<Row> routeNullKeys(Dataset<Row> ds, int[] keys, boolean keep) {
        return keep ? ds : ds.where(not(anyKeyNull(ds, keys)));
    }

    /**
     * The shuffle expression: {@code hash(keys)}, equal for equal keys on both sides (doubles normalized: -0.0 as
     * 0.0; Spark's hash already makes every NaN one value); a NULL-key row, which matches nothing, hashes its whole
     * row instead so such rows spread over all partitions.
     */
    private static Column partitionKey(Dataset<Row> ds, int[] keys) {
        StructField[] fields = ds.schema().fields();
        Column[] keyColumns = new Column[keys.length];
        for (int k = 0; k < keys.length; k++) {
            Column c = col(quote(fields[keys[k]].name()));
            keyColumns[k] = fields[keys[k]].dataType() instanceof DoubleType ? when(c.equalTo(lit(0.0)), lit(0.0)).otherwise(c) : c;
        }
        List<Column> all = new ArrayList<>();
        for (StructField f : fields) {
            all.add(col(quote(f.name())));
        }
        return when(anyKeyNull(ds, keys), hash(all.toArray(new Column[0]))).otherwise(hash(keyColumns));
    }

    /** The optimizer's size estimate of {@code ds} in bytes; Long.MAX_VALUE when it has none. */
    private static long estimatedBytes(Dataset<Row> ds) {
        BigInt size = ds.queryExecution().optimizedPlan().stats().sizeInBytes();
        return size.isValidLong() ? size.longValue() : Long.MAX_VALUE;
    }

    /** A column name as a reference that takes it literally (dots and spaces included). */
    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
