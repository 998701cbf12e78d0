package dev.spilljoin.it;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.MemoryReservation;

import java.util.ArrayList;
import java.util.List;

/**
 * Two inputs and their key columns, as batches: what the operator joins and the oracles load, row for row.
 * {@code description} names how they were made (generator, seed), for failure messages.
 */
record JoinCase(String description, Schema leftSchema, Schema rightSchema, int[] leftKeys, int[] rightKeys,
                List<Batch> left, List<Batch> right) {

    Schema schema(Side side) {
        return side == Side.LEFT ? leftSchema : rightSchema;
    }

    long rows(Side side) {
        return (side == Side.LEFT ? left : right).stream().mapToLong(Batch::rowCount).sum();
    }

    /** Every column of the sides the join type returns: left then right. */
    List<ColumnRef> fullProjection(JoinType type) {
        List<ColumnRef> p = new ArrayList<>();
        Side only = type.returnedSideOnly();
        for (Side side : Side.values()) {
            if (only == null || only == side) {
                for (int c = 0; c < schema(side).size(); c++) {
                    p.add(new ColumnRef(side, c));
                }
            }
        }
        return p;
    }

    /** Whether the SQL engines can express {@code type} on these keys (NOT IN takes one key column). */
    boolean supports(JoinType type) {
        return type != JoinType.NULL_AWARE_LEFT_ANTI || leftKeys.length == 1;
    }

    /** The spilljoin spec of this join, drawing its memory from {@code memory}. */
    JoinSpec spec(JoinType type, List<ColumnRef> projection, MemoryReservation memory, JoinConfig config) {
        JoinSpec.Builder b = JoinSpec.builder(leftSchema, rightSchema).joinType(type).projection(projection)
                .reservation(memory).config(config);
        for (int k = 0; k < leftKeys.length; k++) {
            b.on(leftKeys[k], rightKeys[k]);
        }
        return b.build();
    }
}
