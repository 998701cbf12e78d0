package dev.spilljoin.operator.data;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Ready-made {@link BatchSource}s. */
public final class BatchSources {
    private BatchSources() {
    }

    /** A source over a fixed list of batches, with size hints measured from them. */
    public static BatchSource of(List<Batch> batches) {
        return of(batches, rowsOf(batches), bytesOf(batches));
    }

    /** A source over a fixed list of batches with the given hints (-1 = unknown). */
    public static BatchSource of(List<Batch> batches, long rowsHint, long bytesHint) {
        return new ListReader(batches, new AtomicInteger(), rowsHint, bytesHint, false);
    }

    /**
     * A source over a fixed list of batches that several threads may read at once ({@link
     * BatchSource#concurrentReader()}): its readers take the batches in turn from one shared position, with size
     * hints measured from them.
     */
    public static BatchSource concurrent(List<Batch> batches) {
        return new ListReader(batches, new AtomicInteger(), rowsOf(batches), bytesOf(batches), true);
    }

    private static long rowsOf(List<Batch> batches) {
        long rows = 0;
        for (Batch b : batches) {
            rows += b.rowCount();
        }
        return rows;
    }

    private static long bytesOf(List<Batch> batches) {
        long bytes = 0;
        for (Batch b : batches) {
            bytes += b.dataBytes();
        }
        return bytes;
    }

    /**
     * A reader of a list of batches from {@code position}; with {@code concurrent}, it hands out more readers sharing
     * that position.
     */
    private record ListReader(List<Batch> batches, AtomicInteger position, long rowsHint, long bytesHint,
                              boolean concurrent) implements BatchSource {
        @Override
        public Batch next() {
            int i = position.getAndIncrement();
            return i < batches.size() ? batches.get(i) : null;
        }

        @Override
        public long sizeHintRows() {
            return rowsHint;
        }

        @Override
        public long sizeHintBytes() {
            return bytesHint;
        }

        @Override
        public BatchSource concurrentReader() {
            return concurrent ? new ListReader(batches, position, rowsHint, bytesHint, true) : null;
        }
    }
}
