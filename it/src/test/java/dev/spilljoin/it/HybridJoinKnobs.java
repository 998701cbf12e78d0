package dev.spilljoin.it;

import dev.spilljoin.operator.JoinConfig;

/**
 * The test knobs of the spilling (hybrid) join that the spilling cases need, in one place: a forced fanout (so that a
 * 1 MB budget over a few MB of build rows re-partitions 0, 1 or 2+ levels deep) and the fault hook that makes the
 * operator drop the unmatched build rows of one spilled partition. The issue-4 brief promises both on
 * {@link JoinConfig}; until that join is on main, the operator has neither, these methods say so, and the tests that
 * call them are disabled with {@link SpillingJoinCases#NEEDS_ISSUE_4}.
 */
final class HybridJoinKnobs {
    private HybridJoinKnobs() {
    }

    static JoinConfig forceFanout(JoinConfig config, int fanout) {
        throw new UnsupportedOperationException(SpillingJoinCases.NEEDS_ISSUE_4 + ": JoinConfig has no forced fanout yet");
    }

    static JoinConfig dropUnmatchedBuildRowsOfOneSpilledPartition(JoinConfig config) {
        throw new UnsupportedOperationException(SpillingJoinCases.NEEDS_ISSUE_4 + ": JoinConfig has no fault hook yet");
    }
}
