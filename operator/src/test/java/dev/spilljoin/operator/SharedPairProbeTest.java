package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One spilled pair probed by every worker ({@link SharedProbePass}): every key of both inputs lies in level 0's
 * partition 1 of 2, so the spilled pairs phase gets one pair, and the workers that find no pair to take help probe
 * it, a block of its probe file each. Every join type, with 2 and 4 workers, driven by each {@link JoinRunner.Mode}
 * in turn, on three paths: the pair joined in memory over a hash table (duplicate keys, a VARCHAR payload), over a
 * direct-index table (unique keys), with the roles reversed (a larger build side), and on the nested loop (a pair
 * limit of one byte at maximum depth 1, so the pair's children take it chunk by chunk and the lanes forward their
 * probe rows to files of their own). A test fault point holds the first pair task's own lane after its first block
 * until a helper lane took one, so the sharing is exercised whatever the timing; the stats must show helper blocks
 * ({@link JoinStats#sharedPairBlocks()}). Each result equals the nested-loop oracle as a multiset; after each join
 * nothing is reserved, the peak is within the budget, no spill file and no worker thread is left. At the smallest
 * budget that joins the pair in memory, a worker with only a lane's share helps. And a failure on a helper lane is
 * rethrown with nothing left behind. The seeds are printed; replay with {@code -Dseed=<seed>}.
 */
class SharedPairProbeTest {
    private static final long MB = 1L << 20;
    private static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT),
            Column.of("s", ColumnType.VARCHAR));
    private static final Schema FIXED = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));

    @TempDir
    Path spillRoot;

    /** Waits of a task's own lane for a helper that timed out: none may (a helper must always come). */
    private final AtomicInteger timedOutWaits = new AtomicInteger();

    private enum PairPath { HASH_TABLE, DIRECT_TABLE, REVERSED, NESTED_LOOP }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {2, 4})
    void oneSpilledPairIsProbedByEveryWorker(int threads) throws IOException {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("SharedPairProbeTest threads=" + threads + " seed=" + seed + " (replay with -Dseed=" + seed
                + ")");
        SplittableRandom random = new SplittableRandom(seed);
        int modes = 0;
        for (PairPath path : PairPath.values()) {
            for (JoinType type : JoinType.values()) {
                JoinRunner.Mode mode = JoinRunner.Mode.values()[modes++ % JoinRunner.Mode.values().length];
                long caseSeed = random.nextLong();
                check(path, type, threads, mode, new SplittableRandom(caseSeed), "seed=" + seed + " caseSeed="
                        + caseSeed + " " + path + " " + type + " threads=" + threads + " mode=" + mode);
            }
        }
    }

    private void check(PairPath path, JoinType type, int threads, JoinRunner.Mode mode, SplittableRandom r,
                       String where) throws IOException {
        boolean direct = path == PairPath.DIRECT_TABLE;
        Schema schema = direct ? FIXED : SCHEMA;
        // the build side is the right; reversed, it is the larger, so the pair loads the probe rows instead
        int buildRows = path == PairPath.REVERSED ? 4000 : 1500;
        int probeRows = path == PairPath.REVERSED ? 1500 : 4000;
        List<Object[]> build = rows(r, schema, buildRows, direct);
        List<Object[]> probe = rows(r, schema, probeRows, false);
        List<ColumnRef> projection = new ArrayList<>();
        for (Side side : Side.values()) {
            if (type.returnedSideOnly() == null || type.returnedSideOnly() == side) {
                for (int col = 0; col < schema.size(); col++) {
                    projection.add(new ColumnRef(side, col));
                }
            }
        }
        int[] key = {0};
        List<Object[]> expected = NestedLoopOracle.join(probe, build, key, key, type, projection);
        JoinConfig.Builder config = JoinConfig.builder().threads(threads).rowsPerWorker(0).buildSide(Side.RIGHT)
                .spillDirectory(spillRoot).forceSpill(true).fanoutLog2(1).spillBufferBytes(512)
                .spillWindowBytes(4096).pageSize(4096).outputBatchRows(4096);
        config.roleReversal(path == PairPath.REVERSED);
        if (path == PairPath.NESTED_LOOP) {
            config.pairMemoryLimit(1).maxRecursionDepth(1);
        }
        long budget = 8 * MB;
        Function<JoinSpec, HashJoin> create = holdingTheFirstOwnLaneUntilAHelperJoins();
        try (MemoryReservation root = MemoryReservation.root("shared pair", budget)) {
            JoinSpec spec = JoinSpec.builder(schema, schema).on(0, 0).joinType(type).projection(projection)
                    .reservation(root).config(config.build()).build();
            JoinRunner.Result result = JoinRunner.run(spec, create, Rows.toBatches(schema, probe, 1 + r.nextInt(300)),
                    Rows.toBatches(schema, build, 1 + r.nextInt(300)), mode, root);
            JoinStats stats = result.stats();
            String what = where + " stats=" + stats.toJson();
            assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
            assertThat(stats.peakReservedBytes()).as(what).isLessThanOrEqualTo(budget);
            assertThat(stats.spilledPairsThreads()).as("every worker, helping where it has no pair: " + what)
                    .isEqualTo(threads);
            assertThat(stats.sharedPairBlocks()).as("blocks probed by helper lanes: " + what).isPositive();
            assertThat(timedOutWaits.get()).as("own lanes that waited 10 s for a helper in vain: " + what).isZero();
            switch (path) {
                case HASH_TABLE -> assertThat(stats.hashTables()).as(what).isPositive();
                case DIRECT_TABLE -> assertThat(stats.directTables()).as(what).isPositive();
                case REVERSED -> assertThat(stats.roleReversals()).as(what).isPositive();
                case NESTED_LOOP -> assertThat(stats.nestedLoopChunks()).as(what).isGreaterThan(1);
            }
        }
        assertNothingLeft(where);
    }

    /**
     * At the smallest budget that joins the pair in memory (budgets tried upwards by a quarter from the minimum for two
     * workers, until the pair is neither re-partitioned nor on the nested loop), the pair needs more than half of the
     * memory, so one worker takes pairs; the second still runs, with a lane's share, and helps probe the pair.
     */
    @Test
    void aBudgetThatHoldsOnePairAtATimeStillProbesItOnBothWorkers() throws IOException {
        long seed = Seeds.logged("SharedPairProbeTest smallest budget");
        SplittableRandom r = new SplittableRandom(seed);
        List<Object[]> build = rows(r, SCHEMA, 6000, false);
        List<Object[]> probe = rows(r, SCHEMA, 12000, false);
        int[] key = {0};
        List<ColumnRef> projection = List.of(new ColumnRef(Side.LEFT, 1), new ColumnRef(Side.RIGHT, 2));
        List<Object[]> expected = NestedLoopOracle.join(probe, build, key, key, JoinType.INNER, projection);
        JoinConfig config = JoinConfig.builder().threads(2).rowsPerWorker(0).buildSide(Side.RIGHT)
                .spillDirectory(spillRoot)
                .forceSpill(true).fanoutLog2(1).spillBufferBytes(512).spillWindowBytes(4096).roleReversal(false)
                .build();
        long budget = HashJoin.minimumBudget(config, 2);
        for (int attempt = 0; attempt < 30; attempt++, budget += budget / 4) {
            // A smaller budget's owners may wait in vain (a worker's memory too full for a lane): not this one's.
            timedOutWaits.set(0);
            Function<JoinSpec, HashJoin> create = holdingTheFirstOwnLaneUntilAHelperJoins();
            JoinStats stats;
            try (MemoryReservation root = MemoryReservation.root("smallest budget", budget)) {
                JoinSpec spec = JoinSpec.builder(SCHEMA, SCHEMA).on(0, 0).projection(projection).reservation(root)
                        .config(config).build();
                JoinRunner.Result result = JoinRunner.run(spec, create, Rows.toBatches(SCHEMA, probe, 256),
                        Rows.toBatches(SCHEMA, build, 256), JoinRunner.Mode.ITERATOR, root);
                stats = result.stats();
                String what = "seed=" + seed + " budget=" + budget + " stats=" + stats.toJson();
                assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
                assertThat(stats.peakReservedBytes()).as(what).isLessThanOrEqualTo(budget);
                if (stats.maxRecursionDepth() == 0 && stats.nestedLoopChunks() == 0) {
                    assertThat(stats.spilledPairsThreads()).as("a pair-taking worker and a helping one: " + what)
                            .isEqualTo(2);
                    assertThat(stats.sharedPairBlocks()).as(what).isPositive();
                    assertThat(timedOutWaits.get()).as(what).isZero();
                    assertNothingLeft(what);
                    return;
                }
            }
            assertNothingLeft("budget " + budget);
        }
        throw new AssertionError("no budget up to " + budget + " joined the pair in memory (seed " + seed + ")");
    }

    /**
     * A failure on a helper lane (the fault point throws there) is rethrown on the caller's thread; the pair's table
     * is freed only after every worker stopped, and nothing is left.
     */
    @Test
    void aFailureOnAHelperLaneIsRethrownAndLeavesNothing() throws IOException {
        SplittableRandom r = new SplittableRandom(7);
        List<Object[]> build = rows(r, SCHEMA, 1500, false);
        List<Object[]> probe = rows(r, SCHEMA, 4000, false);
        AtomicBoolean firstOwnBlock = new AtomicBoolean(true);
        CountDownLatch helperTookABlock = new CountDownLatch(1);
        Function<JoinSpec, HashJoin> create = spec -> HashJoin.create(spec, new JoinFaults() {
            @Override
            public void pairProbeBlockTaken(boolean helperLane) {
                if (helperLane) {
                    helperTookABlock.countDown();
                    throw new IllegalStateException("injected helper-lane failure");
                } else if (firstOwnBlock.getAndSet(false)) {
                    awaitQuietly(helperTookABlock);
                }
            }
        });
        try (MemoryReservation root = MemoryReservation.root("failing helper", 8 * MB)) {
            JoinSpec spec = JoinSpec.builder(SCHEMA, SCHEMA).on(0, 0).joinType(JoinType.FULL_OUTER).reservation(root)
                    .config(JoinConfig.builder().threads(2).rowsPerWorker(0).buildSide(Side.RIGHT)
                            .spillDirectory(spillRoot)
                            .forceSpill(true).fanoutLog2(1).spillBufferBytes(512).spillWindowBytes(4096).build())
                    .build();
            assertThatThrownBy(() -> JoinRunner.run(spec, create, Rows.toBatches(SCHEMA, probe, 100),
                    Rows.toBatches(SCHEMA, build, 100), JoinRunner.Mode.ITERATOR, root))
                    .hasStackTraceContaining("injected helper-lane failure");
            assertThat(root.reserved()).as("bytes reserved after the failure").isZero();
        }
        assertNothingLeft("after a helper lane failed");
    }

    /**
     * Joins whose first pair task's own lane, after its first block, waits until a helper lane took a block (10 s at
     * most; a wait in vain is counted in {@link #timedOutWaits}), so that sharing happens whatever the timing.
     */
    private Function<JoinSpec, HashJoin> holdingTheFirstOwnLaneUntilAHelperJoins() {
        CountDownLatch helperTookABlock = new CountDownLatch(1);
        AtomicBoolean firstOwnBlock = new AtomicBoolean(true);
        return spec -> HashJoin.create(spec, new JoinFaults() {
            @Override
            public void pairProbeBlockTaken(boolean helperLane) {
                if (helperLane) {
                    helperTookABlock.countDown();
                } else if (firstOwnBlock.getAndSet(false)) {
                    awaitQuietly(helperTookABlock);
                }
            }
        });
    }

    /** Waits for {@code latch}; counts a wait that timed out in {@link #timedOutWaits}. */
    private void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                timedOutWaits.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void assertNothingLeft(String where) throws IOException {
        try (var files = Files.list(spillRoot)) {
            assertThat(files).as("spill root after %s", where).isEmpty();
        }
        assertThat(ParallelJoinTest.liveWorkerThreads()).as("worker threads alive after %s", where).isEmpty();
    }

    /**
     * {@code count} rows whose keys all lie in level 0's partition 1 of 2: unique keys (a direct-index table), or
     * about two rows a key over twice as many keys as rows with a NULL key now and then; NULL values, and a VARCHAR
     * when the schema has one.
     */
    private static List<Object[]> rows(SplittableRandom r, Schema schema, int count, boolean unique) {
        long[] keys = partitionOneKeys(4L * count);
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Long key = !unique && r.nextInt(40) == 0 ? null
                    : unique ? keys[i] : keys[r.nextInt(Math.min(keys.length, count))];
            Long value = r.nextInt(9) == 0 ? null : r.nextLong();
            out.add(schema.size() == 2 ? new Object[] {key, value} : new Object[] {key, value, "s" + r.nextInt(50)});
        }
        Collections.shuffle(out, new Random(r.nextLong()));
        return out;
    }

    /** The keys among 0..{@code range}-1 that level 0 puts in partition 1 when it splits in two. */
    private static long[] partitionOneKeys(long range) {
        Schema keyOnly = Schema.of(Column.of("k", ColumnType.BIGINT));
        List<Object[]> candidates = new ArrayList<>();
        for (long k = 0; k < range; k++) {
            candidates.add(new Object[] {k});
        }
        Batch batch = Rows.toBatches(keyOnly, candidates, (int) range).get(0);
        long[] hashes = new long[(int) range];
        long[] nullKeys = new long[(int) ((range + 63) >>> 6)];
        new KeyHasher(new int[] {0}).hash(batch, hashes, nullKeys);
        return java.util.stream.LongStream.range(0, range)
                .filter(k -> HashFunctions.partitionOf(hashes[(int) k], 0, 1) == 1).toArray();
    }
}
