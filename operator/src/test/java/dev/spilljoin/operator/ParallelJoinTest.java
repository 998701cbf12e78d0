package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.CountAndSum;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The join's workers under races, cancellation, failure and a foreign close: a spilling full outer join repeated with
 * yields injected into its sink and oversubscribed workers (each result checked by count and checksum); cancellation
 * in the build, the probe, the FINISH scan and the spilled pairs, and by an interrupt of the caller's thread; a failure on one worker
 * (an extra condition that throws); close from another thread while workers run. After each: no spill file, no byte reserved, no worker thread alive.
 */
class ParallelJoinTest {
    private static final long MB = 1L << 20;

    @TempDir
    Path spillRoot;

    /** Keys 0..n-1 in a permuted order, payload i. */
    private static BatchSource keys(long rows, long step) {
        return new GeneratedSource(rows) {
            @Override
            protected long key(long i) {
                return (i * step) % rows;
            }

            @Override
            protected long payload(long i) {
                return i;
            }
        };
    }

    /** Names of live threads that are join workers, running a pass or kept for the next. */
    static List<String> liveWorkerThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("spilljoin-build-") || n.startsWith("spilljoin-probe-")
                        || n.startsWith("spilljoin-finish-") || n.startsWith("spilljoin-pairs-")
                        || n.startsWith("spilljoin-table-") || n.startsWith("spilljoin-helper-"))
                .collect(Collectors.toList());
    }

    private JoinSpec.Builder spec(JoinType type, int threads, MemoryReservation root, Side build, boolean spill) {
        return JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k").joinType(type)
                .reservation(root).config(JoinConfig.builder().threads(threads).rowsPerWorker(0)
                        .spillDirectory(spillRoot).buildSide(build).forceSpill(spill).fanoutLog2(4)
                        .outputBatchRows(64).build());
    }

    private void assertNothingLeft(MemoryReservation root) throws IOException {
        assertThat(root.reserved()).as("bytes reserved after close").isZero();
        try (var files = Files.list(spillRoot)) {
            assertThat(files).as("spill root after close").isEmpty();
        }
        assertThat(liveWorkerThreads()).as("worker threads alive after close").isEmpty();
    }

    @Test
    void aSpillingFullOuterJoinRepeatedWithYieldsIsAlwaysRight() throws IOException {
        long seed = Seeds.logged("ParallelJoinTest race");
        SplittableRandom random = new SplittableRandom(seed);
        int rows = 20_000;
        for (int round = 0; round < Integer.getInteger("rounds", 50); round++) {
            int yieldEvery = 1 + random.nextInt(4);
            int threads = 2 + random.nextInt(3);
            boolean spill = round % 2 == 0;
            Side build = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            try (MemoryReservation root = MemoryReservation.root("race", 4 * MB)) {
                AtomicInteger batches = new AtomicInteger();
                long[] countAndSum = new long[2];
                JoinSpec spec = spec(JoinType.FULL_OUTER, threads, root, build, spill).build();
                try (HashJoin join = HashJoin.create(spec)) {
                    // left keys 0..rows-1, right keys 0..rows/2 step 2 (every other left key unmatched, half the
                    // right rows' keys repeated, so both sides pad)
                    join.run(keys(rows, 7), keys(rows / 2, 3), b -> {
                        if (batches.incrementAndGet() % yieldEvery == 0) {
                            Thread.yield();
                        }
                        for (int i = 0; i < b.rowCount(); i++) {
                            countAndSum[0]++;
                            countAndSum[1] += (b.column(0).isNull(i) ? 0 : b.column(0).getLong(i) + 1)
                                    + (b.column(2).isNull(i) ? 0 : 3 * b.column(2).getLong(i) + 1);
                        }
                    });
                    JoinStats stats = join.stats();
                    assertThat(stats.partitions() > 0).as("round %d spilled", round).isEqualTo(spill);
                    assertThat(stats.threadsUsed()).as("round %d workers", round).isGreaterThan(1);
                    assertThat(liveWorkerThreads()).as("round %d: workers alive once the last result is out, before "
                            + "close", round).isEmpty();
                }
                assertThat(countAndSum).as("round %d (threads %d, build %s, spilled %s, yield every %d): rows and "
                        + "checksum", round, threads, build, spill, yieldEvery)
                        .containsExactly(rows, fullOuterChecksum(rows));
                assertNothingLeft(root);
            }
        }
    }

    /**
     * A pass over an input whose size hint is small runs one worker per {@link JoinConfig#rowsPerWorker} of its rows
     * (at least one) instead of the join's threads: a build of 10,000 rows on one, a probe of 100,000 on two of four;
     * a probe of 300,000 on all four, as every pass does with {@code rowsPerWorker} 0. Each join's result is checked.
     */
    @Test
    void passesOverInputsExpectedSmallRunOneWorkerPerRowsPerWorkerRows() {
        long[][] cases = { // build rows, probe rows, rows per worker, expected build and probe workers
            {10_000, 100_000, JoinConfig.DEFAULT_ROWS_PER_WORKER, 1, 2},
            {10_000, 300_000, JoinConfig.DEFAULT_ROWS_PER_WORKER, 1, 4},
            {200_000, 50_000, JoinConfig.DEFAULT_ROWS_PER_WORKER, 4, 1},
            {10_000, 100_000, 0, 4, 4},
        };
        for (long[] c : cases) {
            try (MemoryReservation root = MemoryReservation.root("workers", 256 * MB)) {
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .reservation(root).config(JoinConfig.builder().threads(4).rowsPerWorker(c[2])
                                .buildSide(Side.LEFT).spillDirectory(spillRoot).build()).build();
                CountAndSum result = new CountAndSum();
                try (HashJoin join = HashJoin.create(spec)) {
                    join.run(keys(c[0], 7), keys(c[1], 7), result);
                    JoinStats stats = join.stats();
                    assertThat(new long[] {stats.buildThreads(), stats.probeThreads()})
                            .as("%d x %d rows at %d rows per worker: build and probe workers", c[0], c[1], c[2])
                            .containsExactly(c[3], c[4]);
                }
                assertThat(result.count()).as("%d x %d rows", c[0], c[1]).isEqualTo(c[1] < c[0] ? c[1] : c[0]);
            }
        }
        assertThatThrownBy(() -> JoinConfig.builder().rowsPerWorker(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowsPerWorker must be 0");
    }

    /**
     * The checksum of the full outer join of {@code keys(rows, 7)} with {@code keys(rows / 2, 3)}, as the race test
     * sums it: every left key k < rows/2 matches exactly one right row (key k); the others are padded.
     */
    private static long fullOuterChecksum(long rows) {
        long sum = 0;
        for (long k = 0; k < rows; k++) {
            sum += k + 1 + (k < rows / 2 ? 3 * k + 1 : 0);
        }
        return sum;
    }

    /**
     * Sources that hand out concurrent readers and a thread-safe sink ({@code run}): every worker reads both sides for
     * itself and calls the sink with its own result batches, in memory and spilled (where the pairs' workers call it
     * too). Asserted from the threads that read each side and called the sink, and the full outer join's checksum.
     * The test's thread is held at its first read of each side and its first sink call until a join worker thread
     * came by ({@link HelperGate}), so that a helper takes part however the threads are scheduled.
     */
    @Test
    void workersReadConcurrentSourcesAndCallAThreadSafeSinkThemselves() throws IOException {
        int rows = 200_000;
        List<Batch> left = materialized(keys(rows, 7));
        List<Batch> right = materialized(keys(rows / 2, 3));
        for (boolean spill : new boolean[] {false, true}) {
            try (MemoryReservation root = MemoryReservation.root("concurrent sources", 32 * MB)) {
                Set<String> leftReaders = ConcurrentHashMap.newKeySet();
                Set<String> rightReaders = ConcurrentHashMap.newKeySet();
                Set<String> sinkThreads = ConcurrentHashMap.newKeySet();
                LongAdder count = new LongAdder();
                LongAdder sum = new LongAdder();
                HelperGate sinkGate = HelperGate.ofPhase(spill ? "spilljoin-pairs-" : "spilljoin-probe-");
                JoinSpec spec = spec(JoinType.FULL_OUTER, 2, root, Side.RIGHT, spill).build();
                try (HashJoin join = HashJoin.create(spec)) {
                    join.run(recordingReaders(BatchSources.concurrent(left), leftReaders),
                            recordingReaders(BatchSources.concurrent(right), rightReaders),
                            new BatchSink() {
                                @Override
                                public void accept(Batch b) {
                                    sinkThreads.add(Thread.currentThread().getName());
                                    sinkGate.pass();
                                    long s = 0;
                                    for (int i = 0; i < b.rowCount(); i++) {
                                        s += (b.column(0).isNull(i) ? 0 : b.column(0).getLong(i) + 1)
                                                + (b.column(2).isNull(i) ? 0 : 3 * b.column(2).getLong(i) + 1);
                                    }
                                    count.add(b.rowCount());
                                    sum.add(s);
                                }

                                @Override
                                public boolean isThreadSafe() {
                                    return true;
                                }
                            });
                    JoinStats stats = join.stats();
                    assertThat(stats.partitions() > 0).as("spilled").isEqualTo(spill);
                    assertThat(stats.outputRows()).as("output rows counted").isEqualTo(rows);
                    // the probe helper spills rows of its batches into buffers of its own (asserted below: it reads)
                    assertThat(stats.spillWorkerBuffers() > 0).as("workers' own spill buffers: " + stats.toJson())
                            .isEqualTo(spill);
                    assertThat(stats.spillWorkerBuffersRefused()).as("refused, with 32 MB").isZero();
                }
                String caller = Thread.currentThread().getName();
                assertThat(rightReaders).as("threads reading the build side (spilled %s)", spill)
                        .contains(caller).anyMatch(n -> n.startsWith("spilljoin-build-"));
                assertThat(leftReaders).as("threads reading the probe side (spilled %s)", spill)
                        .contains(caller).anyMatch(n -> n.startsWith("spilljoin-probe-"));
                assertThat(sinkThreads).as("threads calling the sink (spilled %s)", spill)
                        .contains(caller).anyMatch(n -> n.startsWith(spill ? "spilljoin-pairs-" : "spilljoin-probe-"));
                assertThat(new long[] {count.sum(), sum.sum()}).as("rows and checksum (spilled %s)", spill)
                        .containsExactly(rows, fullOuterChecksum(rows));
                assertNothingLeft(root);
            }
        }
    }

    /**
     * A failure on a helper thread in the code the join calls there since workers read and hand out for themselves: a
     * thread-safe sink that throws on a helper (in memory: a probe helper; spilled: a pairs helper), and a concurrent
     * reader that throws on a build helper. Each is rethrown on the caller's thread, and nothing is left: no byte
     * reserved, no spill file, no worker thread.
     */
    @Test
    void aSinkOrAReaderFailingOnAHelperIsRethrownOnTheCallersThread() throws IOException {
        int rows = 100_000;
        List<Batch> left = materialized(keys(rows, 7));
        List<Batch> right = materialized(keys(rows / 2, 3));
        for (String where : List.of("sink in memory", "sink in the pairs", "build reader")) {
            try (MemoryReservation root = MemoryReservation.root("helper failure", 32 * MB)) {
                boolean spill = where.equals("sink in the pairs");
                String helper = where.startsWith("sink") ? (spill ? "spilljoin-pairs-" : "spilljoin-probe-")
                        : "spilljoin-build-";
                HelperGate sinkGate = HelperGate.ofPhase(helper);
                BatchSink sink = new BatchSink() {
                    @Override
                    public void accept(Batch b) {
                        if (where.startsWith("sink")) {
                            sinkGate.pass();
                            if (Thread.currentThread().getName().startsWith(helper)) {
                                throw new IllegalStateException("sink failed on " + Thread.currentThread().getName());
                            }
                        }
                    }

                    @Override
                    public boolean isThreadSafe() {
                        return true;
                    }
                };
                BatchSource build = where.equals("build reader")
                        ? failingOnThread(BatchSources.concurrent(right), helper)
                        : BatchSources.concurrent(right);
                JoinSpec spec = spec(JoinType.FULL_OUTER, 2, root, Side.RIGHT, spill).build();
                HashJoin join = HashJoin.create(spec);
                assertThatThrownBy(() -> join.run(BatchSources.concurrent(left), build, sink)).as(where)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("failed on " + helper);
                join.close();
                assertNothingLeft(root);
            }
        }
    }

    /** Copies of every batch of {@code source}. */
    private static List<Batch> materialized(BatchSource source) {
        List<Batch> batches = new ArrayList<>();
        for (Batch b = source.next(); b != null; b = source.next()) {
            Batch copy = new Batch(b.schema(), b.rowCount());
            copy.copyFrom(b);
            batches.add(copy);
        }
        return batches;
    }

    /**
     * Holds the test's thread at its first pass until a join worker thread passed (up to 10 s; after that it fails),
     * and lets every later pass through: a helper thread then takes part however the threads are scheduled (the
     * caller could otherwise read every batch, or hand out every result, before a helper started). A gate of one
     * phase's helpers ({@link #ofPhase}) opens only for them, and holds the test's thread only while that phase's
     * helpers run: the sink of a spilling join is called in the probe pass too, by the probe's helpers, and a gate
     * they opened let the caller join every spilled pair before a pairs helper took one.
     */
    private static final class HelperGate {
        private final CountDownLatch helperPassed = new CountDownLatch(1);
        /** The names of the helpers that open the gate start so. */
        private final String helperPrefix;
        /** Whether the test's thread waits only while a thread named so runs (a phase's helpers), or always. */
        private final boolean onlyWhileRunning;

        /** A gate any join worker thread opens. */
        HelperGate() {
            this("spilljoin-", false);
        }

        private HelperGate(String helperPrefix, boolean onlyWhileRunning) {
            this.helperPrefix = helperPrefix;
            this.onlyWhileRunning = onlyWhileRunning;
        }

        /** A gate the helpers named {@code helperPrefix}... open, holding the test's thread only in their phase. */
        static HelperGate ofPhase(String helperPrefix) {
            return new HelperGate(helperPrefix, true);
        }

        void pass() {
            String name = Thread.currentThread().getName();
            if (name.startsWith("spilljoin-")) {
                if (name.startsWith(helperPrefix)) {
                    helperPassed.countDown();
                }
                return;
            }
            if (onlyWhileRunning && (helperPassed.getCount() == 0 || !running(helperPrefix))) {
                return;
            }
            try {
                assertThat(helperPassed.await(10, TimeUnit.SECONDS)).as("a join worker thread came by").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for a join worker thread", e);
            }
        }

        private static boolean running(String prefix) {
            return Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.isAlive() && t.getName().startsWith(prefix));
        }
    }

    /**
     * {@code source} and the readers it hands out, each read first passing {@code gate}, then running
     * {@code beforeRead} (which may record the thread, or throw).
     */
    private static BatchSource watched(BatchSource source, HelperGate gate, Runnable beforeRead) {
        return new BatchSource() {
            @Override
            public Batch next() {
                gate.pass();
                beforeRead.run();
                return source.next();
            }

            @Override
            public long sizeHintBytes() {
                return source.sizeHintBytes();
            }

            @Override
            public BatchSource concurrentReader() {
                BatchSource reader = source.concurrentReader();
                return reader == null ? null : watched(reader, gate, beforeRead);
            }
        };
    }

    /** {@code source}, recording in {@code threads} the name of every thread that read a batch from it or its readers. */
    private static BatchSource recordingReaders(BatchSource source, Set<String> threads) {
        return watched(source, new HelperGate(), () -> threads.add(Thread.currentThread().getName()));
    }

    /** {@code source}, whose readers throw when read on a thread whose name starts with {@code threadPrefix}. */
    private static BatchSource failingOnThread(BatchSource source, String threadPrefix) {
        return watched(source, new HelperGate(), () -> {
            if (Thread.currentThread().getName().startsWith(threadPrefix)) {
                throw new IllegalStateException("reader failed on " + Thread.currentThread().getName());
            }
        });
    }

    @Test
    void cancellingMidBuildMidProbeMidFinishAndMidPairsLeavesNothing() throws IOException {
        for (String where : List.of("build", "probe", "finish", "pairs", "interrupt")) {
            try (MemoryReservation root = MemoryReservation.root("cancel", 8 * MB)) {
                AtomicReference<HashJoin> joinRef = new AtomicReference<>();
                cancelledAt.set(0);
                boolean finish = where.equals("finish");
                // mid-finish: a right outer join in memory whose probe keys never match, so every result batch comes
                // from the FINISH scan of the resident table's unmatched rows
                JoinSpec spec = finish ? spec(JoinType.RIGHT_OUTER, 2, root, Side.RIGHT, false).build()
                        : spec(JoinType.INNER, 2, root, Side.RIGHT, true).build();
                HashJoin join = HashJoin.create(spec);
                joinRef.set(join);
                BatchSource build = cancelAfter(keys(finish ? 50_000 : 200_000, 7), where.equals("build") ? 3 : -1,
                        joinRef);
                BatchSource probe = finish ? GeneratedSource.of(1_000, i -> -1 - i, i -> i)
                        : cancelAfter(keys(200_000, 3), where.equals("probe") ? 3 : -1, joinRef);
                Iterator<Batch> results = join.iterator(probe, build);
                assertThatThrownBy(() -> {
                    int seen = 0;
                    while (results.hasNext()) {
                        results.next();
                        if ((where.equals("pairs") || finish) && ++seen == 2) {
                            cancelledAt.set(System.nanoTime());
                            join.cancel(); // pairs: every partition spilled, every result comes from the pairs
                        }
                        if (where.equals("interrupt") && ++seen == 2) {
                            cancelledAt.set(System.nanoTime());
                            Thread.currentThread().interrupt(); // the caller's own thread, mid-pairs
                        }
                    }
                }).as("cancelled %s", where).isInstanceOf(CancellationException.class);
                Thread.interrupted(); // clear the flag the interrupt case set
                System.out.printf("cancelled mid-%s: the call threw %d µs after cancel()%n", where,
                        TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - cancelledAt.get()));
                join.close();
                if (finish) {
                    assertThat(join.stats().finishThreads()).as("the FINISH scan ran on both workers").isEqualTo(2);
                }
                assertNothingLeft(root);
            }
        }
    }

    /** When the cancelling test last called cancel(). */
    private static final AtomicLong cancelledAt = new AtomicLong();

    private static BatchSource cancelAfter(BatchSource source, int batches, AtomicReference<HashJoin> join) {
        return new BatchSource() {
            private int served;

            @Override
            public Batch next() {
                if (++served == batches) {
                    cancelledAt.set(System.nanoTime());
                    join.get().cancel();
                }
                return source.next();
            }

            @Override
            public long sizeHintBytes() {
                return source.sizeHintBytes();
            }
        };
    }

    @Test
    void aFailureOnOneWorkerIsRethrownOnTheCallersThread() throws IOException {
        for (boolean spilled : new boolean[] {false, true}) {
            try (MemoryReservation root = MemoryReservation.root("failure", 64 * MB)) {
                AtomicInteger calls = new AtomicInteger();
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .joinType(JoinType.LEFT_OUTER).reservation(root)
                        .condition(List.of(new ColumnRef(Side.LEFT, 1)), (pairs, accepted) -> {
                            if (calls.incrementAndGet() == 5) {
                                throw new IllegalStateException("condition failed on " + Thread.currentThread().getName());
                            }
                        })
                        .config(JoinConfig.builder().threads(2).rowsPerWorker(0).spillDirectory(spillRoot)
                                .buildSide(Side.RIGHT).forceSpill(spilled).fanoutLog2(3).build()).build();
                HashJoin join = HashJoin.create(spec);
                assertThatThrownBy(() -> join.run(keys(100_000, 7), keys(100_000, 3), b -> { }))
                        .as("spilled=%s", spilled)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("condition failed on ");
                join.close();
                assertNothingLeft(root);
            }
        }
    }

    @Test
    void closeFromAnotherThreadWhileWorkersRunIsSafe() throws Exception {
        for (boolean spilled : new boolean[] {false, true}) {
            try (MemoryReservation root = MemoryReservation.root("close", 16 * MB)) {
                JoinSpec spec = spec(JoinType.INNER, 4, root, Side.RIGHT, spilled).config(JoinConfig.builder()
                        .threads(4).rowsPerWorker(0).spillDirectory(spillRoot).buildSide(Side.RIGHT).forceSpill(spilled)
                        .outputBatchRows(16).build()).build();
                HashJoin join = HashJoin.create(spec);
                Iterator<Batch> results = join.iterator(keys(300_000, 7), keys(100_000, 3));
                assertThat(results.hasNext()).isTrue();
                results.next(); // the workers go on filling result batches until their queue is full
                CountDownLatch closed = new CountDownLatch(1);
                Thread closer = new Thread(() -> {
                    join.close();
                    closed.countDown();
                }, "test-closer");
                closer.start();
                assertThat(closed.await(10, TimeUnit.SECONDS)).as("close returned").isTrue();
                assertThatThrownBy(results::hasNext).as("the join is closed")
                        .isInstanceOfAny(IllegalStateException.class, CancellationException.class);
                assertNothingLeft(root);
            }
        }
    }

    @Test
    void theMinimumBudgetGrowsWithTheWorkers() {
        JoinConfig config = JoinConfig.DEFAULT;
        long one = HashJoin.minimumBudget(config, 1);
        long two = HashJoin.minimumBudget(config, 2);
        long four = HashJoin.minimumBudget(config, 4);
        System.out.printf("minimum budget: 1 worker %d, 2 workers %d, 4 workers %d bytes%n", one, two, four);
        assertThat(one).isEqualTo(HashJoin.minimumBudget(config));
        assertThat(two).isGreaterThan(one);
        assertThat(four).isGreaterThan(two);
        assertThat(new long[] {one % 1024, two % 1024, four % 1024}).as("whole kilobytes, sizes a user can give back")
                .containsOnly(0L);
        // about linearly: a pair worker's read windows come from its share, so a worker more never multiplies the
        // minimum (they came from the whole budget: 1.8 MB for 6 workers, then 17.6 MB for 7)
        for (int n = 2; n < 8; n++) {
            long fewer = HashJoin.minimumBudget(config, n);
            long more = HashJoin.minimumBudget(config, n + 1);
            assertThat(more).as("minimum budget for %d workers against %d for %d", n + 1, fewer, n)
                    .isGreaterThan(fewer).isLessThanOrEqualTo(fewer * 3 * (n + 1) / (2L * n));
        }
    }

    /**
     * Each build worker feeds a sketch of its own (the 24 MiB budget holds them, for four workers too), and together
     * they still find the heavy key: the build side (1,200,000 rows) holds key 0 in two rows of three (13.6 MB of
     * rows), too many for any partition, so the sketches (each asked by its own worker every few batches of its own,
     * then all together once one holds a candidate) must route it to the heavy pair; the merged sketch counts every build row and estimates the distinct keys (400,000) within 5 %. The
     * result's count and sum are checked.
     */
    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {2, 4})
    void theWorkersOwnBuildSketchesFindTheHeavyKeyAndMerge(int threads) throws IOException {
        long nBuild = 1_200_000;
        long nProbe = 100_000;
        long hotRows = 0;
        long hotPayloads = 0;
        for (long i = 0; i < nBuild; i++) {
            if (i % 3 != 0 || i == 0) {
                hotRows++;
                hotPayloads += i;
            }
        }
        long count = 0;
        long sum = 0;
        for (long i = 0; i < nProbe; i++) {
            long k = i % 50_000;
            if (k == 0) {
                count += hotRows;
                sum += hotRows * i + hotPayloads;
            } else if (k % 3 == 0) {
                count++;
                sum += i + k;
            }
        }
        try (MemoryReservation root = MemoryReservation.root("sketches", 24 * MB)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(root)
                    .config(JoinConfig.builder().threads(threads).rowsPerWorker(0).spillDirectory(spillRoot)
                            .buildSide(Side.RIGHT).build()).build();
            CountAndSum result = new CountAndSum();
            JoinStats stats;
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(GeneratedSource.of(nProbe, i -> i % 50_000, i -> i),
                        GeneratedSource.of(nBuild, i -> i % 3 != 0 ? 0 : i, i -> i), result);
                stats = join.stats();
            }
            String what = "threads " + threads + ": " + stats.toJson();
            assertThat(result.count()).as(what).isEqualTo(count);
            assertThat(result.sum()).as(what).isEqualTo(sum);
            assertThat(stats.buildThreads()).as(what).isEqualTo(threads);
            assertThat(stats.heavyHitterKeysFromSketch()).as("key 0 found by the workers' sketches: " + what)
                    .isEqualTo(1);
            assertThat(stats.estimates().actualRows()).as("the merged sketch's rows: " + what).isEqualTo(nBuild);
            assertThat((double) stats.estimates().actualDistinctKeys()).as(what)
                    .isCloseTo(nBuild / 3, within(0.05 * nBuild / 3));
            assertThat(stats.peakReservedBytes()).as(what).isLessThanOrEqualTo(24 * MB);
            assertNothingLeft(root);
        }
    }

    /**
     * Two build workers under 256 kB, every partition spilled: each stages a batch's rows (4,096 rows of about 56
     * bytes, more than the memory the spill writers leave) before encoding them, so a worker is refused a page
     * whenever the other holds all free memory in its staging arena. That refusal passes once the other has flushed:
     * the join must go on, not report a row too large for the budget (as the CLI's --threads 2 did on this very
     * input). Five rounds, each checked by count and the sum of the keys.
     */
    @Test
    void aWorkerRefusedAPageWhileAnotherStagesSpilledRowsGoesOn() throws IOException {
        Schema schema = Schema.of(Column.of("id", ColumnType.BIGINT), Column.of("v", ColumnType.VARCHAR));
        int rows = 60_000;
        List<Object[]> table = new ArrayList<>();
        long keySum = 0;
        for (long i = 0; i < rows; i++) {
            table.add(new Object[] {i, "some payload text " + i});
            keySum += i;
        }
        List<Batch> batches = Rows.toBatches(schema, table, 4096);
        JoinConfig config = JoinConfig.builder().threads(2).rowsPerWorker(0).spillDirectory(spillRoot)
                .buildSide(Side.RIGHT).build();
        long budget = 256 * 1024;
        for (int round = 0; round < 5; round++) {
            try (MemoryReservation root = MemoryReservation.root("staging", budget)) {
                JoinSpec spec = JoinSpec.builder(schema, schema).on("id", "id").project(Side.LEFT, "id")
                        .project(Side.RIGHT, "v").reservation(root).config(config).build();
                long[] countAndSum = new long[2];
                JoinStats stats;
                try (HashJoin join = HashJoin.create(spec)) {
                    join.run(BatchSources.of(batches), BatchSources.of(batches), b -> {
                        for (int i = 0; i < b.rowCount(); i++) {
                            countAndSum[0]++;
                            countAndSum[1] += b.column(0).getLong(i);
                        }
                    });
                    stats = join.stats();
                }
                String what = "round " + round + ": " + stats.toJson();
                assertThat(stats.buildThreads()).as(what).isEqualTo(2);
                assertThat(stats.residentPartitions()).as(what).isZero();
                assertThat(countAndSum).as(what).containsExactly(rows, keySum);
                assertThat(stats.peakReservedBytes()).as(what).isLessThanOrEqualTo(budget);
                assertNothingLeft(root);
            }
        }
    }

    /**
     * Result rows far larger than a result batch's byte bound (each batch then holds one row), taken slowly from the
     * iterator: the helper's full batches wait for the caller once the queued ones pass two batches' bytes, and the
     * recycled batches are reused last in, first out, so the rows pass through a few batches only, not through every
     * recycled one in turn (each would keep arrays grown to such a row: with rows of megabytes, hundreds of
     * megabytes of heap). Checked by the distinct batches handed out, and by count and key sum.
     */
    @Test
    void largeResultRowsPassThroughAFewBatchesOnly() throws Exception {
        Schema schema = Schema.of(Column.of("id", ColumnType.BIGINT), Column.of("v", ColumnType.VARCHAR));
        int rows = 400;
        String large = "x".repeat(50_000);
        List<Object[]> table = new ArrayList<>();
        long keySum = 0;
        for (long i = 0; i < rows; i++) {
            table.add(new Object[] {i, large});
            keySum += i;
        }
        List<Batch> batches = Rows.toBatches(schema, table, 4);
        JoinConfig config = JoinConfig.builder().threads(2).rowsPerWorker(0).spillDirectory(spillRoot)
                .buildSide(Side.RIGHT).outputBatchBytes(16 * 1024).build();
        try (MemoryReservation root = MemoryReservation.root("large rows", 256 * MB)) {
            JoinSpec spec = JoinSpec.builder(schema, schema).on("id", "id").reservation(root).config(config).build();
            Set<Batch> handedOut = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            long count = 0;
            long sum = 0;
            try (HashJoin join = HashJoin.create(spec)) {
                Iterator<Batch> results = join.iterator(BatchSources.of(batches), BatchSources.of(batches));
                while (results.hasNext()) {
                    Batch b = results.next();
                    handedOut.add(b);
                    for (int i = 0; i < b.rowCount(); i++) {
                        count++;
                        sum += b.column(0).getLong(i);
                        assertThat(b.column(3).byteLength(i)).isEqualTo(large.length());
                    }
                    Thread.sleep(1); // a slow consumer: the helper gets ahead as far as it may
                }
                assertThat(join.stats().probeThreads()).isEqualTo(2);
            }
            assertThat(count).isEqualTo(rows);
            assertThat(sum).isEqualTo(keySum);
            assertThat(handedOut.size()).as("distinct result batches handed out (16 recycled ones exist)")
                    .isLessThanOrEqualTo(6);
            assertNothingLeft(root);
        }
    }

    /**
     * At the smallest budget of any join, four workers configured: fewer take the spilled pairs, and the probe
     * workers share each spilled partition's one write buffer (no buffer of their own fits) under its lock.
     */
    @Test
    void belowTheMinimumForItsWorkersTheJoinRunsWithFewer() throws IOException {
        JoinConfig config = JoinConfig.builder().threads(4).rowsPerWorker(0).spillDirectory(spillRoot)
                .buildSide(Side.RIGHT).forceSpill(true).build();
        long budget = HashJoin.minimumBudget(config);
        try (MemoryReservation root = MemoryReservation.root("fewer", budget)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .reservation(root).config(config).build();
            long[] rows = new long[1];
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(keys(20_000, 7), keys(10_000, 3), b -> rows[0] += b.rowCount());
                JoinStats stats = join.stats();
                assertThat(stats.threads()).isEqualTo(4);
                assertThat(stats.spilledPairsThreads()).as("pair workers: " + stats.toJson()).isLessThan(4);
                // a partition's writer holds one buffer here: the other spilling workers share it under its lock
                assertThat(stats.probeThreads()).as("probe workers: " + stats.toJson()).isGreaterThan(1);
                assertThat(stats.spillWorkerBuffers()).as("buffers of the workers' own").isZero();
                assertThat(stats.spillWorkerBuffersRefused()).as("workers that shared a writer").isPositive();
                assertThat(stats.peakReservedBytes()).isLessThanOrEqualTo(budget);
            }
            assertThat(rows[0]).as("every right key matches one left row").isEqualTo(10_000);
        }
    }
}
