package dev.spilljoin.operator;

import dev.spilljoin.spill.SpillSpace;

import java.util.function.Function;

/**
 * The one entry point through which tests outside this package bind the join's test-only fault points
 * ({@link JoinFaults}, package-private): each method returns a way to create joins with one fault bound. It lives
 * in the operator's test jar only (other modules' tests depend on it with {@code <type>test-jar</type>}); the
 * operator's main jar has no public way to make a join drop rows or fail its disk.
 */
public final class FaultInjection {
    private FaultInjection() {
    }

    /**
     * Joins whose level-0 spilled pair of partition {@code index} emits none of its unmatched build rows (and is
     * never joined reversed): outer and anti results lose rows, so a comparison against an oracle must fail.
     */
    public static Function<JoinSpec, HashJoin> droppingUnmatchedBuildRowsOfPartition(int index) {
        return spec -> HashJoin.create(spec, new JoinFaults() {
            @Override
            public boolean dropsUnmatchedBuildRows(int level, int partition) {
                return level == 0 && partition == index;
            }
        });
    }

    /** Joins whose spill writes fail, as a failing disk would, after {@code blocks} blocks were written. */
    public static Function<JoinSpec, HashJoin> failingSpillWritesAfterBlocks(long blocks) {
        return spec -> HashJoin.create(spec, new JoinFaults() {
            @Override
            public void spillSpaceCreated(SpillSpace space) {
                space.failWritesAfterBlocks(blocks);
            }
        });
    }
}
