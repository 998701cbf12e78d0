/**
 * Internal, not API: the join's hash table ({@link dev.spilljoin.operator.table.JoinHashTable}), the batched probe
 * ({@link dev.spilljoin.operator.table.HashProbe}), the finish pass over build rows, the result batch writer, the
 * build-key filter, and the mapping of each join type to its probe and finish actions
 * ({@link dev.spilljoin.operator.table.JoinStrategy}). Public only so that the join's phases in
 * {@code dev.spilljoin.operator} and the JMH benchmarks ({@code bench/micro}) can use them; the operator's API is
 * {@code dev.spilljoin.operator} and {@code dev.spilljoin.operator.data}.
 */
package dev.spilljoin.operator.table;
