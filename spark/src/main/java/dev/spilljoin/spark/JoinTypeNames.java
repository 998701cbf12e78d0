package dev.spilljoin.spark;

import dev.spilljoin.operator.JoinType;

import java.util.Locale;

/** Spark's join type names (as {@code Dataset.join} takes them) mapped to the operator's {@link JoinType}s. */
final class JoinTypeNames {
    private JoinTypeNames() {
    }

    static JoinType parse(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace("_", "").replace(" ", "");
        return switch (n) {
            case "inner" -> JoinType.INNER;
            case "left", "leftouter" -> JoinType.LEFT_OUTER;
            case "right", "rightouter" -> JoinType.RIGHT_OUTER;
            case "full", "outer", "fullouter" -> JoinType.FULL_OUTER;
            case "semi", "leftsemi" -> JoinType.LEFT_SEMI;
            case "anti", "leftanti" -> JoinType.LEFT_ANTI;
            case "rightsemi" -> JoinType.RIGHT_SEMI;
            case "rightanti" -> JoinType.RIGHT_ANTI;
            case "notin", "nullawareleftanti", "nullawareanti" -> JoinType.NULL_AWARE_LEFT_ANTI;
            default -> throw new IllegalArgumentException("unknown join type '" + name + "'; use one of inner, left, right, "
                    + "full, left_semi, left_anti, right_semi, right_anti, not_in (cross joins are not hash joins)");
        };
    }
}
