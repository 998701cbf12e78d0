/**
 * Internal, not API: the join's rows and their encodings: the in-memory row layout ({@link
 * dev.spilljoin.operator.row.RowLayout}), row pages ({@link dev.spilljoin.operator.row.RowArena}), batch-to-row
 * writing and reading, key hashing and encoding, and the compact spill format with its decoder. Public only so that
 * the join's phases in {@code dev.spilljoin.operator} can use them (Java has no access between packages short of
 * public); no other module may import this package. The JMH benchmarks ({@code bench/micro}) reach what they time
 * through {@link dev.spilljoin.operator.internal.MicroBenchmarkAccess}, the one internal entry point. The operator's
 * API is {@code dev.spilljoin.operator} and {@code dev.spilljoin.operator.data}.
 */
package dev.spilljoin.operator.row;
