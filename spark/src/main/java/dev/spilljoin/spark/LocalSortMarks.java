package dev.spilljoin.spark;

import org.apache.spark.sql.catalyst.expressions.SortOrder$;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.List;

/**
 * Local sorts that a replaced join's output order had made redundant, put back. Spark's {@code RemoveRedundantSorts}
 * drops a local sort (a {@code sortWithinPartitions}, SQL's {@code SORT BY}, a write's sort) whose child's output is
 * already in its order, such as a sort-merge join's on its keys or a shuffled hash join's whose streamed side is
 * sorted; it runs before {@link SpillJoinRule}, whose {@link SpillJoinExec} has no output order, and
 * {@code EnsureRequirements} restores only orders an operator requires, not such a sort.
 *
 * <p>So, as a planner strategy that plans nothing, it marks the child of every local logical {@link Sort} with the
 * sort's order ({@link #apply}); a physical node planned from that child keeps it as its logical link. After its
 * replacements the rule calls {@link #putBack}: a marked node whose output no longer has the order, under a parent
 * planned from the sort's logical parent (or at the root), gets the sort back above it, exactly where Spark had
 * planned it. A sort still in the plan, or an order a replacement did not change, adds nothing. A query that shares
 * a marked logical node with another (a Dataset and its sortWithinPartitions) may find the mark at its root: a
 * replaced join there is then sorted too (the same rows, a sort more).
 */
final class LocalSortMarks extends SparkStrategy {
    /** On the child of a local logical sort: that sort. */
    private static final TreeNodeTag<Sort> SORTED_ABOVE = new TreeNodeTag<>("spilljoin.localSortAbove");
    /** What the strategy plans: nothing (one list for every call). */
    private static final Seq<SparkPlan> NOTHING = CollectionConverters.asScala(List.<SparkPlan>of()).toList();

    /** Marks a local sort's child; plans nothing (Spark's own strategies plan the sort). */
    @Override
    public Seq<SparkPlan> apply(LogicalPlan plan) {
        if (plan instanceof Sort sort && !sort.global()) {
            sort.child().setTagValue(SORTED_ABOVE, sort);
        }
        return NOTHING;
    }

    /**
     * {@code plan} with each dropped local sort whose order its child lost put back above that child: under a
     * parent whose logical plan holds that sort as a child (a mark is on a logical node, which another query may
     * share without the sort), or at the root.
     */
    static SparkPlan putBack(SparkPlan plan) {
        SparkPlan root = withSortsPutBack(plan);
        Sort dropped = droppedSort(root);
        return dropped == null ? root : new SortExec(dropped.order(), false, root, 0);
    }

    private static SparkPlan withSortsPutBack(SparkPlan node) {
        List<SparkPlan> children = CollectionConverters.asJava(node.children());
        List<SparkPlan> rebuilt = new ArrayList<>(children.size());
        boolean changed = false;
        for (SparkPlan child : children) {
            SparkPlan c = withSortsPutBack(child);
            Sort dropped = node instanceof SortExec ? null : droppedSort(c);
            if (dropped != null && node.logicalLink().isDefined()
                    && node.logicalLink().get().children().contains(dropped)) {
                c = new SortExec(dropped.order(), false, c, 0);
            }
            rebuilt.add(c);
            changed |= c != child;
        }
        return changed ? node.withNewChildren(CollectionConverters.asScala(rebuilt).toSeq()) : node;
    }

    /** The local sort planned right above {@code node}, when {@code node}'s output lacks its order; else null. */
    private static Sort droppedSort(SparkPlan node) {
        Option<LogicalPlan> link = node.logicalLink();
        if (link.isEmpty()) {
            return null;
        }
        Option<Sort> sort = link.get().getTagValue(SORTED_ABOVE);
        return sort.isDefined() && !SortOrder$.MODULE$.orderingSatisfies(node.outputOrdering(), sort.get().order())
                ? sort.get() : null;
    }
}
