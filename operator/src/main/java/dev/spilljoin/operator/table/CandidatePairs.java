package dev.spilljoin.operator.table;

import dev.spilljoin.operator.PairCondition;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.table.JoinStrategy.ProbeAction;

import java.util.Arrays;

/**
 * The extra join condition's stage of a probe ({@link PairCondition}): the probe collects every candidate pair (equal
 * keys) of its batch here instead of acting on it; the pairs are materialized into a batch of the condition's columns
 * ({@link #collector()}), the condition is evaluated on the whole batch at once, and {@link #apply} then does for each
 * accepted pair what the probe would have done for a match: emit it (PAIRS, PAIRS_OR_PAD), emit its probe row once
 * (SEMI), note the probe row matched (ANTI, and for the tail pass of PAIRS_OR_PAD), or set the build row's MATCHED
 * flag (MARK, and PAIRS when the finish pass reads the flags). Rejected pairs leave no trace, so a probe row or build
 * row whose every candidate is rejected counts as unmatched.
 *
 * <p>Resumable: {@link #apply} stops when the output is full and continues from the same pair when called again.
 * Invariant: between {@link #evaluate} and the end of {@link #apply}, the collector's batch and {@code accepted}
 * describe the same pairs; {@link #apply} clears the collector when it is done with them.
 */
public final class CandidatePairs {
    private final OutputWriter collector;
    private final PairCondition condition;
    private long[] accepted = new long[0];
    private int count;
    private int next;
    private boolean evaluated;

    /** @param collector a writer of the condition's columns, for the probe's orientation */
    public CandidatePairs(OutputWriter collector, PairCondition condition) {
        this.collector = collector;
        collector.keepPairs();
        this.condition = condition;
    }

    /** Where the probe appends candidate pairs (probe bytes 0), while {@code room() > 0}. */
    public OutputWriter collector() {
        return collector;
    }

    /** Whether evaluated pairs still wait for {@link #apply}. */
    public boolean pending() {
        return evaluated;
    }

    /** Materializes the collected pairs from {@code probe} and evaluates the condition on them. */
    public void evaluate(Batch probe) {
        collector.materialize(probe);
        count = collector.rowCount();
        next = 0;
        int words = (count + 63) >>> 6;
        if (accepted.length < words) {
            accepted = new long[words];
        }
        Arrays.fill(accepted, 0, words, -1L);
        if ((count & 63) != 0) {
            accepted[words - 1] = -1L >>> (64 - (count & 63));
        }
        condition.evaluate(collector.batch(), accepted);
        evaluated = true;
    }

    /**
     * Acts on the accepted pairs as {@code action} says (see the class comment): {@code matched} is the probe's
     * per-row match flags, {@code rowBytes} its rows' byte counts for {@code out}, {@code marksBuild} whether
     * matches set build rows' MATCHED flags, {@code rows} the format of the table the build rows are in. True when every evaluated pair was handled (the collector is then
     * clear), false when {@code out} is full (call again).
     */
    boolean apply(ProbeAction action, boolean marksBuild, OutputWriter out, boolean[] matched, int[] rowBytes,
                  CompactRows rows) {
        for (; next < count; next++) {
            if ((accepted[next >>> 6] & (1L << next)) == 0) {
                continue;
            }
            int i = collector.probeRowOf(next);
            long row = collector.buildRowOf(next);
            switch (action) {
                case PAIRS, PAIRS_OR_PAD -> {
                    if (out.room() == 0) {
                        return false;
                    }
                    out.append(i, rowBytes[i], row);
                    matched[i] = true;
                    if (marksBuild && !rows.isMatched(row)) {
                        rows.setMatched(row);
                    }
                }
                case SEMI -> {
                    if (!matched[i]) {
                        if (out.room() == 0) {
                            return false;
                        }
                        out.append(i, rowBytes[i], 0L);
                        matched[i] = true;
                    }
                }
                case ANTI, NULL_AWARE_ANTI -> matched[i] = true;
                case MARK -> {
                    if (!rows.isMatched(row)) {
                        rows.setMatched(row);
                    }
                }
            }
        }
        collector.clear();
        count = 0;
        next = 0;
        evaluated = false;
        return true;
    }
}
