package dev.spilljoin.spark;

import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.aggregate.HashAggregateExec;
import org.apache.spark.sql.execution.aggregate.ObjectHashAggregateExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.apache.spark.sql.execution.window.WindowExec;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.List;

/**
 * How many operators of a {@link SpillJoinExec}'s stage take Spark execution memory, so that its join claims an even
 * share of the task's memory rather than all of it ({@link #operatorsBeside}). A task runs every operator of its
 * stage (the nodes between exchanges) at once, and the join claims its budget up front and spills within it, never
 * handing memory back: a sort, an aggregate, a window or a second join in the same stage would otherwise find none
 * left (Spark's {@code UNABLE_TO_ACQUIRE_MEMORY}). Counted: {@link SpillJoinExec}, {@link SortExec}, hash and
 * object-hash aggregates, {@link WindowExec}, and Spark's shuffled hash and sort-merge joins; an exchange or a
 * materialised query stage ends a stage.
 */
final class StageMemoryShares {
    /** On a {@link SpillJoinExec}: the memory-using operators of its stage, itself included. */
    private static final TreeNodeTag<Integer> OPERATORS = new TreeNodeTag<>("spilljoin.stageMemoryOperators");

    private StageMemoryShares() {
    }

    /** Marks every {@link SpillJoinExec} of {@code plan} with its stage's count; returns {@code plan}. */
    static SparkPlan mark(SparkPlan plan) {
        markStage(plan);
        return plan;
    }

    /** The memory-using operators of {@code join}'s stage, itself included (1 when unmarked). */
    static int operatorsBeside(SpillJoinExec join) {
        scala.Option<Integer> count = join.getTagValue(OPERATORS);
        return count.isDefined() ? Math.max(1, count.get()) : 1;
    }

    private static void markStage(SparkPlan stageRoot) {
        List<SparkPlan> users = new ArrayList<>();
        List<SparkPlan> nextStages = new ArrayList<>();
        collect(stageRoot, users, nextStages);
        for (SparkPlan user : users) {
            if (user instanceof SpillJoinExec) {
                user.setTagValue(OPERATORS, users.size());
            }
        }
        for (SparkPlan next : nextStages) {
            markStage(next);
        }
    }

    private static void collect(SparkPlan node, List<SparkPlan> users, List<SparkPlan> nextStages) {
        if (usesMemory(node)) {
            users.add(node);
        }
        for (SparkPlan child : CollectionConverters.asJava(node.children())) {
            if (child instanceof Exchange || child instanceof QueryStageExec) {
                nextStages.add(child);
            } else {
                collect(child, users, nextStages);
            }
        }
    }

    private static boolean usesMemory(SparkPlan node) {
        return node instanceof SpillJoinExec || node instanceof SortExec || node instanceof HashAggregateExec
                || node instanceof ObjectHashAggregateExec || node instanceof WindowExec
                || node instanceof ShuffledHashJoinExec || node instanceof SortMergeJoinExec;
    }
}
