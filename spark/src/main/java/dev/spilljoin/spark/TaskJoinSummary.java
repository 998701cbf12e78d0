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
 * @param spilledPartitions spilled partitions the join created, all recursion levels (0: it ran in memory)
 * @param spilledBytes      bytes the join wrote to spill files, both sides
 * @param statsJson         the operator's full stats ({@code JoinStats.toJson()})
 * @param threadsUsed       the most workers the join ran at once ({@code JoinStats.threadsUsed()}: at most
 *                          {@link SpillJoinOptions#taskThreads()}, fewer when the budget held fewer)
 */
public record TaskJoinSummary(int partition, long budgetBytes, long peakReservedBytes, long leftRows, long rightRows,
                              long outputRows, long spilledPartitions, long spilledBytes, String statsJson,
                              int threadsUsed) implements Serializable {
}
