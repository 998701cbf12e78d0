package dev.spilljoin.operator;

import dev.spilljoin.spill.SpillSpace;

/**
 * Named fault points of one join, bound only by tests (as Velox's {@code TestValue} hooks): each default method is
 * what a healthy join does. A test passes its own implementation to {@link HashJoin#create(JoinSpec, JoinFaults)}
 * (package-private); every other join runs with {@link #NONE}. The points exist to prove that a wrong result or a
 * failing disk is noticed: by the oracle comparisons (their teeth) and by the failure cleanup.
 */
interface JoinFaults {
    /** No fault: the join as it runs in production. */
    JoinFaults NONE = new JoinFaults() {
    };

    /**
     * Whether the finish pass of the spilled pair of partition {@code index} at {@code level} emits nothing (outer
     * and anti results lose its unmatched build rows); such a pair is never joined with its roles reversed, so the
     * rows really are dropped.
     */
    default boolean dropsUnmatchedBuildRows(int level, int index) {
        return false;
    }

    /**
     * Called when a lane of a spilled pair's probe pass has taken a block ({@code helperLane}: the lane of a worker
     * helping another's task, else the task's own): a test may hold the task's own lane here until a helper joined,
     * so that the sharing is exercised whatever the timing, or fail a helper.
     */
    default void pairProbeBlockTaken(boolean helperLane) {
    }

    /** Called once the join has created its spill space, before any file in it is written. */
    default void spillSpaceCreated(SpillSpace space) {
    }

    /**
     * Called by {@link HashJoin#close()} once no call of the join runs any more, before it frees anything: a test may
     * start a call on another thread here to prove that it cannot slip in.
     */
    default void closeFoundNoCall() {
    }
}
