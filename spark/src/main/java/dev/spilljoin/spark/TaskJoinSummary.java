package dev.spilljoin.spark;

import java.io.Serializable;

/**
 * What one task's join did, sent to the driver through {@link SpillJoinOptions#taskStats()}.
 *
 * @param partition         the zipped partition index
 * @param budgetBytes       the join's budget in this task
 * @param peakReservedBytes the most the join reserved at once (never above the budget)
 * @param leftRows          left rows read
 * @param rightRows         right rows read
 * @param outputRows        rows produced
 * @param statsJson         the operator's full stats ({@code JoinStats.toJson()})
 */
public record TaskJoinSummary(int partition, long budgetBytes, long peakReservedBytes, long leftRows, long rightRows,
                              long outputRows, String statsJson) implements Serializable {
}
