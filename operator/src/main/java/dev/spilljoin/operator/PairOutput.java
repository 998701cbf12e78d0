package dev.spilljoin.operator;

import dev.spilljoin.operator.table.OutputWriter;

/**
 * A pair task's view of a worker's result batch: the batch itself, or, for a pair joined with the roles reversed
 * ({@link JoinContext.PairOrientation}), the same batch written from the other side. A worker may hand a task
 * another batch at each call, so the reversed view is remade when the batch changes.
 */
final class PairOutput {
    private final JoinContext ctx;
    private final JoinContext.PairOrientation orientation;
    private OutputWriter reversedOut;
    /** The result batch {@link #reversedOut} writes into. */
    private OutputWriter reversedFor;

    PairOutput(JoinContext ctx, JoinContext.PairOrientation orientation) {
        this.ctx = ctx;
        this.orientation = orientation;
    }

    /** The writer of this pair's orientation into {@code shared}. */
    OutputWriter writer(OutputWriter shared) {
        if (!orientation.reversed()) {
            return shared;
        }
        if (reversedOut == null || reversedFor != shared) {
            reversedOut = shared.reoriented(ctx.spec.projection(), orientation.buildSide(), orientation.buildLayout());
            reversedFor = shared;
        }
        return reversedOut;
    }
}
