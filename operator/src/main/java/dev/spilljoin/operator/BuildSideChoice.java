package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;
import dev.spilljoin.estimator.InputStatistics;

/**
 * The build side of one join and what is known of that input before its first row: its size hints and, on a
 * statistics-cache hit, its statistics (which then replace the hints).
 *
 * <p>Rule ({@link #choose}): a build side forced by {@link JoinConfig#buildSide()} wins; else the smaller input by
 * bytes when both sides give bytes, else by rows when both give rows; else (unknown or equal) the right side.
 *
 * @param side      the build side
 * @param hintRows  the build input's rows as hinted or cached, -1 = unknown
 * @param hintBytes the build input's bytes as hinted or cached, -1 = unknown
 * @param known     the build input's cached statistics, or null
 */
record BuildSideChoice(Side side, long hintRows, long hintBytes, InputStatistics known) {

    /**
     * What one input says of its size before its first row: its hints (-1 = unknown), replaced by its cached
     * statistics when there are some ({@code known}, or null).
     */
    record InputSize(long bytes, long rows, InputStatistics known) {
        static InputSize of(long hintBytes, long hintRows, InputStatistics known) {
            return known == null ? new InputSize(hintBytes, hintRows, null)
                    : new InputSize(known.bytes(), known.rows(), known);
        }
    }

    /** The build side by the rule of the header; {@code forced} is the configured side, or null. */
    static BuildSideChoice choose(Side forced, InputSize left, InputSize right) {
        Side build;
        if (forced != null) {
            build = forced;
        } else if (left.bytes() >= 0 && right.bytes() >= 0) {
            build = left.bytes() < right.bytes() ? Side.LEFT : Side.RIGHT;
        } else if (left.rows() >= 0 && right.rows() >= 0) {
            build = left.rows() < right.rows() ? Side.LEFT : Side.RIGHT;
        } else {
            build = Side.RIGHT;
        }
        InputSize chosen = build == Side.LEFT ? left : right;
        return new BuildSideChoice(build, Math.max(-1, chosen.rows()), Math.max(-1, chosen.bytes()), chosen.known());
    }

    /** Where the estimates of the build input came from: "cache", "hint" or "none" (the stats' estimate source). */
    String estimateSource() {
        return known != null ? "cache" : hintRows >= 0 || hintBytes >= 0 ? "hint" : "none";
    }

    /** The build input's distinct keys as cached, or {@link EstimatesVsActuals#UNKNOWN}. */
    long estimatedDistinctKeys() {
        return known != null ? known.distinctKeys() : EstimatesVsActuals.UNKNOWN;
    }
}
