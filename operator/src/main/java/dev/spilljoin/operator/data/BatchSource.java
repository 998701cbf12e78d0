package dev.spilljoin.operator.data;

/**
 * A stream of batches. {@link #next()} returns the next batch, or {@code null} at the end; the returned batch is
 * valid until the next call (a source may reuse it). The size hints let a join choose its build side before
 * reading: -1 means unknown.
 *
 * <p>A source that several threads can read at once (an in-memory table, a file split into ranges) says so by
 * handing out {@linkplain #concurrentReader() readers}: a join with several workers then has each worker read
 * batches (morsels) for itself, with no copy and no hand-over through the thread that pulls the join.
 */
public interface BatchSource {
    Batch next();

    /** Estimated total bytes of the input (as the batches hold them), or -1 if unknown. */
    default long sizeHintBytes() {
        return -1;
    }

    /** Estimated total rows of the input, or -1 if unknown. */
    default long sizeHintRows() {
        return -1;
    }

    /**
     * Another reader of this same stream, for another thread, or null if the source is read on one thread only (the
     * default). Readers share the stream: each batch goes to exactly one of them (this source counts as one reader),
     * so together they return every batch once. Their {@link #next()} may run concurrently, each returning a batch
     * valid until its own next call. A join asks for its readers before it reads the source.
     */
    default BatchSource concurrentReader() {
        return null;
    }
}
