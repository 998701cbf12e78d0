package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;

/**
 * What the probe pass did, assembled when its input ends ({@link PartitionedProbe#endOfInput}) and folded into the
 * join's {@link JoinStats} ({@link JoinStats#recordProbe}).
 *
 * @param rows                 probe rows read
 * @param spilledBytes         bytes of level-0 probe spill files
 * @param filterChecked        probe rows checked against the build-key filter
 * @param excludedByRange      of them, ruled out by the key range
 * @param excludedByBloom      of them, ruled out by the Bloom filter
 * @param estimates            the build side's estimates beside its actuals, or null without sketches
 * @param sampleRows           probe rows the probe sketch saw (0 without sketches)
 * @param sampleDistinctKeys   their distinct keys, estimated
 */
record ProbeReport(long rows, long spilledBytes, long filterChecked, long excludedByRange, long excludedByBloom,
                   EstimatesVsActuals estimates, long sampleRows, long sampleDistinctKeys, int workerSpillBuffers,
                   int workerSpillBuffersRefused) {
}
