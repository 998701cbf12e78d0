package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.RandomJoinInputs;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The foundation's property test (random schemas, keys, NULLs, duplicates, every join type in both orientations,
 * all three driving forms) rerun under configurations that force the hybrid join's spilling paths, against the
 * nested-loop oracle: tiny pages, spill buffers of 64–512 bytes, 4 KiB windows, fanouts 2–8, budgets a few KiB over
 * the join's minimum. Each path is asserted from the stats where the inputs make it certain:
 * <ul>
 *   <li>level 0: every partition spilled ({@code forceSpill}) → spilled partitions &gt; 0; pairs whose probe file is
 *       the smaller are joined with the roles reversed (some joins must show it);</li>
 *   <li>recursion: a pair limit of one byte makes every non-empty pair re-partition once (depth 1);</li>
 *   <li>nested loop: the same at maximum depth 1 sends every pair of level 1 with build rows to the nested loop,
 *       in chunks of a few rows (the small key domains make hot keys on both sides);</li>
 *   <li>spill on refusal: inputs of up to 800 rows over wider key domains under a budget just over the minimum,
 *       nothing forced: partitions spill when a page is refused, some stay resident (the hybrid case).</li>
 * </ul>
 * After every join: zero bytes reserved, peak within the budget, and the per-test spill root empty. The seed is
 * printed; replay with {@code -Dseed=<seed>} (and {@code -Dcases=<n>}).
 */
class SpillingHashJoinPropertyTest {
    private static final int[] BATCH_SIZES = {1, 2, 7, 49, 50, 51, 100, 1024};

    @TempDir
    Path spillRoot;

    private enum Path0 { LEVEL_0, RECURSION, NESTED_LOOP, SPILL_ON_REFUSAL }

    @Test
    void level0SpillingMatchesTheOracle() throws IOException {
        long[] totals = run(Path0.LEVEL_0);
        assertThat(totals[0]).as("joins whose stats show spilled partitions").isPositive();
        assertThat(totals[4]).as("joins that reversed the roles of a spilled pair").isPositive();
    }

    @Test
    void recursionMatchesTheOracle() throws IOException {
        long[] totals = run(Path0.RECURSION);
        assertThat(totals[1]).as("joins that re-partitioned a pair").isPositive();
    }

    @Test
    void theNestedLoopPathMatchesTheOracle() throws IOException {
        long[] totals = run(Path0.NESTED_LOOP);
        assertThat(totals[2]).as("joins with rows on the nested-loop path").isPositive();
    }

    @Test
    void spillingWhenTheBudgetRefusesMatchesTheOracle() throws IOException {
        long[] totals = run(Path0.SPILL_ON_REFUSAL);
        assertThat(totals[3]).as("joins that kept some partitions resident and spilled others").isPositive();
    }

    /**
     * Returns {joins with spilled partitions, joins with depth ≥ 1, joins with heavy-hitter rows, joins with both
     * resident and spilled partitions, joins with a role reversal}.
     */
    private long[] run(Path0 path) throws IOException {
        long seed = Long.getLong("seed", System.nanoTime());
        int cases = Integer.getInteger("cases", 25);
        System.out.println("SpillingHashJoinPropertyTest " + path + " seed=" + seed + " cases=" + cases
                + " (replay with -Dseed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        long[] totals = new long[5];
        for (int c = 0; c < cases; c++) {
            long caseSeed = random.nextLong();
            SplittableRandom r = new SplittableRandom(caseSeed);
            RandomJoinInputs inputs = path == Path0.SPILL_ON_REFUSAL ? new RandomJoinInputs(r, 800, 400)
                    : new RandomJoinInputs(r, 60);
            for (JoinType type : JoinType.values()) {
                if (type == JoinType.NULL_AWARE_LEFT_ANTI && inputs.leftKeys.length != 1) {
                    continue;
                }
                List<ColumnRef> projection = inputs.randomProjection(type);
                for (Side build : Side.values()) {
                    JoinStats stats = checkCase(inputs, type, projection, build, path, r,
                            path + " seed=" + seed + " case=" + c + " caseSeed=" + caseSeed);
                    totals[0] += stats.partitions() > 0 ? 1 : 0;
                    totals[1] += stats.maxRecursionDepth() >= 1 ? 1 : 0;
                    totals[2] += stats.heavyHitterRows() > 0 ? 1 : 0;
                    totals[3] += stats.partitions() > 0 && stats.residentPartitions() > 0 ? 1 : 0;
                    totals[4] += stats.roleReversals() > 0 ? 1 : 0;
                }
            }
        }
        return totals;
    }

    private JoinStats checkCase(RandomJoinInputs in, JoinType type, List<ColumnRef> projection, Side build, Path0 path,
                                SplittableRandom r, String where) throws IOException {
        List<Batch> left = Rows.toBatches(in.left, in.leftRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        List<Batch> right = Rows.toBatches(in.right, in.rightRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        JoinConfig config = JoinConfig.builder().pageSize(64 + 8 * r.nextInt(64))
                .outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 5 : 300))
                .outputBatchBytes(r.nextBoolean() ? 1 + r.nextInt(400) : JoinConfig.DEFAULT_OUTPUT_BATCH_BYTES)
                .buildSide(build).spillDirectory(spillRoot)
                .fanoutLog2(1 + r.nextInt(3)).spillBufferBytes(64 + 8 * r.nextInt(57)).spillWindowBytes(4096)
                .forceSpill(path != Path0.SPILL_ON_REFUSAL).build();
        if (path == Path0.RECURSION || path == Path0.NESTED_LOOP) {
            config = config.toBuilder().pairMemoryLimit(1).maxRecursionDepth(path == Path0.RECURSION ? 2 : 1).build();
        }
        long budget = HashJoin.minimumBudget(config)
                + r.nextInt(path == Path0.SPILL_ON_REFUSAL ? 16 * 1024 : 64 * 1024);
        JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(3)];
        List<Object[]> expected = NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys, type,
                projection);
        boolean someKeyMatches = !NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys,
                JoinType.INNER, List.of(new ColumnRef(Side.LEFT, 0))).isEmpty();
        JoinStats stats;
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinSpec spec = in.spec(type, projection).reservation(root).config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, left, right, mode, root);
            String what = String.format("%s: %s build=%s mode=%s config=%s budget=%d left=%s keys=%s right=%s keys=%s "
                            + "stats=%s", where, type, build, mode, config, budget, in.left, Arrays.toString(in.leftKeys),
                    in.right, Arrays.toString(in.rightKeys), result.stats().toJson());
            assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
            stats = result.stats();
            if (path != Path0.SPILL_ON_REFUSAL) {
                assertThat(stats.partitionsPerLevel().get(0)).as(what).isEqualTo(stats.fanout());
                assertThat(stats.residentPartitions()).as(what).isZero();
            }
            if (path == Path0.RECURSION && someKeyMatches) {
                assertThat(stats.maxRecursionDepth()).as(what).isGreaterThanOrEqualTo(1);
            }
            if (path == Path0.NESTED_LOOP) {
                assertThat(stats.maxRecursionDepth()).as(what).isLessThanOrEqualTo(1);
                if (someKeyMatches) {
                    assertThat(stats.maxRecursionDepth()).as(what).isEqualTo(1);
                    assertThat(stats.heavyHitterRows()).as(what).isPositive();
                }
            }
        }
        try (var files = Files.list(spillRoot)) {
            assertThat(files).as("spill root after %s", where).isEmpty();
        }
        return stats;
    }
}
