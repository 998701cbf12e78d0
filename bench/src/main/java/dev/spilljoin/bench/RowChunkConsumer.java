package dev.spilljoin.bench;

/**
 * Receives a table's rows a chunk at a time: rows {@code [0, rows)} of {@code keys} and {@code payloads}. The arrays
 * are reused for the next chunk, so a consumer copies what it keeps.
 *
 * @param <E> what the consumer may throw (an engine's load throws SQLException or IOException)
 */
@FunctionalInterface
public interface RowChunkConsumer<E extends Exception> {
    void accept(long[] keys, long[] payloads, int rows) throws E;
}
