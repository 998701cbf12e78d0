package dev.spilljoin.operator.data;

/**
 * A stream of batches. {@link #next()} returns the next batch, or {@code null} at the end; the returned batch is
 * valid until the next call (a source may reuse it). The size hints let a join choose its build side before
 * reading: -1 means unknown.
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
}
