package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;

/**
 * An extra join condition beyond key equality (SQL's {@code ON l.k = r.k AND condition}), given with the columns it
 * reads ({@link JoinSpec.Builder#condition}). The join evaluates it on candidate pairs, the pairs of rows whose keys
 * are equal, a batch at a time; a pair it rejects is no match. So an outer join pads a row whose every candidate was
 * rejected, a semi join keeps a row with at least one accepted pair, an anti join one with none, and the MATCHED
 * marks of build rows (outer, semi and anti joins with the build side returned) follow accepted pairs only. Rows with
 * a NULL key have no candidates, as without a condition. NOT IN ({@link JoinType#NULL_AWARE_LEFT_ANTI}) takes no
 * condition.
 *
 * <p>Called once per batch of candidates; it must not keep the batch. With more than one worker
 * ({@link JoinConfig#threads()}) it is called from the workers' threads, several at once: it must then be
 * thread-safe (keep per-thread state in a {@link ThreadLocal}, looked up once per batch).
 */
@FunctionalInterface
public interface PairCondition {
    /**
     * Clears bit {@code r} of {@code accepted} for each row {@code r < pairs.rowCount()} whose pair the condition
     * rejects (a NULL result rejects). On entry the bits of rows {@code [0, pairs.rowCount())} are set; {@code pairs}
     * holds the condition's columns, in the order given to the spec, one row per candidate pair.
     */
    void evaluate(Batch pairs, long[] accepted);
}
