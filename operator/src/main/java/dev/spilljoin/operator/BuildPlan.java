package dev.spilljoin.operator;

import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.operator.table.BuildKeyFilter;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryReservation;

/**
 * What a join reserves and plans before its first build row, in this order: the key sketches (beside the join's
 * minimum; none when the build side is expected to stay in memory, {@link #SKETCH_FREE_SHARE}), the build-key
 * filter (beside the minimum and the sketches), and the memory layout of the partitioning ({@link SpillSizing}),
 * planned with the budget the sketches and the filter leave ({@link #partitioningBudget}),
 * since both are held through the probe pass. The plan owns the sketches and the filter until the build takes them
 * ({@link PartitionedBuild}); if planning fails, it closes what it had reserved.
 *
 * @param sketches  the key sketches, or none (and why)
 * @param keyFilter the build-key filter, or none (and why)
 * @param sizing    the memory layout and level-0 plan
 */
record BuildPlan(Reserved<JoinSketches> sketches, Reserved<BuildKeyFilter> keyFilter, SpillSizing sizing) {
    /**
     * The key sketches are skipped when the build side's expected rows and table take at most 1/this of the budget:
     * they serve only a build that spills (its heavy keys, its pairs' plans) and cost a join that stays in memory a
     * fifth of its time (a HyperLogLog and a frequent-items update per row).
     */
    static final int SKETCH_FREE_SHARE = 2;

    /** Reserves and plans for {@code spec}'s join with the build side {@code choice} under {@code memory}. */
    static BuildPlan make(JoinSpec spec, MemoryReservation memory, BuildSideChoice choice) {
        long minimum = SpillSizing.absoluteMinimum(spec.config());
        int minRowBytes = JoinContext.layoutOf(spec, choice.side()).minRowLength();
        InputStatistics expected = SpillSizing.expectedBuild(choice.known(), choice.hintRows(), choice.hintBytes(),
                minRowBytes);
        long expectedTable = SpillSizing.residentBytes(expected, minRowBytes);
        Reserved<JoinSketches> sketches = expectedTable >= 0 && expectedTable <= memory.limit() / SKETCH_FREE_SHARE
                ? Reserved.off("the build side is expected to stay in memory (" + ByteSize.format(expectedTable)
                        + " of rows and table in a budget of " + ByteSize.format(memory.limit()) + "); should it"
                        + " spill after all, re-partitioning finds its heavy keys")
                : JoinSketches.reserve(memory, minimum);
        Reserved<BuildKeyFilter> keyFilter = null;
        try {
            keyFilter = reserveKeyFilter(spec, choice.side(), memory, minimum + sketches.bytes(), choice.hintRows(),
                    choice.hintBytes());
            SpillSizing sizing = SpillSizing.choose(spec.config(),
                    partitioningBudget(memory.limit(), sketches.bytes(), keyFilter.bytes()), memory.limit(),
                    expected, minRowBytes);
            return new BuildPlan(sketches, keyFilter, sizing);
        } catch (RuntimeException e) {
            PartitionedBuild.closeAll(sketches.value(), keyFilter == null ? null : keyFilter.value());
            throw e;
        }
    }

    /**
     * A build-key filter for an expected {@code buildRows} build rows ({@link BuildKeyFilter#bytesFor}) reserved from
     * {@code memory} beside {@code minimumBudget}, or none (and why).
     */
    static Reserved<BuildKeyFilter> reserveKeyFilter(JoinSpec spec, Side buildSide, MemoryReservation memory,
                                                     long minimumBudget, long buildRows, long buildBytes) {
        long bytes = BuildKeyFilter.bytesFor(memory.limit(), memory.reserved(), minimumBudget, buildRows, buildBytes);
        if (bytes < BuildKeyFilter.MIN_BYTES) {
            return Reserved.off("the budget of " + ByteSize.format(memory.limit()) + " has no "
                    + ByteSize.format(BuildKeyFilter.MIN_BYTES) + " to spare for a Bloom filter beside the join's"
                    + " minimum");
        }
        MemoryReservation child = memory.newChild("build-key-filter");
        if (!child.tryGrow(bytes)) {
            child.close();
            return Reserved.off(ByteSize.format(bytes) + " of Bloom filter were refused by the budget");
        }
        return Reserved.on(BuildKeyFilter.over(child, bytes, spec, buildSide), bytes);
    }

    /** The budget the partitioning is planned with: the join's, less the sketches and the filter it holds. */
    static long partitioningBudget(long limit, long sketchBytes, long keyFilterBytes) {
        return limit - sketchBytes - keyFilterBytes;
    }
}
