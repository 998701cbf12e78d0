package dev.spilljoin.operator.data;

/**
 * Receives result batches. A batch is valid only during the call: the producer reuses it afterwards. A join with
 * several workers calls a sink from one thread at a time (under a lock), unless the sink declares itself thread-safe
 * ({@link #isThreadSafe()}), in which case its workers call it concurrently.
 */
@FunctionalInterface
public interface BatchSink {
    void accept(Batch batch);

    /** Whether {@link #accept} may be called from several threads at once (default: no). */
    default boolean isThreadSafe() {
        return false;
    }
}
