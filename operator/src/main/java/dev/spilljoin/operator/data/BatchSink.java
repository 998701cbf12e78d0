package dev.spilljoin.operator.data;

/** Receives result batches. A batch is valid only during the call: the producer reuses it afterwards. */
@FunctionalInterface
public interface BatchSink {
    void accept(Batch batch);
}
