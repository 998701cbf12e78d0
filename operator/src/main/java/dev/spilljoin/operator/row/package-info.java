/**
 * Internal, not API: the join's rows and their encodings: the in-memory row layout ({@link
 * dev.spilljoin.operator.row.RowLayout}), row pages ({@link dev.spilljoin.operator.row.RowArena}), batch-to-row
 * writing and reading, key hashing and encoding, and the compact spill format with its decoder. Public only so that
 * the join's phases in {@code dev.spilljoin.operator} and the JMH benchmarks ({@code bench/micro}) can use them;
 * the operator's API is {@code dev.spilljoin.operator} and {@code dev.spilljoin.operator.data}.
 */
package dev.spilljoin.operator.row;
