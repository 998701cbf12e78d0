package dev.spilljoin.operator.data;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Ready-made {@link BatchSource}s. */
public final class BatchSources {
    private BatchSources() {
    }

    /** A source over a fixed list of batches, with size hints measured from them. */
    public static BatchSource of(List<Batch> batches) {
        long rows = 0;
        long bytes = 0;
        for (Batch b : batches) {
            rows += b.rowCount();
            bytes += b.dataBytes();
        }
        return of(batches, rows, bytes);
    }

    /** A source over a fixed list of batches with the given hints (-1 = unknown). */
    public static BatchSource of(List<Batch> batches, long rowsHint, long bytesHint) {
        return new BatchSource() {
            private int next;

            @Override
            public Batch next() {
                return next < batches.size() ? batches.get(next++) : null;
            }

            @Override
            public long sizeHintRows() {
                return rowsHint;
            }

            @Override
            public long sizeHintBytes() {
                return bytesHint;
            }
        };
    }

    /**
     * A source over a fixed list of batches that several threads may read at once ({@link
     * BatchSource#concurrentReader()}): its readers take the batches in turn from one shared position, with size
     * hints measured from them.
     */
    public static BatchSource concurrent(List<Batch> batches) {
        BatchSource hints = of(batches);
        return new ConcurrentListReader(batches, new AtomicInteger(), hints.sizeHintRows(), hints.sizeHintBytes());
    }

    /** One reader of a list shared by position (see {@link #concurrent}). */
    private record ConcurrentListReader(List<Batch> batches, AtomicInteger position, long rowsHint, long bytesHint)
            implements BatchSource {
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
            return new ConcurrentListReader(batches, position, rowsHint, bytesHint);
        }
    }
}
