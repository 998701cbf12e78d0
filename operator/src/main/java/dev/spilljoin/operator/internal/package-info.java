/**
 * Internal and unsupported, not API: {@link dev.spilljoin.operator.internal.MicroBenchmarkAccess}, the one entry
 * point through which the JMH micro benchmarks ({@code bench/micro}) reach the operator's internals
 * ({@code dev.spilljoin.operator.row}, {@code dev.spilljoin.operator.table}), a batch at a time. Nothing else may use
 * it; it changes whenever the internals do. The operator's API is {@code dev.spilljoin.operator} and
 * {@code dev.spilljoin.operator.data}.
 */
package dev.spilljoin.operator.internal;
