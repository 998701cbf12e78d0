package dev.spilljoin.spark;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.PairCondition;
import dev.spilljoin.operator.data.Batch;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Predicate;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.util.TaskCompletionListener;
import scala.collection.immutable.Seq;
import scala.runtime.BoxedUnit;

/**
 * The extra join condition of a {@link SpillJoinExecTask} as the operator's {@link PairCondition}: Spark's predicate,
 * compiled in the task and initialized with its partition id, evaluated on each candidate pair as an UnsafeRow of the
 * pair's columns ({@link BatchUnsafeRows}).
 *
 * <p>The predicate and the pair rows are mutable, so every thread that evaluates has its own ({@link Evaluator}).
 * With one worker that is the task's thread: one evaluator, made on it, called directly. With several
 * ({@link JoinConfig#threads()}) the operator calls the condition from its worker threads at once: each thread takes
 * its evaluator from a {@link ThreadLocal} of the task, once per batch, and makes it on its first batch (stateful
 * expressions copied first, so no two threads share one). A worker thread is not a Spark task thread, on which
 * {@code SQLConf.get} reads the task's settings: it makes its evaluator and evaluates each batch under the task's
 * {@link SQLConf}, taken on the task thread, as the task thread would. The task thread's own entry, if it evaluated
 * (a phase on one worker runs on it), is removed when the task completes.
 */
final class TaskPairCondition {
    private TaskPairCondition() {
    }

    /**
     * The condition for the running task's join on {@code threads} workers.
     *
     * @param condition  the condition, over {@code attributes}
     * @param attributes the attributes of a joined pair: the left child's output, then the right child's
     * @param columns    how each of those columns is read from the pair batch
     */
    static PairCondition create(TaskContext context, Expression condition, Seq<Attribute> attributes,
                                SparkColumn[] columns, int threads) {
        int partition = context.partitionId();
        if (threads == 1) {
            return new Evaluator(condition, attributes, columns, partition)::evaluate;
        }
        SQLConf conf = SQLConf.get();
        ThreadLocal<Evaluator> evaluators = ThreadLocal.withInitial(() -> SQLConf.withExistingConf(conf,
                () -> new Evaluator(condition.freshCopyIfContainsStatefulExpression(), attributes, columns, partition)));
        context.addTaskCompletionListener((TaskCompletionListener) c -> evaluators.remove());
        return (batch, accepted) -> {
            Evaluator evaluator = evaluators.get();
            SQLConf.withExistingConf(conf, () -> {
                evaluator.evaluate(batch, accepted);
                return BoxedUnit.UNIT;
            });
        };
    }

    /** One thread's compiled predicate and pair rows. */
    private static final class Evaluator {
        private final BasePredicate predicate;
        private final BatchUnsafeRows pairs;

        Evaluator(Expression condition, Seq<Attribute> attributes, SparkColumn[] columns, int partition) {
            this.predicate = Predicate.create(condition, attributes);
            this.predicate.initialize(partition);
            this.pairs = new BatchUnsafeRows(columns);
        }

        /** Clears the bit of each pair the predicate rejects (see {@link PairCondition#evaluate}). */
        void evaluate(Batch batch, long[] accepted) {
            pairs.load(batch);
            for (int r = 0; r < pairs.rowCount(); r++) {
                if (!predicate.eval(pairs.row(r))) {
                    accepted[r >>> 6] &= ~(1L << r);
                }
            }
        }
    }
}
