package dev.spilljoin.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * What the JOIN_SPILLED phase did, counted in plain fields that only that phase's tasks write ({@link SpilledPairs},
 * {@link Repartitioner}, {@link InMemoryPairJoin}, {@link HeavyHitterNestedLoop}): each pair worker counts in its
 * own (no counter is shared between threads), and the phase sums them ({@link #add}) when it ends; the join folds
 * the sum into its {@link JoinStats} ({@link JoinStats#recordPairs}).
 */
final class PairCounters {
    long spilledBytesBuild;
    long spilledBytesProbe;
    /** Spilled partitions created per level (index = level; level 0 is the build's, left at 0 here). */
    final List<Long> partitionsPerLevel = new ArrayList<>();
    /** The largest fanout used per level (index = level). */
    final List<Integer> fanoutPerLevel = new ArrayList<>();
    int maxRecursionDepth;
    long heavyHitterKeys;
    long heavyHitterRows;
    long nestedLoopChunks;
    long roleReversals;
    /** Spilled pairs joined in memory with a direct-index table. */
    long directTables;
    /** Of those, the tables indexed by a key stride above 1. */
    long directTablesStrided;
    /** Spilled pairs joined in memory with a hash table (the nested-loop chunks are counted apart). */
    long hashTables;
    long heavyHitterKeysFromRepartitioning;
    /** Probe blocks of pairs joined by a worker other than the pair's own (a lane helping its probe pass). */
    long sharedPairBlocks;

    /** Adds {@code other}'s counts to these (sums; the deepest level and the largest fanouts). */
    void add(PairCounters other) {
        spilledBytesBuild += other.spilledBytesBuild;
        spilledBytesProbe += other.spilledBytesProbe;
        for (int level = 0; level < other.partitionsPerLevel.size(); level++) {
            addAt(partitionsPerLevel, level, other.partitionsPerLevel.get(level));
        }
        for (int level = 0; level < other.fanoutPerLevel.size(); level++) {
            maxAt(fanoutPerLevel, level, other.fanoutPerLevel.get(level));
        }
        maxRecursionDepth = Math.max(maxRecursionDepth, other.maxRecursionDepth);
        heavyHitterKeys += other.heavyHitterKeys;
        heavyHitterRows += other.heavyHitterRows;
        nestedLoopChunks += other.nestedLoopChunks;
        roleReversals += other.roleReversals;
        directTables += other.directTables;
        directTablesStrided += other.directTablesStrided;
        hashTables += other.hashTables;
        heavyHitterKeysFromRepartitioning += other.heavyHitterKeysFromRepartitioning;
        sharedPairBlocks += other.sharedPairBlocks;
    }

    void countPartitions(int level, long count) {
        addAt(partitionsPerLevel, level, count);
    }

    void recordFanout(int level, int partitions) {
        maxAt(fanoutPerLevel, level, partitions);
    }

    /** Adds {@code count} to {@code values[level]}, growing the list with zeros. */
    static void addAt(List<Long> values, int level, long count) {
        while (values.size() <= level) {
            values.add(0L);
        }
        values.set(level, values.get(level) + count);
    }

    /** Raises {@code values[level]} to at least {@code value}, growing the list with zeros. */
    static void maxAt(List<Integer> values, int level, int value) {
        while (values.size() <= level) {
            values.add(0);
        }
        values.set(level, Math.max(values.get(level), value));
    }
}
