package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction2;
import org.apache.spark.sql.types.StructType;

import java.nio.file.Path;
import java.util.Iterator;

/**
 * The join of one zipped partition pair, run in a Spark task: the left and right rows of partition i (both sides
 * were shuffled by the same key expression into the same number of partitions, so they hold the same keys) are
 * joined by a spilljoin {@link HashJoin} on {@link SpillJoinOptions#taskThreads()} workers (the rows are read on the
 * task's thread) and its result batches are handed out as rows, batch by batch, in the task's {@link RowFormat}.
 *
 * <p>Per task: {@link TaskJoinResources#forTask} holds the join, its budget (the caller's fixed one or Spark's
 * execution memory) and the spill root in Spark's local directories, and cleans them up on success, failure and
 * kill; {@link TaskResultIterator} hands out the result and closes them at once when it is exhausted, and a
 * {@link TaskJoinSummary} goes to the stats accumulator, if any.
 */
final class PartitionJoinTask<T> implements FlatMapFunction2<Iterator<T>, Iterator<T>, T> {
    private static final long serialVersionUID = 1L;

    private final StructType leftStruct;
    private final StructType rightStruct;
    private final int[] leftKeys;
    private final int[] rightKeys;
    private final JoinType joinType;
    private final Side buildSide;
    private final long expectedTaskBudget;
    private final SpillJoinOptions options;
    private final RowFormat<T> format;

    PartitionJoinTask(StructType leftStruct, StructType rightStruct, int[] leftKeys, int[] rightKeys, JoinType joinType,
                      Side buildSide, long expectedTaskBudget, SpillJoinOptions options, RowFormat<T> format) {
        this.leftStruct = leftStruct;
        this.rightStruct = rightStruct;
        this.leftKeys = leftKeys.clone();
        this.rightKeys = rightKeys.clone();
        this.joinType = joinType;
        this.buildSide = buildSide;
        this.expectedTaskBudget = expectedTaskBudget;
        this.options = options;
        this.format = format;
    }

    /** The join's spec over the two sides' schemas, under {@code budgetBytes}, spilling under {@code spillRoot}. */
    JoinSpec spec(long budgetBytes, Path spillRoot) {
        Schema left = SparkTypes.toSchema(leftStruct);
        Schema right = SparkTypes.toSchema(rightStruct);
        JoinSpec.Builder b = JoinSpec.builder(left, right).joinType(joinType).budgetBytes(budgetBytes)
                .config(config().toBuilder().spillDirectory(spillRoot).build());
        for (int k = 0; k < leftKeys.length; k++) {
            b.on(leftKeys[k], rightKeys[k]);
        }
        return b.build();
    }

    /** The join's knobs: the build side fixed on the driver, the batch size and the workers of the options. */
    static JoinConfig config(Side buildSide, int batchRows, int threads) {
        return JoinConfig.builder().buildSide(buildSide).outputBatchRows(batchRows).threads(threads).build();
    }

    private JoinConfig config() {
        return config(buildSide, options.batchRows(), options.taskThreads());
    }

    @Override
    public Iterator<T> call(Iterator<T> leftRows, Iterator<T> rightRows) {
        TaskContext context = TaskContext.get();
        TaskJoinResources resources = TaskJoinResources.forTask(context, options.taskBudgetBytes(), expectedTaskBudget,
                HashJoin.minimumBudget(config()), "SpillJoinOptions.taskBudgetBytes");
        JoinSpec spec = spec(resources.budget(), resources.spillRoot());
        HashJoin join = HashJoin.create(spec);
        resources.attach(join);
        BatchSource left = format.source(leftRows, spec.leftSchema(), options.batchRows());
        BatchSource right = format.source(rightRows, spec.rightSchema(), options.batchRows());
        return new TaskResultIterator<>(context, resources, join.iterator(left, right),
                format.results(spec.outputSchema()), stats -> report(context, stats));
    }

    /** Sends the finished task's summary to the stats accumulator, if the caller gave one. */
    private void report(TaskContext context, JoinStats stats) {
        if (options.taskStats() != null) {
            options.taskStats().add(new TaskJoinSummary(context.partitionId(), stats.budgetBytes(),
                    stats.peakReservedBytes(), stats.rows(Side.LEFT), stats.rows(Side.RIGHT), stats.outputRows(),
                    stats.partitions(), stats.spilledBytesBuild() + stats.spilledBytesProbe(), stats.toJson(),
                    stats.threadsUsed()));
        }
    }
}
