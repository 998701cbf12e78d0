package dev.spilljoin.cli;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Names the output columns: inner and outer joins give the left columns then the right columns, and a name
 * both sides have becomes {@code left.name} / {@code right.name}; when that is the name of a column that kept its
 * own (a header that already holds {@code left.id}), the prefix is repeated until it is not ({@code left.left.id}).
 * Semi, anti and not-in give the left columns only, under their own names. A name a file repeats stays repeated.
 *
 * <p>Invariant: apart from names a file repeats, the names are distinct (prefixed names start with their side's
 * prefix and avoid every unprefixed name).
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
        Set<String> unprefixed = new HashSet<>();
        for (String name : left) {
            if (!rightSet.contains(name)) {
                unprefixed.add(name);
            }
        }
        for (String name : right) {
            if (!leftSet.contains(name)) {
                unprefixed.add(name);
            }
        }
        String[] names = new String[left.length + right.length];
        for (int c = 0; c < left.length; c++) {
            names[c] = rightSet.contains(left[c]) ? prefixed("left.", left[c], unprefixed) : left[c];
        }
        for (int c = 0; c < right.length; c++) {
            names[left.length + c] = leftSet.contains(right[c]) ? prefixed("right.", right[c], unprefixed) : right[c];
        }
        return names;
    }

    private static String prefixed(String prefix, String name, Set<String> unprefixed) {
        String result = prefix + name;
        while (unprefixed.contains(result)) {
            result = prefix + result;
        }
        return result;
    }
}
