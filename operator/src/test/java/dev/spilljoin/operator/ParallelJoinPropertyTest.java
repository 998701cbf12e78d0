package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.RandomJoinInputs;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The join with 1, 2 and 4 workers ({@link JoinConfig#threads()}) against the nested-loop oracle, as a multiset: every
 * join type, both build sides, every way to drive it (sink, iterator, push from one thread, push from as many threads
 * as workers into an unsafe and into a thread-safe sink), on four paths, each asserted from the stats where certain:
 * <ul>
 *   <li>in memory: nothing spills; the build and the probe pass run with every worker;</li>
 *   <li>spilled at the minimum budget for the workers ({@link HashJoin#minimumBudget(JoinConfig, int)}, every
 *       partition forced out): the probe pass and the spilled pairs run with every worker;</li>
 *   <li>re-partitioned: a pair limit of one byte over wide key domains makes pairs split down to depth 2 or more
 *       (some joins must show it);</li>
 *   <li>heavy keys: the same at maximum depth 1 over small key domains sends pairs to the nested loop.</li>
 * </ul>
 * Inputs of up to 1,500 rows a side in batches of 1 to 100 rows, so that several workers take batches. After every
 * join: zero bytes reserved, peak within the budget (both from {@link JoinRunner}), the spill root empty and no worker
 * thread alive. The seed is printed; replay with {@code -Dseed=<seed>} (and {@code -Dcases=<n>}).
 */
class ParallelJoinPropertyTest {
    private static final int[] BATCH_SIZES = {1, 7, 50, 100};

    @TempDir
    Path spillRoot;

    private enum JoinPath { IN_MEMORY, SPILLED_AT_MINIMUM, REPARTITIONED, HEAVY_KEYS }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void inMemoryMatchesTheOracle(int threads) throws IOException {
        run(JoinPath.IN_MEMORY, threads);
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void spilledAtTheMinimumBudgetMatchesTheOracle(int threads) throws IOException {
        long[] totals = run(JoinPath.SPILLED_AT_MINIMUM, threads);
        assertThat(totals[0]).as("joins whose spilled pairs ran on every worker").isPositive();
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void repartitionedMatchesTheOracle(int threads) throws IOException {
        long[] totals = run(JoinPath.REPARTITIONED, threads);
        assertThat(totals[1]).as("joins that re-partitioned to depth 2 or more").isPositive();
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void heavyKeyPairsMatchTheOracle(int threads) throws IOException {
        long[] totals = run(JoinPath.HEAVY_KEYS, threads);
        assertThat(totals[2]).as("joins with rows on the nested-loop path").isPositive();
    }

    /** Returns {joins whose pairs ran on every worker, joins at depth ≥ 2, joins with nested-loop rows}. */
    private long[] run(JoinPath path, int threads) throws IOException {
        long seed = Long.getLong("seed", System.nanoTime());
        int cases = Integer.getInteger("cases", 3);
        System.out.println("ParallelJoinPropertyTest " + path + " threads=" + threads + " seed=" + seed + " cases="
                + cases + " (replay with -Dseed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        long[] totals = new long[3];
        for (int c = 0; c < cases; c++) {
            long caseSeed = random.nextLong();
            SplittableRandom r = new SplittableRandom(caseSeed);
            RandomJoinInputs inputs = new RandomJoinInputs(r, 1500,
                    path == JoinPath.HEAVY_KEYS ? 6 : path == JoinPath.REPARTITIONED ? 2000 : 300);
            for (JoinType type : JoinType.values()) {
                if (type == JoinType.NULL_AWARE_LEFT_ANTI && inputs.leftKeys.length != 1) {
                    continue;
                }
                List<ColumnRef> projection = inputs.randomProjection(type);
                for (Side build : Side.values()) {
                    JoinStats stats = checkCase(inputs, type, projection, build, path, threads, r,
                            path + " threads=" + threads + " seed=" + seed + " case=" + c + " caseSeed=" + caseSeed);
                    totals[0] += stats.spilledPairsThreads() == threads ? 1 : 0;
                    totals[1] += stats.maxRecursionDepth() >= 2 ? 1 : 0;
                    totals[2] += stats.heavyHitterRows() > 0 ? 1 : 0;
                }
            }
        }
        return totals;
    }

    private JoinStats checkCase(RandomJoinInputs in, JoinType type, List<ColumnRef> projection, Side build,
                                JoinPath path, int threads, SplittableRandom r, String where) throws IOException {
        List<Batch> left = Rows.toBatches(in.left, in.leftRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        List<Batch> right = Rows.toBatches(in.right, in.rightRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        JoinConfig.Builder builder = JoinConfig.builder().threads(threads).buildSide(build).spillDirectory(spillRoot)
                .outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 5 : 300));
        if (path != JoinPath.IN_MEMORY) {
            builder.pageSize(64 + 8 * r.nextInt(64)).fanoutLog2(1 + r.nextInt(3))
                    .spillBufferBytes(64 + 8 * r.nextInt(57)).spillWindowBytes(4096).forceSpill(true);
        }
        if (path == JoinPath.REPARTITIONED || path == JoinPath.HEAVY_KEYS) {
            builder.pairMemoryLimit(1).maxRecursionDepth(path == JoinPath.REPARTITIONED ? 3 : 1);
        }
        JoinConfig config = builder.build();
        long budget = path == JoinPath.IN_MEMORY ? 64L << 20
                : HashJoin.minimumBudget(config, threads) + (path == JoinPath.SPILLED_AT_MINIMUM ? 0 : 64 * 1024);
        JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(JoinRunner.Mode.values().length)];
        List<Object[]> expected = NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys, type,
                projection);
        JoinStats stats;
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinSpec spec = in.spec(type, projection).reservation(root).config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, left, right, mode, root);
            stats = result.stats();
            String what = String.format("%s: %s build=%s mode=%s config=%s budget=%d left=%s keys=%s right=%s keys=%s "
                            + "stats=%s", where, type, build, mode, config, budget, in.left,
                    Arrays.toString(in.leftKeys), in.right, Arrays.toString(in.rightKeys), stats.toJson());
            assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
            assertThat(stats.threads()).as(what).isEqualTo(threads);
            assertThat(stats.threadsUsed()).as(what).isBetween(1, threads);
            if (path == JoinPath.IN_MEMORY) {
                assertThat(stats.partitions()).as(what).isZero();
                assertThat(stats.buildThreads()).as(what).isEqualTo(threads);
                assertThat(stats.probeThreads()).as(what).isEqualTo(threads);
            } else {
                assertThat(stats.residentPartitions()).as(what).isZero();
                assertThat(stats.probeThreads()).as("probe workers at the minimum budget for them: " + what)
                        .isEqualTo(threads);
            }
            if (path == JoinPath.HEAVY_KEYS) {
                assertThat(stats.maxRecursionDepth()).as(what).isLessThanOrEqualTo(1);
            }
        }
        try (var files = Files.list(spillRoot)) {
            assertThat(files).as("spill root after %s", where).isEmpty();
        }
        assertThat(ParallelJoinTest.liveWorkerThreads()).as("worker threads alive after %s", where).isEmpty();
        return stats;
    }
}
