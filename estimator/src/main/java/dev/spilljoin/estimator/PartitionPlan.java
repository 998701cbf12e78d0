package dev.spilljoin.estimator;

import java.util.List;

/**
 * What the {@link PartitionPlanner} expects of one partitioning pass (and of the passes after it).
 *
 * @param level                     the recursion level this pass partitions at (0 = the input)
 * @param fanoutLog2PerLevel        log2 of the fanout of this pass, then of each further pass expected for a
 *                                  partition that still does not fit (one entry when no recursion is expected)
 * @param residentPartitions        partitions 0 .. residentPartitions-1 are expected to stay in memory (all of them
 *                                  when the input fits); the others are spilled
 * @param expectedPartitionRows     rows of an average partition that receives rows (with fewer distinct keys than
 *                                  partitions some stay empty), heavy keys routed to the nested loop excluded
 * @param expectedPartitionBytes    row bytes of such a partition, heavy keys excluded
 * @param expectedPartitionFootprint row bytes plus hash table bytes of an average partition: what it needs resident
 * @param partitionCapacityBytes    the footprint one partition may have and still be joined in memory in the pair
 *                                  pass
 * @param overflowExpected          whether a partition is expected to exceed the capacity even after the listed
 *                                  passes: too few distinct keys to split it (a case for the nested-loop path), or
 *                                  more than the 16 passes the planner lists (a budget far too small for the input)
 * @param nestedLoopKeys            heavy keys whose build rows go straight to the nested-loop path
 * @param bufferBytes               the partition buffers this pass holds at most (spilled partitions and the heavy-key
 *                                  stream)
 */
public record PartitionPlan(int level, List<Integer> fanoutLog2PerLevel, int residentPartitions,
        long expectedPartitionRows, long expectedPartitionBytes, long expectedPartitionFootprint,
        long partitionCapacityBytes, boolean overflowExpected, HeavyHitters nestedLoopKeys, long bufferBytes) {

    public PartitionPlan {
        fanoutLog2PerLevel = List.copyOf(fanoutLog2PerLevel);
    }

    /** The number of partitions of this pass. */
    public int fanout() {
        return 1 << fanoutLog2PerLevel.get(0);
    }

    public int fanoutLog2() {
        return fanoutLog2PerLevel.get(0);
    }

    /** Whether every partition is expected to stay resident (nothing spilled). */
    public boolean fitsInMemory() {
        return residentPartitions == fanout();
    }

    /** Whether a spilled partition is expected to need another partitioning pass. */
    public boolean recursionExpected() {
        return fanoutLog2PerLevel.size() > 1;
    }

    /** Whether partition {@code p} of this pass is expected to stay resident. */
    public boolean isResident(int p) {
        return p < residentPartitions;
    }
}
