package dev.spilljoin.operator;

/**
 * What the build pass did, assembled when it ends ({@link PartitionedBuild#finish}) and folded into the join's
 * {@link JoinStats} ({@link JoinStats#recordBuild}).
 *
 * @param rows                 build rows read
 * @param fanout               level-0 partitions
 * @param residentPartitions   level-0 partitions kept in memory
 * @param spilledPartitions    level-0 spilled partitions, the heavy keys' partition included when it was used
 * @param residentRows         build rows held in memory
 * @param residentBytes        bytes reserved for the resident rows at the end of the pass (whole pages)
 * @param readmittedPartitions partitions that spilled during the pass but whose rows went into the table after all
 * @param readmittedRows       their rows, read back from their files
 * @param tableKind            the resident table: "direct" (direct-index table) or "hash"
 * @param tableBuckets         the resident hash table's directory slots (0 for the direct-index table)
 * @param tableBytes           the resident table's bytes (directory and compact rows, or the direct-index table)
 * @param tableKeyStride       the resident direct-index table's key stride (1 for any other table)
 * @param spilledBytes         bytes of level-0 build spill files (the readmitted partitions' included)
 * @param heavyKeysFromSketch  heavy keys the sketch found and routed
 * @param heavyKeysFromCache   heavy keys known from the statistics cache and routed
 * @param heavyKeysFromDuplicates heavy keys routed because the resident direct-index table met them more than once
 * @param heavyRowsFromSketch  build rows routed to the heavy keys' partition
 */
record BuildReport(long rows, int fanout, int residentPartitions, long spilledPartitions, long residentRows,
                   long residentBytes, int readmittedPartitions, long readmittedRows, String tableKind,
                   long tableBuckets, long tableBytes, long tableKeyStride,
                   long spilledBytes,
                   long heavyKeysFromSketch, long heavyKeysFromCache, long heavyKeysFromDuplicates,
                   long heavyRowsFromSketch, int workerSpillBuffers, int workerSpillBuffersRefused) {
}
