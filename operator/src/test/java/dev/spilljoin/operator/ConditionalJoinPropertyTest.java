package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.RandomJoinInputs;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Joins with an extra condition ({@link PairCondition}) against the nested-loop oracle with the same condition, for
 * every join type but NOT IN, both build sides and all three driving forms: in memory, with every partition spilled
 * (pairs joined in memory, some with the roles reversed), re-partitioned, and on the nested-loop path. The condition
 * reads one random column of each side (keys included) and rejects about a quarter to three quarters of the pairs,
 * NULLs always; it is evaluated by the join on batches of its two columns and by the oracle on boxed rows, through
 * the same function of the two values. The seed is printed; replay with {@code -Dseed=<seed>}.
 */
class ConditionalJoinPropertyTest {
    private static final int[] BATCH_SIZES = {1, 7, 50, 1024};

    @TempDir
    Path spillRoot;

    enum Path0 { IN_MEMORY, LEVEL_0, RECURSION, NESTED_LOOP }

    @ParameterizedTest
    @EnumSource(Path0.class)
    void conditionalJoinsMatchTheOracle(Path0 path) throws IOException {
        long seed = Long.getLong("seed", System.nanoTime());
        int cases = Integer.getInteger("cases", 20);
        System.out.println("ConditionalJoinPropertyTest " + path + " seed=" + seed + " cases=" + cases
                + " (replay with -Dseed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        long rejectingJoins = 0;
        for (int c = 0; c < cases; c++) {
            long caseSeed = random.nextLong();
            SplittableRandom r = new SplittableRandom(caseSeed);
            RandomJoinInputs in = new RandomJoinInputs(r, 60);
            int leftColumn = r.nextInt(in.left.size());
            int rightColumn = r.nextInt(in.right.size());
            int salt = r.nextInt(4);
            int accepted = 1 + r.nextInt(3);
            BiPredicate<Object, Object> accepts = (a, b) -> a != null && b != null
                    && Math.floorMod(code(a) * 31 + code(b) + salt, 4) < accepted;
            for (JoinType type : JoinType.values()) {
                if (type == JoinType.NULL_AWARE_LEFT_ANTI) {
                    continue;
                }
                List<ColumnRef> projection = in.randomProjection(type);
                List<Object[]> expected = NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys,
                        type, projection, (l, rr) -> accepts.test(l[leftColumn], rr[rightColumn]));
                List<Object[]> keysOnly = NestedLoopOracle.join(in.leftRows, in.rightRows, in.leftKeys, in.rightKeys,
                        type, projection);
                rejectingJoins += Rows.multiset(expected).equals(Rows.multiset(keysOnly)) ? 0 : 1;
                for (Side build : Side.values()) {
                    String where = path + " seed=" + seed + " case=" + c + " caseSeed=" + caseSeed + " " + type
                            + " build=" + build + " condition on l" + leftColumn + ", r" + rightColumn;
                    check(in, type, projection, build, path, r, expected, leftColumn, rightColumn, accepts, where);
                }
            }
        }
        assertThat(rejectingJoins).as("joins whose result the condition changed").isPositive();
        try (var files = Files.list(spillRoot)) {
            assertThat(files.toList()).as("files left in the spill root").isEmpty();
        }
    }

    private void check(RandomJoinInputs in, JoinType type, List<ColumnRef> projection, Side build, Path0 path,
                       SplittableRandom r, List<Object[]> expected, int leftColumn, int rightColumn,
                       BiPredicate<Object, Object> accepts, String where) {
        List<Batch> left = Rows.toBatches(in.left, in.leftRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        List<Batch> right = Rows.toBatches(in.right, in.rightRows, BATCH_SIZES[r.nextInt(BATCH_SIZES.length)]);
        JoinConfig.Builder config = JoinConfig.builder().outputBatchRows(1 + r.nextInt(r.nextBoolean() ? 5 : 300))
                .outputBatchBytes(r.nextBoolean() ? 1 + r.nextInt(400) : JoinConfig.DEFAULT_OUTPUT_BATCH_BYTES)
                .buildSide(build).spillDirectory(spillRoot);
        if (path != Path0.IN_MEMORY) {
            config.pageSize(64 + 8 * r.nextInt(64)).fanoutLog2(1 + r.nextInt(3)).spillBufferBytes(64 + 8 * r.nextInt(57))
                    .spillWindowBytes(4096).forceSpill(true);
        }
        if (path == Path0.RECURSION || path == Path0.NESTED_LOOP) {
            config.pairMemoryLimit(1).maxRecursionDepth(path == Path0.RECURSION ? 2 : 1);
        }
        JoinConfig built = config.build();
        long budget = path == Path0.IN_MEMORY ? 64L << 20 : HashJoin.minimumBudget(built) + r.nextInt(64 * 1024);
        JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(3)];
        PairCondition condition = (pairs, acceptedBits) -> {
            for (int row = 0; row < pairs.rowCount(); row++) {
                if (!accepts.test(Rows.value(pairs.column(0), row), Rows.value(pairs.column(1), row))) {
                    acceptedBits[row >>> 6] &= ~(1L << row);
                }
            }
        };
        try (MemoryReservation root = MemoryReservation.root("test", budget)) {
            JoinSpec.Builder spec = JoinSpec.builder(in.left, in.right).joinType(type).projection(projection)
                    .reservation(root).config(built).condition(List.of(new ColumnRef(Side.LEFT, leftColumn),
                            new ColumnRef(Side.RIGHT, rightColumn)), condition);
            for (int k = 0; k < in.leftKeys.length; k++) {
                spec.on(in.leftKeys[k], in.rightKeys[k]);
            }
            JoinRunner.Result result = JoinRunner.run(spec.build(), left, right, mode, root);
            String what = String.format("%s mode=%s config=%s budget=%d left=%s keys=%s right=%s keys=%s stats=%s", where,
                    mode, built, budget, in.left, Arrays.toString(in.leftKeys), in.right,
                    Arrays.toString(in.rightKeys), result.stats().toJson());
            assertThat(Rows.multiset(result.rows())).as(what).isEqualTo(Rows.multiset(expected));
            if (path == Path0.IN_MEMORY) {
                assertThat(result.stats().partitions()).as(what).isZero();
            } else {
                assertThat(result.stats().partitions()).as(what).isPositive();
            }
        }
    }

    /** The condition's view of a value: equal values give equal codes (byte arrays by content). */
    private static int code(Object value) {
        return value instanceof byte[] bytes ? Arrays.hashCode(bytes) : value.hashCode();
    }

    @Test
    void notInTakesNoCondition() {
        RandomJoinInputs in = new RandomJoinInputs(new SplittableRandom(1), 5);
        JoinSpec.Builder spec = JoinSpec.builder(in.left, in.right).joinType(JoinType.NULL_AWARE_LEFT_ANTI)
                .budgetBytes(1 << 20).on(in.leftKeys[0], in.rightKeys[0])
                .condition(List.of(new ColumnRef(Side.LEFT, 0)), (pairs, accepted) -> { });
        assertThatThrownBy(spec::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NOT IN").hasMessageContaining("LEFT_ANTI");
    }
}
