package dev.spilljoin.cli;

import java.util.Arrays;
import java.util.Set;

/**
 * Names the output columns: inner and outer joins give the left columns then the right columns, and a name
 * both sides have becomes {@code left.name} / {@code right.name}; semi, anti and not-in give the left columns
 * only, under their own names.
 */
public final class OutputColumns {
    private OutputColumns() {
    }

    public static String[] names(String[] left, String[] right, JoinKind kind) {
        if (kind.leftColumnsOnly()) {
            return left.clone();
        }
        Set<String> leftSet = Set.copyOf(Arrays.asList(left));
        Set<String> rightSet = Set.copyOf(Arrays.asList(right));
        String[] names = new String[left.length + right.length];
        for (int c = 0; c < left.length; c++) {
            names[c] = rightSet.contains(left[c]) ? "left." + left[c] : left[c];
        }
        for (int c = 0; c < right.length; c++) {
            names[left.length + c] = leftSet.contains(right[c]) ? "right." + right[c] : right[c];
        }
        return names;
    }
}
