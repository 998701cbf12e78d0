package dev.spilljoin.operator;

import dev.spilljoin.operator.table.BuildKeyFilter;
import dev.spilljoin.operator.table.DirectIndexTable;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.SpillFile;

/**
 * What the build pass hands the probe pass in one call ({@link PartitionedBuild#finish}); from then on the probe
 * pass ({@link PartitionedProbe}) owns the table (holding the resident rows), the writer, the key filter and the
 * sketches.
 *
 * @param fanoutLog2         level 0's partitions, as a power of two (the heavy partition is index {@code 2^fanoutLog2})
 * @param table              the hash table holding the resident partitions' rows, or null when {@code direct} does
 * @param direct             the direct-index table holding the resident partitions' rows, or null when {@code table}
 *                           does
 * @param spilled            which partitions spilled (the heavy partition always counts as spilled)
 * @param files              the sealed build files of spilled partitions (null: no file was written)
 * @param heavyKeys          the accepted heavy key hashes, ascending, in {@code [0, heavyKeyCount)}
 * @param heavyKeyCount      how many heavy keys were accepted
 * @param heavyFilter        the heavy keys' filter, asked per row before {@code heavyKeys} is searched
 * @param rows               build rows read (NULL keys included)
 * @param rowBytes           their bytes in the build side's row layout (those of dropped NULL-key rows included)
 * @param nullKeyRows        build rows with a NULL key
 * @param heavyCandidateRows the heavy-key candidates' threshold at the end of the build (for the statistics cache)
 * @param probeWriter        the level-0 probe spill writer, holding one writer share per spilled partition
 * @param keyFilter          the build keys' filter, or null
 * @param sketches           the key sketches, or null
 * @param report             what the build pass did, for the stats
 */
record BuildOutput(int fanoutLog2, UnchainedTable table, DirectIndexTable direct, boolean[] spilled, SpillFile[] files,
                   long[] heavyKeys, int heavyKeyCount, HeavyKeyFilter heavyFilter, long rows, long rowBytes,
                   long nullKeyRows, long heavyCandidateRows,
                   ReservedSpillWriter probeWriter, BuildKeyFilter keyFilter, JoinSketches sketches,
                   BuildReport report) {
    /** The index of the extra, always spilled partition holding the rows of the heavy keys. */
    int heavyPartition() {
        return 1 << fanoutLog2;
    }
}
