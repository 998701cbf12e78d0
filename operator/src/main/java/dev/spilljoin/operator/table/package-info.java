/**
 * Internal, not API: the join's hash table ({@link dev.spilljoin.operator.table.UnchainedTable}), the batched probe
 * ({@link dev.spilljoin.operator.table.HashProbe}), the finish pass over build rows, the result batch writer (which
 * reads build rows through {@link dev.spilljoin.operator.table.BuildRowReader}), the
 * build-key filter, and the mapping of each join type to its probe and finish actions
 * ({@link dev.spilljoin.operator.table.JoinStrategy}). Public only so that the join's phases in
 * {@code dev.spilljoin.operator} can use them (Java has no access between packages short of public); no other module
 * may import this package. The JMH benchmarks ({@code bench/micro}) reach what they time through
 * {@link dev.spilljoin.operator.internal.MicroBenchmarkAccess}, the one internal entry point. The operator's API is
 * {@code dev.spilljoin.operator} and {@code dev.spilljoin.operator.data}.
 */
package dev.spilljoin.operator.table;
