package dev.spilljoin.operator;

import java.io.IOException;

/**
 * One phase of a {@link HashJoin}, the sole owner of the resources it created or was handed: each phase hands what
 * outlives it to the next in one call ({@link PartitionedBuild#finish} returns the {@link PartitionedProbe},
 * {@link PartitionedProbe#finish} returns the {@link SpilledPairs}) and owns nothing afterwards. The join holds only
 * the current phase; {@link #close()} releases whatever that phase still owns, in any state.
 */
sealed interface JoinPhase extends AutoCloseable permits PartitionedBuild, PartitionedProbe, SpilledPairs {
    /** Releases every byte and file handle the phase still owns; idempotent. */
    @Override
    void close() throws IOException;
}
