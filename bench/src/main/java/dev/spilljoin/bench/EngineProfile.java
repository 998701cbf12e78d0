package dev.spilljoin.bench;

import java.util.OptionalLong;

/**
 * What an engine tells about one run of a query: its peak memory and the bytes it spilled (empty where the engine
 * does not tell), the result when the profiled run returned rows, and a one-line note on the plan (e.g. hash batches).
 */
public record EngineProfile(OptionalLong peakMemoryBytes, OptionalLong spilledBytes, JoinResult result, String note) {
}
