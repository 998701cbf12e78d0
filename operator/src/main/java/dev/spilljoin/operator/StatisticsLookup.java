package dev.spilljoin.operator;

import dev.spilljoin.estimator.InputIdentity;
import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.estimator.StatisticsCache;

import java.util.Objects;

/**
 * Where a join finds and leaves the statistics of its inputs: a {@link StatisticsCache} shared by the joins of one
 * process, and the identity of each input (file path, size and modification time, or table id and version). On a
 * hit the join plans from the known statistics from its first row (sizes for the build side and the fanout, heavy
 * keys routed to their own pair from the first row); after the probe pass it stores what it measured of its build
 * side.
 */
public record StatisticsLookup(StatisticsCache cache, InputIdentity left, InputIdentity right) {
    public StatisticsLookup {
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(left, "left input identity");
        Objects.requireNonNull(right, "right input identity");
    }

    InputIdentity identity(Side side) {
        return side == Side.LEFT ? left : right;
    }

    /** The cached statistics of {@code side}'s input, or null. */
    InputStatistics known(Side side) {
        return cache.get(identity(side)).orElse(null);
    }
}
