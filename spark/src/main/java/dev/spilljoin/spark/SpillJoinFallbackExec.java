package dev.spilljoin.spark;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.util.List;
import java.util.Objects;

/**
 * The plan's note that {@link SpillJoinRule} left a join it would have taken to Spark, and why: a pass-through node
 * right above that join ({@code SpillJoinFallback [reason]} in EXPLAIN). It changes nothing about the rows: output,
 * partitioning, ordering and execution are its child's (the join's whole-stage code is only not fused with the
 * parent's). The rule removes its own notes before it runs again, so a plan never has two.
 */
public final class SpillJoinFallbackExec extends SparkPlan {
    private static final long serialVersionUID = 1L;

    private final String reason;
    private final SparkPlan child;
    private final Seq<SparkPlan> children;

    public SpillJoinFallbackExec(String reason, SparkPlan child) {
        this.reason = reason;
        this.child = child;
        this.children = CollectionConverters.asScala(List.of(child)).toList();
    }

    public String reason() {
        return reason;
    }

    public SparkPlan child() {
        return child;
    }

    @Override
    public Seq<Attribute> output() {
        return child.output();
    }

    @Override
    public Partitioning outputPartitioning() {
        return child.outputPartitioning();
    }

    @Override
    public Seq<SortOrder> outputOrdering() {
        return child.outputOrdering();
    }

    @Override
    public Seq<SparkPlan> children() {
        return children;
    }

    @Override
    public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
        return new SpillJoinFallbackExec(reason, newChildren.apply(0));
    }

    @Override
    public RDD<InternalRow> doExecute() {
        return child.execute();
    }

    @Override
    public int productArity() {
        return 2;
    }

    @Override
    public Object productElement(int n) {
        return switch (n) {
            case 0 -> reason;
            case 1 -> child;
            default -> throw new IndexOutOfBoundsException("SpillJoinFallbackExec has 2 elements, not " + n);
        };
    }

    @Override
    public boolean canEqual(Object that) {
        return that instanceof SpillJoinFallbackExec;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SpillJoinFallbackExec f && reason.equals(f.reason) && child.equals(f.child);
    }

    @Override
    public int hashCode() {
        return Objects.hash(reason, child);
    }
}
