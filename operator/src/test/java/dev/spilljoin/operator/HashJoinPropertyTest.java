package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.RandomJoinInputs;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded randomized property test against the nested-loop oracle: random schemas and keys (1–3 columns of mixed
 * types), NULLs, duplicates on both sides, empty inputs, every join type in both build orientations, batch sizes
 * including 1 and odd ones, tiny pages and output batches, and all three driving forms. Results compared as
 * multisets. The seed is printed; replay with {@code -Dseed=<seed>} (and {@code -Dcases=<n>}).
 */
class HashJoinPropertyTest {
    private static final int[] BATCH_SIZES = {1, 2, 7, 49, 50, 51, 100, 1024};

    @Test
    void everyJoinTypeInBothOrientationsMatchesTheOracle() {
        long seed = Long.getLong("seed", System.nanoTime());
        int cases = Integer.getInteger("cases", 300);
        System.out.println("HashJoinPropertyTest seed=" + seed + " cases=" + cases + " (replay with -Dseed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        int joins = 0;
        for (int c = 0; c < cases; c++) {
            long caseSeed = random.nextLong();
            SplittableRandom r = new SplittableRandom(caseSeed);
            RandomJoinInputs inputs = new RandomJoinInputs(r, 60);
            for (JoinType type : JoinType.values()) {
                if (type == JoinType.NULL_AWARE_LEFT_ANTI && inputs.leftKeys.length != 1) {
                    continue;
                }
                List<ColumnRef> projection = inputs.randomProjection(type);
                for (Side build : Side.values()) {
                    checkCase(inputs, type, projection, build, r, "seed=" + seed + " case=" + c + " caseSeed=" + caseSeed);
                    joins++;
                }
            }
        }
        assertThat(joins).isGreaterThanOrEqualTo(cases * 14);
    }

    private static void checkCase(RandomJoinInputs in, JoinType type, List<ColumnRef> projection, Side build,
                                  SplittableRandom r, String where) {
        List<Batch> left = Rows.toBatches(in.left, in.leftRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        List<Batch> right = Rows.toBatches(in.right, in.rightRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        JoinConfig config = JoinConfig.builder().pageSize(64 + 8 * r.nextInt(64))
                .outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 5 : 300))
                .outputBatchBytes(r.nextBoolean() ? 1 + r.nextInt(400) : JoinConfig.DEFAULT_OUTPUT_BATCH_BYTES)
                .buildSide(build).build();
        JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(3)];
        try (MemoryReservation root = MemoryReservation.root("test", 64L << 20)) {
            JoinSpec.Builder spec = JoinSpec.builder(in.left, in.right).joinType(type).projection(projection)
                    .reservation(root).config(config);
            for (int k = 0; k < in.leftKeys.length; k++) {
                spec.on(in.leftKeys[k], in.rightKeys[k]);
            }
            JoinRunner.Result result = JoinRunner.run(spec.build(), left, right, mode, root);
            List<Object[]> expected = NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys, type,
                    projection);
            assertThat(Rows.multiset(result.rows()))
                    .as("%s: %s build=%s mode=%s config=%s left=%s keys=%s right=%s keys=%s", where, type, build, mode,
                            config, in.left, java.util.Arrays.toString(in.leftKeys), in.right,
                            java.util.Arrays.toString(in.rightKeys))
                    .isEqualTo(Rows.multiset(expected));
            assertThat(result.stats().buildSide()).isEqualTo(build);
        }
    }
}
