package dev.spilljoin.cli;

import dev.spilljoin.operator.JoinType;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The join types the command offers, spelled as on the command line. Semi, anti and not-in return left rows
 * only; not-in takes exactly one key pair (SQL {@code NOT IN}: a NULL on the right side makes it return
 * nothing, a NULL left key never qualifies).
 */
public enum JoinKind {
    INNER("inner"),
    LEFT("left"),
    RIGHT("right"),
    FULL("full"),
    SEMI("semi"),
    ANTI("anti"),
    NOT_IN("not-in");

    private final String spelling;

    JoinKind(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    /** True for semi, anti and not-in: the output holds the left columns only. */
    public boolean leftColumnsOnly() {
        return this == SEMI || this == ANTI || this == NOT_IN;
    }

    /** The operator's join type: semi, anti and not-in keep left rows, so they are the LEFT_ variants. */
    public JoinType joinType() {
        return switch (this) {
            case INNER -> JoinType.INNER;
            case LEFT -> JoinType.LEFT_OUTER;
            case RIGHT -> JoinType.RIGHT_OUTER;
            case FULL -> JoinType.FULL_OUTER;
            case SEMI -> JoinType.LEFT_SEMI;
            case ANTI -> JoinType.LEFT_ANTI;
            case NOT_IN -> JoinType.NULL_AWARE_LEFT_ANTI;
        };
    }

    /** Parses a {@code --type} value (case-insensitive; {@code not_in} is accepted too). */
    public static JoinKind parse(String text) {
        String wanted = text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (JoinKind kind : values()) {
            if (kind.spelling.equals(wanted)) {
                return kind;
            }
        }
        throw new UsageException("'" + text + "' is not a join type; use one of " + spellings());
    }

    public static String spellings() {
        return Arrays.stream(values()).map(JoinKind::spelling).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return spelling;
    }
}
