package dev.spilljoin.operator.table;

import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;

/**
 * How a join type runs once the build side is chosen: what the probe pass does with each probe row, and what the
 * finish pass emits from the build rows (driven by their MATCHED flags). The caller speaks left and right; this
 * maps both orientations of every {@link JoinType}:
 *
 * <pre>
 * type              build = RIGHT (probe = left)        build = LEFT (probe = right)
 * INNER             PAIRS / NONE                        PAIRS / NONE
 * LEFT_OUTER        PAIRS_OR_PAD / NONE                 PAIRS / UNMATCHED_PADDED
 * RIGHT_OUTER       PAIRS / UNMATCHED_PADDED            PAIRS_OR_PAD / NONE
 * FULL_OUTER        PAIRS_OR_PAD / UNMATCHED_PADDED     PAIRS_OR_PAD / UNMATCHED_PADDED
 * LEFT_SEMI         SEMI / NONE                         MARK / MATCHED
 * LEFT_ANTI         ANTI / NONE                         MARK / UNMATCHED
 * RIGHT_SEMI        MARK / MATCHED                      SEMI / NONE
 * RIGHT_ANTI        MARK / UNMATCHED                    ANTI / NONE
 * NULL_AWARE_L_ANTI NULL_AWARE_ANTI / NONE              MARK / NULL_AWARE_UNMATCHED
 * </pre>
 */
public record JoinStrategy(Side buildSide, ProbeAction probe, FinishAction finish) {

    /** What the probe pass does with a probe row. */
    public enum ProbeAction {
        /** Emit every (probe, build) pair of equal keys. */
        PAIRS,
        /** As PAIRS, and a probe row without a match (NULL keys too) is emitted once, the build side NULL. */
        PAIRS_OR_PAD,
        /** Emit the probe row once at its first match. */
        SEMI,
        /** Emit the probe row if it has no match (NULL keys too); stop at the first match. */
        ANTI,
        /** NOT IN: as ANTI for non-NULL keys while the build side has no NULL key; see {@link JoinType}. */
        NULL_AWARE_ANTI,
        /** Emit nothing; set the MATCHED flag of matching build rows (stops at an already marked one). */
        MARK
    }

    /** What the finish pass emits from the build rows. */
    public enum FinishAction {
        NONE,
        /** Build rows never matched (NULL keys too), the probe side NULL. */
        UNMATCHED_PADDED,
        /** Build rows matched at least once. */
        MATCHED,
        /** Build rows never matched (NULL keys too). */
        UNMATCHED,
        /** NOT IN with the left side built: see {@link JoinType#NULL_AWARE_LEFT_ANTI}. */
        NULL_AWARE_UNMATCHED
    }

    public static JoinStrategy of(JoinType type, Side build) {
        boolean buildRight = build == Side.RIGHT;
        return switch (type) {
            case INNER -> new JoinStrategy(build, ProbeAction.PAIRS, FinishAction.NONE);
            case LEFT_OUTER -> buildRight
                    ? new JoinStrategy(build, ProbeAction.PAIRS_OR_PAD, FinishAction.NONE)
                    : new JoinStrategy(build, ProbeAction.PAIRS, FinishAction.UNMATCHED_PADDED);
            case RIGHT_OUTER -> buildRight
                    ? new JoinStrategy(build, ProbeAction.PAIRS, FinishAction.UNMATCHED_PADDED)
                    : new JoinStrategy(build, ProbeAction.PAIRS_OR_PAD, FinishAction.NONE);
            case FULL_OUTER -> new JoinStrategy(build, ProbeAction.PAIRS_OR_PAD, FinishAction.UNMATCHED_PADDED);
            case LEFT_SEMI -> buildRight
                    ? new JoinStrategy(build, ProbeAction.SEMI, FinishAction.NONE)
                    : new JoinStrategy(build, ProbeAction.MARK, FinishAction.MATCHED);
            case LEFT_ANTI -> buildRight
                    ? new JoinStrategy(build, ProbeAction.ANTI, FinishAction.NONE)
                    : new JoinStrategy(build, ProbeAction.MARK, FinishAction.UNMATCHED);
            case RIGHT_SEMI -> buildRight
                    ? new JoinStrategy(build, ProbeAction.MARK, FinishAction.MATCHED)
                    : new JoinStrategy(build, ProbeAction.SEMI, FinishAction.NONE);
            case RIGHT_ANTI -> buildRight
                    ? new JoinStrategy(build, ProbeAction.MARK, FinishAction.UNMATCHED)
                    : new JoinStrategy(build, ProbeAction.ANTI, FinishAction.NONE);
            case NULL_AWARE_LEFT_ANTI -> buildRight
                    ? new JoinStrategy(build, ProbeAction.NULL_AWARE_ANTI, FinishAction.NONE)
                    : new JoinStrategy(build, ProbeAction.MARK, FinishAction.NULL_AWARE_UNMATCHED);
        };
    }

    /** Whether matches set the build rows' MATCHED flags (the finish pass reads them). */
    public boolean marksBuildRows() {
        return finish != FinishAction.NONE;
    }

    /** Whether build rows with a NULL key must be kept (the finish pass may emit them). */
    public boolean keepsNullKeyBuildRows() {
        return finish == FinishAction.UNMATCHED_PADDED || finish == FinishAction.UNMATCHED
                || finish == FinishAction.NULL_AWARE_UNMATCHED;
    }

    public Side probeSide() {
        return buildSide.other();
    }
}
