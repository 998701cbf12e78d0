package dev.spilljoin.operator.data;

import java.util.List;

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
}
