package dev.spilljoin.it;

import dev.spilljoin.operator.JoinStats;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a numeric field of a join's stats by its JSON name (the names the CLI prints, e.g. {@code partitions},
 * {@code max_recursion_depth}), so that tests assert which path a join took. A field the stats do not have is a
 * clear failure naming the field and the stats.
 */
final class StatsFields {
    private StatsFields() {
    }

    static long get(JoinStats stats, String field) {
        String json = stats.toJson();
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        if (!m.find()) {
            throw new AssertionError("the join's stats have no numeric field '" + field + "': " + json);
        }
        return Long.parseLong(m.group(1));
    }
}
