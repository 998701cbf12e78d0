package dev.spilljoin.operator.table;

/**
 * The finish pass over one table's build rows ({@link BuildRowScan} over serialized rows, {@link DirectIndexScan}
 * over the direct-index table): emits the rows the join type's finish action selects, probe side NULL. Resumable.
 */
public interface FinishScan {
    /** Emits selected rows; true when every row was visited, false when {@code out} is full (call again). */
    boolean fill(OutputWriter out);
}
