package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.MemoryReservation;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What to join, immutable: both schemas, the key columns (pairwise equal types, no coercion), the join type, the
 * projection (output columns in order) and the memory: a budget in bytes (the join creates its own root
 * reservation) or a given {@link MemoryReservation} (the join opens a child of it); optionally a
 * {@link StatisticsLookup} (a shared statistics cache and the inputs' identities; null = none) and an extra
 * {@link PairCondition} on the columns {@code conditionColumns} (null = keys only). Validated on construction with
 * errors that say what is wrong and how to fix it. Build one with {@link #builder(Schema, Schema)}.
 */
public record JoinSpec(Schema leftSchema, Schema rightSchema, int[] leftKeys, int[] rightKeys, JoinType joinType,
                       List<ColumnRef> projection, long budgetBytes, MemoryReservation reservation, JoinConfig config,
                       StatisticsLookup statistics, List<ColumnRef> conditionColumns, PairCondition condition) {

    public JoinSpec {
        Objects.requireNonNull(leftSchema, "leftSchema");
        Objects.requireNonNull(rightSchema, "rightSchema");
        Objects.requireNonNull(joinType, "joinType");
        Objects.requireNonNull(config, "config");
        leftKeys = leftKeys.clone();
        rightKeys = rightKeys.clone();
        if (leftKeys.length == 0) {
            throw new IllegalArgumentException("a join needs at least one key column pair; add one with on(left, right)");
        }
        if (leftKeys.length != rightKeys.length) {
            throw new IllegalArgumentException("left has " + leftKeys.length + " key columns but right has "
                    + rightKeys.length + "; give key columns in pairs");
        }
        for (int k = 0; k < leftKeys.length; k++) {
            checkColumn(leftSchema, leftKeys[k], "left key", k);
            checkColumn(rightSchema, rightKeys[k], "right key", k);
            Column l = leftSchema.column(leftKeys[k]);
            Column r = rightSchema.column(rightKeys[k]);
            if (l.type() != r.type()) {
                throw new IllegalArgumentException("key pair " + k + ": left column '" + l.name() + "' is " + l.type()
                        + " but right column '" + r.name() + "' is " + r.type()
                        + "; both sides' key columns must have equal types (cast one side first; there is no implicit coercion)");
            }
        }
        if (joinType == JoinType.NULL_AWARE_LEFT_ANTI && leftKeys.length != 1) {
            throw new IllegalArgumentException("NULL_AWARE_LEFT_ANTI (NOT IN) supports exactly one key column, got "
                    + leftKeys.length + "; use LEFT_ANTI (NOT EXISTS) for multi-column keys");
        }
        projection = List.copyOf(projection);
        Side only = joinType.returnedSideOnly();
        for (ColumnRef ref : projection) {
            checkColumn(ref.side() == Side.LEFT ? leftSchema : rightSchema, ref.column(), "projected", ref);
            if (only != null && ref.side() != only) {
                throw new IllegalArgumentException(joinType + " returns only " + only + " columns, but the projection has "
                        + ref + "; project only " + only + " columns");
            }
        }
        conditionColumns = conditionColumns == null ? List.of() : List.copyOf(conditionColumns);
        for (ColumnRef ref : conditionColumns) {
            checkColumn(ref.side() == Side.LEFT ? leftSchema : rightSchema, ref.column(), "condition column", ref);
        }
        if (condition == null && !conditionColumns.isEmpty()) {
            throw new IllegalArgumentException("condition columns " + conditionColumns + " were given without a condition");
        }
        if (condition != null && joinType == JoinType.NULL_AWARE_LEFT_ANTI) {
            throw new IllegalArgumentException("NULL_AWARE_LEFT_ANTI (NOT IN) takes no extra condition; use LEFT_ANTI"
                    + " (NOT EXISTS) with the condition");
        }
        if (reservation == null && budgetBytes <= 0) {
            throw new IllegalArgumentException("a join needs a memory budget: set budgetBytes(> 0) or a reservation, got "
                    + budgetBytes);
        }
    }

    /** The left key columns (a copy). */
    @Override
    public int[] leftKeys() {
        return leftKeys.clone();
    }

    /** The right key columns (a copy). */
    @Override
    public int[] rightKeys() {
        return rightKeys.clone();
    }

    /** {@code column} is in {@code schema}, else a failure naming it "{@code what} {@code which}" (built only then). */
    private static void checkColumn(Schema schema, int column, String what, Object which) {
        if (column < 0 || column >= schema.size()) {
            throw new IllegalArgumentException(what + " " + which + ": column index " + column + " is outside schema "
                    + schema);
        }
    }

    /** The columns of {@code side} the rows must carry: those the output and the extra condition read. */
    public int[] carriedColumns(Side side) {
        return java.util.stream.Stream.concat(projection.stream(), conditionColumns.stream())
                .filter(r -> r.side() == side).mapToInt(ColumnRef::column).distinct().toArray();
    }

    /** The schema of the batches the extra condition gets: its columns, named as in their input, all nullable. */
    public Schema conditionSchema() {
        List<Column> columns = new ArrayList<>();
        for (ColumnRef ref : conditionColumns) {
            Column c = schema(ref.side()).column(ref.column());
            columns.add(new Column(ref.side().name().toLowerCase(java.util.Locale.ROOT) + "." + c.name(), c.type(), true));
        }
        return new Schema(columns);
    }

    public Schema schema(Side side) {
        return side == Side.LEFT ? leftSchema : rightSchema;
    }

    public int[] keys(Side side) {
        return side == Side.LEFT ? leftKeys() : rightKeys();
    }

    /** The result's schema: projected columns, named as in their input, prefixed by the side where names clash. */
    public Schema outputSchema() {
        java.util.Map<String, Integer> namesakes = new java.util.HashMap<>();
        for (ColumnRef ref : projection) {
            namesakes.merge(schema(ref.side()).column(ref.column()).name(), 1, Integer::sum);
        }
        List<Column> columns = new ArrayList<>();
        for (ColumnRef ref : projection) {
            Column c = schema(ref.side()).column(ref.column());
            String name = namesakes.get(c.name()) > 1 ? ref.side().name().toLowerCase(java.util.Locale.ROOT) + "."
                    + c.name() : c.name();
            columns.add(new Column(name, c.type(), c.nullable() || joinType.padsSide(ref.side())));
        }
        return new Schema(columns);
    }

    /** This spec with another configuration (e.g. a test's spill directory), everything else unchanged. */
    public JoinSpec withConfig(JoinConfig newConfig) {
        return new JoinSpec(leftSchema, rightSchema, leftKeys, rightKeys, joinType, projection, budgetBytes, reservation,
                newConfig, statistics, conditionColumns, condition);
    }

    public static Builder builder(Schema left, Schema right) {
        return new Builder(left, right);
    }

    /** Builds a {@link JoinSpec}; key and projected columns may be named. */
    public static final class Builder {
        private final Schema left;
        private final Schema right;
        private final List<Integer> leftKeys = new ArrayList<>();
        private final List<Integer> rightKeys = new ArrayList<>();
        private JoinType joinType = JoinType.INNER;
        private List<ColumnRef> projection;
        private long budgetBytes;
        private MemoryReservation reservation;
        private JoinConfig config = JoinConfig.DEFAULT;
        private StatisticsLookup statistics;
        private List<ColumnRef> conditionColumns = List.of();
        private PairCondition condition;

        private Builder(Schema left, Schema right) {
            this.left = left;
            this.right = right;
        }

        /** Adds the key pair {@code left.leftColumn = right.rightColumn}. */
        public Builder on(String leftColumn, String rightColumn) {
            return on(left.indexOf(leftColumn), right.indexOf(rightColumn));
        }

        public Builder on(int leftColumn, int rightColumn) {
            leftKeys.add(leftColumn);
            rightKeys.add(rightColumn);
            return this;
        }

        public Builder joinType(JoinType type) {
            this.joinType = type;
            return this;
        }

        public Builder projection(List<ColumnRef> columns) {
            this.projection = List.copyOf(columns);
            return this;
        }

        /** Appends the named columns of {@code side} to the projection. */
        public Builder project(Side side, String... columns) {
            if (projection == null) {
                projection = new ArrayList<>();
            } else {
                projection = new ArrayList<>(projection);
            }
            for (String c : columns) {
                projection.add(new ColumnRef(side, (side == Side.LEFT ? left : right).indexOf(c)));
            }
            return this;
        }

        public Builder budgetBytes(long bytes) {
            this.budgetBytes = bytes;
            return this;
        }

        public Builder reservation(MemoryReservation memory) {
            this.reservation = memory;
            return this;
        }

        public Builder config(JoinConfig config) {
            this.config = config;
            return this;
        }

        /** Plans from, and stores to, a shared statistics cache under the inputs' identities (null = none). */
        public Builder statistics(StatisticsLookup lookup) {
            this.statistics = lookup;
            return this;
        }

        /**
         * An extra join condition, evaluated on the candidate pairs' {@code columns} (of either side, in this order;
         * see {@link PairCondition}); null removes it.
         */
        public Builder condition(List<ColumnRef> columns, PairCondition condition) {
            this.conditionColumns = condition == null ? List.of() : List.copyOf(columns);
            this.condition = condition;
            return this;
        }

        public JoinSpec build() {
            List<ColumnRef> p = projection != null ? projection : defaultProjection();
            return new JoinSpec(left, right, leftKeys.stream().mapToInt(Integer::intValue).toArray(),
                    rightKeys.stream().mapToInt(Integer::intValue).toArray(), joinType, p, budgetBytes, reservation,
                    config, statistics, conditionColumns, condition);
        }

        /** All columns of the returned side(s): left then right for pair-producing joins. */
        private List<ColumnRef> defaultProjection() {
            List<ColumnRef> p = new ArrayList<>();
            Side only = joinType.returnedSideOnly();
            if (only != Side.RIGHT) {
                for (int c = 0; c < left.size(); c++) {
                    p.add(new ColumnRef(Side.LEFT, c));
                }
            }
            if (only != Side.LEFT) {
                for (int c = 0; c < right.size(); c++) {
                    p.add(new ColumnRef(Side.RIGHT, c));
                }
            }
            return p;
        }
    }
}
