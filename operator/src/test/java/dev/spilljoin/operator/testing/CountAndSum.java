package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;

/** A sink computing {@code count(*)} and {@code sum(col0 + col1)} of BIGINT result batches (the workloads' query). */
public final class CountAndSum implements BatchSink {
    private long count;
    private long sum;

    @Override
    public void accept(Batch b) {
        long[] a = b.column(0).longs();
        long[] c = b.column(1).longs();
        for (int j = 0, n = b.rowCount(); j < n; j++) {
            sum += a[j] + c[j];
        }
        count += b.rowCount();
    }

    public long count() {
        return count;
    }

    public long sum() {
        return sum;
    }
}
