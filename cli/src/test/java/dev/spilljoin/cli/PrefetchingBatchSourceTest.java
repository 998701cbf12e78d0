package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The read-ahead read by three workers at once (a reader and two {@linkplain BatchSource#concurrentReader()
 * concurrent readers} it hands out, as the join's workers read it): every batch goes to exactly one reader, marked with its number
 * in the file; the position of a held batch's row is found by that mark until its reader moves on; and a failure of
 * the reading thread reaches every reader, none of which waits forever.
 */
class PrefetchingBatchSourceTest {
    private static final Schema SCHEMA = Schema.of(Column.of("id", ColumnType.BIGINT));
    private static final int ROWS = 100;

    /**
     * {@code batches} batches of {@value #ROWS} rows (ids 0, 1, …), row i at position 10 i; fails at batch
     * {@code failAt} (-1: never).
     */
    private static final class CountingFile implements InputBatches {
        private final int batches;
        private final int failAt;
        private int read;

        CountingFile(int batches, int failAt) {
            this.batches = batches;
            this.failAt = failAt;
        }

        @Override
        public boolean readInto(Batch target, long[] positions) {
            if (read == failAt) {
                throw new InputException("malformed row in batch " + read);
            }
            if (read == batches) {
                return false;
            }
            target.reset();
            for (int r = 0; r < ROWS; r++) {
                long id = (long) read * ROWS + r;
                target.column(0).setLong(r, id);
                positions[r] = 10 * id;
            }
            target.setRowCount(ROWS);
            read++;
            return true;
        }

        @Override
        public Batch next() {
            throw new UnsupportedOperationException("read ahead only");
        }

        @Override
        public long positionOf(int row) {
            throw new UnsupportedOperationException("read ahead only");
        }

        @Override
        public String where(long position) {
            return "position " + position;
        }

        @Override
        public int batchRows() {
            return ROWS;
        }

        @Override
        public Schema schema() {
            return SCHEMA;
        }

        @Override
        public Side side() {
            return Side.LEFT;
        }

        @Override
        public long rowsRead() {
            return (long) read * ROWS;
        }

        @Override
        public long rowsSkipped() {
            return 0;
        }

        @Override
        public long fileBytes() {
            return -1;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void threeReadersTakeEveryBatchOnceEachMarkedWithItsNumberAndItsRowsFoundByIt() throws Exception {
        int batches = 500;
        try (PrefetchingBatchSource source = new PrefetchingBatchSource(new CountingFile(batches, -1),
                ProgressLine.DISABLED, 1 << 20)) {
            BatchSource own = source.reader();
            BatchSource[] readers = {own, own.concurrentReader(), own.concurrentReader()};
            BitSet ids = new BitSet();
            BitSet origins = new BitSet();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            // Each reader checks every batch it holds against the source's lookup by its mark, then, once all three
            // hold one, the source finds each held batch's rows while the readers wait.
            CyclicBarrier held = new CyclicBarrier(4);
            CyclicBarrier looked = new CyclicBarrier(4);
            long[] heldOrigins = new long[readers.length];
            for (int w = 0; w < readers.length; w++) {
                int worker = w;
                threads.add(new Thread(() -> {
                    try {
                        int taken = 0;
                        for (Batch b = readers[worker].next(); b != null; b = readers[worker].next()) {
                            long first = b.column(0).getLong(0);
                            assertThat(b.origin()).isEqualTo(first / ROWS);
                            assertThat(source.positionOf(b.origin(), ROWS - 1)).isEqualTo(10 * (first + ROWS - 1));
                            synchronized (ids) {
                                for (int r = 0; r < b.rowCount(); r++) {
                                    assertThat(ids.get((int) b.column(0).getLong(r))).isFalse();
                                    ids.set((int) b.column(0).getLong(r));
                                }
                                assertThat(origins.get((int) b.origin())).isFalse();
                                origins.set((int) b.origin());
                            }
                            if (++taken == 3) {
                                heldOrigins[worker] = b.origin();
                                held.await(1, TimeUnit.MINUTES);
                                looked.await(1, TimeUnit.MINUTES);
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                        held.reset();
                        looked.reset();
                    }
                }, "test-reader-" + w));
            }
            threads.forEach(Thread::start);
            awaitOrReport(held, threads, failures);
            for (long origin : heldOrigins) {
                assertThat(source.positionOf(origin, 7)).isEqualTo(10 * (origin * ROWS + 7));
            }
            awaitOrReport(looked, threads, failures);
            joinAll(threads);
            assertThat(failures).isEmpty();
            assertThat(ids.cardinality()).isEqualTo(batches * ROWS);
            assertThat(ids.nextClearBit(0)).isEqualTo(batches * ROWS);
            assertThat(origins.cardinality()).isEqualTo(batches);
            for (long origin : heldOrigins) {
                assertThat(source.positionOf(origin, 7)).as("batch %d, released", origin).isEqualTo(-1);
            }
        }
    }

    @Test
    void aFailureOfTheReadingThreadReachesEveryReader() throws Exception {
        try (PrefetchingBatchSource source = new PrefetchingBatchSource(new CountingFile(100, 40),
                ProgressLine.DISABLED, 1 << 20)) {
            BatchSource own = source.reader();
            BatchSource[] readers = {own, own.concurrentReader(), own.concurrentReader()};
            Throwable[] thrown = new Throwable[readers.length];
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < readers.length; w++) {
                int worker = w;
                threads.add(new Thread(() -> thrown[worker] = catchThrowable(() -> {
                    while (readers[worker].next() != null) {
                        Thread.yield();
                    }
                }), "test-reader-" + w));
            }
            threads.forEach(Thread::start);
            joinAll(threads);
            for (Throwable t : thrown) {
                assertThat(t).isInstanceOf(InputException.class).hasMessage("malformed row in batch 40");
            }
        }
    }

    /** Waits at {@code barrier}; if a reader broke it, reports that reader's failure instead. */
    private static void awaitOrReport(CyclicBarrier barrier, List<Thread> threads, List<Throwable> failures)
            throws Exception {
        try {
            barrier.await(1, TimeUnit.MINUTES);
        } catch (BrokenBarrierException e) {
            joinAll(threads);
            assertThat(failures).isEmpty();
            throw e;
        }
    }

    private static void joinAll(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(1));
            assertThat(t.isAlive()).as("%s still waiting", t.getName()).isFalse();
        }
    }
}
