package dev.spilljoin.estimator;

/**
 * What the join planned from beside what it met, for its stats: build rows, bytes and distinct keys, estimated and
 * actual. The join fills it when the build input is consumed; {@value #UNKNOWN} stands for a figure it does not have
 * (no hint given, or no sketch taken) and is rendered as JSON {@code null}.
 *
 * @param estimateSource where the estimates came from, e.g. "cache", "hint", "sketch" or "none"
 * @param actualDistinctKeys the build-side sketch's count over all build rows (itself an estimate, within its error)
 */
public record EstimatesVsActuals(String estimateSource, long estimatedRows, long actualRows, long estimatedBytes,
        long actualBytes, long estimatedDistinctKeys, long actualDistinctKeys) {

    public static final long UNKNOWN = -1;

    public EstimatesVsActuals {
        if (estimateSource == null || estimateSource.isEmpty()) {
            throw new IllegalArgumentException("estimateSource must name where the estimates came from");
        }
        for (long value : new long[] {estimatedRows, actualRows, estimatedBytes, actualBytes, estimatedDistinctKeys,
                actualDistinctKeys}) {
            if (value < UNKNOWN) {
                throw new IllegalArgumentException("estimates and actuals must be >= 0 or UNKNOWN (-1), got " + value);
            }
        }
    }

    /** One line of JSON: {"estimate_source":"cache","rows":{"estimated":..,"actual":..},"bytes":{..},"distinct_keys":{..}}. */
    public String toJson() {
        StringBuilder json = new StringBuilder(160).append("{\"estimate_source\":");
        JsonStrings.append(json, estimateSource);
        appendPair(json.append(",\"rows\":"), estimatedRows, actualRows);
        appendPair(json.append(",\"bytes\":"), estimatedBytes, actualBytes);
        appendPair(json.append(",\"distinct_keys\":"), estimatedDistinctKeys, actualDistinctKeys);
        return json.append('}').toString();
    }

    private static void appendPair(StringBuilder json, long estimated, long actual) {
        json.append("{\"estimated\":").append(number(estimated)).append(",\"actual\":").append(number(actual))
                .append('}');
    }

    private static String number(long value) {
        return value == UNKNOWN ? "null" : Long.toString(value);
    }

}
