package dev.spilljoin.operator;

/**
 * Join types with SQL semantics. A key is NULL when any of its columns is NULL; NULL keys never match.
 * Outer joins emit their NULL-key rows padded with NULLs; ANTI returns its side's NULL-key rows (NOT EXISTS).
 * {@link #NULL_AWARE_LEFT_ANTI} is {@code x NOT IN (SELECT y ...)}: no left row qualifies once the right side has a
 * NULL key anywhere, and a left row with a NULL key qualifies only when the right side is empty; one key column only.
 */
public enum JoinType {
    INNER,
    LEFT_OUTER,
    RIGHT_OUTER,
    FULL_OUTER,
    /** Left rows with at least one match, each once. */
    LEFT_SEMI,
    /** Left rows without a match. */
    LEFT_ANTI,
    RIGHT_SEMI,
    RIGHT_ANTI,
    NULL_AWARE_LEFT_ANTI;

    /** The only side whose columns the result has, or null when it has both sides' columns. */
    public Side returnedSideOnly() {
        return switch (this) {
            case LEFT_SEMI, LEFT_ANTI, NULL_AWARE_LEFT_ANTI -> Side.LEFT;
            case RIGHT_SEMI, RIGHT_ANTI -> Side.RIGHT;
            case INNER, LEFT_OUTER, RIGHT_OUTER, FULL_OUTER -> null;
        };
    }

    /** Whether the result may pad side {@code side}'s columns with NULLs (the other side is preserved). */
    public boolean padsSide(Side side) {
        return switch (this) {
            case LEFT_OUTER -> side == Side.RIGHT;
            case RIGHT_OUTER -> side == Side.LEFT;
            case FULL_OUTER -> true;
            default -> false;
        };
    }
}
