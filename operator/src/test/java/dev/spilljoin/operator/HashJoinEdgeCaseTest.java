package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Edge cases of keys and sizes, each checked against the oracle in both build orientations. */
class HashJoinEdgeCaseTest {
    private static final Schema LONG_KV = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    private MemoryReservation root;

    @BeforeEach
    void openBudget() {
        root = MemoryReservation.root("edge-test", 256L << 20);
    }

    @AfterEach
    void releaseBudget() {
        JoinRunner.assertMemoryReleased(root);
        root.close();
    }

    private List<Object[]> joinAndCheck(Schema left, List<Object[]> l, Schema right, List<Object[]> r, JoinType type,
                                        JoinConfig config, String... keyPairs) {
        List<Object[]> last = null;
        for (Side build : Side.values()) {
            JoinSpec.Builder b = JoinSpec.builder(left, right).joinType(type).reservation(root)
                    .config(config.toBuilder().buildSide(build).build());
            for (int i = 0; i < keyPairs.length; i += 2) {
                b.on(keyPairs[i], keyPairs[i + 1]);
            }
            JoinSpec spec = b.build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(left, l, 333), Rows.toBatches(right, r, 97),
                    JoinRunner.Mode.SINK, root);
            List<Object[]> expected = NestedLoopOracle.join(l, r, spec.leftKeys(), spec.rightKeys(), type, spec.projection());
            assertThat(Rows.multiset(result.rows())).as("%s build=%s", type, build).isEqualTo(Rows.multiset(expected));
            last = result.rows();
        }
        return last;
    }

    @Test
    void extremeLongsAndKeysDifferingOnlyInHighOrLowBits() {
        List<Object[]> l = new ArrayList<>();
        List<Object[]> r = new ArrayList<>();
        for (long i = 0; i < 2000; i++) {
            l.add(new Object[]{i << 32, i});
            l.add(new Object[]{i << 20, -i});
            l.add(new Object[]{i, 7L});
            if (i % 3 == 0) {
                r.add(new Object[]{i << 32, i});
                r.add(new Object[]{(i << 20) + 1, i});
                r.add(new Object[]{i, i});
            }
        }
        l.add(new Object[]{Long.MIN_VALUE, 1L});
        l.add(new Object[]{Long.MAX_VALUE, 2L});
        r.add(new Object[]{Long.MIN_VALUE, 3L});
        r.add(new Object[]{Long.MAX_VALUE, 4L});
        r.add(new Object[]{Long.MAX_VALUE - 1, 5L});
        List<Object[]> rows = joinAndCheck(LONG_KV, l, LONG_KV, r, JoinType.INNER, JoinConfig.DEFAULT, "k", "k");
        // 667 right keys of each family (i % 3 == 0). Key 0 is in all three left families, so right's two keys 0
        // match 3 left rows each; right key (0 << 20) + 1 = 1 matches left i = 1; the extremes match one each.
        assertThat(rows).hasSize(2 * (667 + 2) + 1 + 2);
        joinAndCheck(LONG_KV, l, LONG_KV, r, JoinType.FULL_OUTER, JoinConfig.DEFAULT, "k", "k");
    }

    @Test
    void negativeZeroJoinsZeroAndNanJoinsNanAndValuesComeOutExactly() {
        Schema s = Schema.of(Column.of("d", ColumnType.DOUBLE), Column.of("t", ColumnType.VARCHAR));
        List<Object[]> l = List.of(new Object[]{-0.0, "x"}, new Object[]{Double.NaN, "x"}, new Object[]{1.0, "x"},
                new Object[]{null, "x"});
        List<Object[]> r = List.of(new Object[]{0.0, "x"}, new Object[]{Double.longBitsToDouble(0x7ff0000000000123L), "x"},
                new Object[]{-1.0, "x"});
        List<Object[]> single = joinAndCheck(s, l, s, r, JoinType.INNER, JoinConfig.DEFAULT, "d", "d");
        assertThat(Rows.multiset(single)).containsOnlyKeys("[-0.0:D, \"x\", 0.0:D, \"x\"]", "[NaN:D, \"x\", NaN:D, \"x\"]");
        List<Object[]> composite = joinAndCheck(s, l, s, r, JoinType.INNER, JoinConfig.DEFAULT, "d", "d", "t", "t");
        assertThat(composite).hasSize(2);
    }

    @Test
    void emptyStringIsNotNullAndMultiByteUtf8Joins() {
        Schema s = Schema.of(Column.of("s", ColumnType.VARCHAR), Column.of("n", ColumnType.INTEGER));
        List<Object[]> l = List.of(new Object[]{"", 1}, new Object[]{null, 2}, new Object[]{"日本語", 3},
                new Object[]{"é", 4}, new Object[]{"e\u0301", 5});
        List<Object[]> r = List.of(new Object[]{"", 10}, new Object[]{null, 20}, new Object[]{"日本語", 30},
                new Object[]{"é", 40});
        assertThat(joinAndCheck(s, l, s, r, JoinType.INNER, JoinConfig.DEFAULT, "s", "s")).hasSize(3);
        assertThat(joinAndCheck(s, l, s, r, JoinType.LEFT_ANTI, JoinConfig.DEFAULT, "s", "s")).hasSize(2);
        assertThat(joinAndCheck(s, l, s, r, JoinType.FULL_OUTER, JoinConfig.DEFAULT, "s", "s")).hasSize(3 + 2 + 1);
    }

    @Test
    void oneMegabyteStringKeyLargerThanAPage() {
        Schema s = Schema.of(Column.of("s", ColumnType.VARCHAR), Column.of("n", ColumnType.INTEGER));
        String big = "x".repeat(1 << 20);
        String bigToo = "x".repeat((1 << 20) - 1) + "y";
        List<Object[]> l = List.of(new Object[]{big, 1}, new Object[]{bigToo, 2}, new Object[]{"small", 3});
        List<Object[]> r = List.of(new Object[]{big, 10}, new Object[]{big, 11}, new Object[]{"small", 30});
        List<Object[]> rows = joinAndCheck(s, l, s, r, JoinType.INNER, JoinConfig.builder().pageSize(4096).build(),
                "s", "s");
        assertThat(rows).hasSize(3);
    }

    /** Rows larger than a spill buffer are written as blocks of their own, then loaded and streamed back. */
    @Test
    void rowsLargerThanASpillBufferSpillAndComeBack(@TempDir Path spillRoot) {
        Schema s = Schema.of(Column.of("s", ColumnType.VARCHAR), Column.of("n", ColumnType.INTEGER),
                Column.of("t", ColumnType.VARCHAR));
        String big = "x".repeat(100_000);
        List<Object[]> l = List.of(new Object[]{big, 1, "y".repeat(70_000)}, new Object[]{big + "z", 2, null},
                new Object[]{"small", 3, "s"}, new Object[]{null, 4, big});
        List<Object[]> r = List.of(new Object[]{big, 10, big}, new Object[]{big, 11, ""},
                new Object[]{"small", 30, null}, new Object[]{"other", 40, big});
        JoinConfig config = JoinConfig.builder().pageSize(4096).forceSpill(true).spillDirectory(spillRoot).build();
        assertThat(joinAndCheck(s, l, s, r, JoinType.INNER, config, "s", "s")).hasSize(3);
        joinAndCheck(s, l, s, r, JoinType.FULL_OUTER, config, "s", "s");
    }

    @Test
    void oneKeyProducesTheFullCrossProductInBatchesOfTheConfiguredSize() {
        List<Object[]> l = new ArrayList<>();
        List<Object[]> r = new ArrayList<>();
        for (long i = 0; i < 300; i++) {
            l.add(new Object[]{42L, i});
        }
        for (long i = 0; i < 400; i++) {
            r.add(new Object[]{42L, i});
        }
        r.add(new Object[]{43L, 0L});
        JoinConfig config = JoinConfig.builder().outputBatchRows(777).build();
        for (JoinRunner.Mode mode : JoinRunner.Mode.values()) {
            JoinSpec spec = JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").reservation(root).config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(LONG_KV, l, 64), Rows.toBatches(LONG_KV, r, 64),
                    mode, root);
            assertThat(result.rows()).hasSize(300 * 400);
            assertThat(result.stats().outputBatches()).isEqualTo((300 * 400 + 776) / 777);
            assertThat(Rows.multiset(result.rows())).hasSize(300 * 400);
        }
    }

    @Test
    void nullAwareAntiFollowsNotInSemantics() {
        Schema s = Schema.of(Column.of("k", ColumnType.BIGINT));
        List<Object[]> l = List.of(new Object[]{1L}, new Object[]{2L}, new Object[]{null});
        List<Object[]> rNoNull = List.<Object[]>of(new Object[]{1L});
        List<Object[]> rWithNull = List.of(new Object[]{1L}, new Object[]{null});
        assertThat(Rows.multiset(joinAndCheck(s, l, s, rNoNull, JoinType.NULL_AWARE_LEFT_ANTI, JoinConfig.DEFAULT, "k", "k")))
                .containsOnlyKeys("[2:L]");
        assertThat(joinAndCheck(s, l, s, rWithNull, JoinType.NULL_AWARE_LEFT_ANTI, JoinConfig.DEFAULT, "k", "k")).isEmpty();
        assertThat(joinAndCheck(s, l, s, List.of(), JoinType.NULL_AWARE_LEFT_ANTI, JoinConfig.DEFAULT, "k", "k")).hasSize(3);
        assertThat(joinAndCheck(s, l, s, rNoNull, JoinType.LEFT_ANTI, JoinConfig.DEFAULT, "k", "k")).hasSize(2);
    }

    @Test
    void buildSideIsTheSmallerInputByItsSizeHint() {
        List<Object[]> small = List.<Object[]>of(new Object[]{1L, 1L});
        List<Object[]> large = List.of(new Object[]{1L, 1L}, new Object[]{2L, 2L}, new Object[]{3L, 3L});
        for (boolean leftSmall : new boolean[]{true, false}) {
            JoinSpec spec = JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").joinType(JoinType.LEFT_OUTER)
                    .reservation(root).build();
            try (HashJoin join = HashJoin.create(spec)) {
                List<Object[]> out = new ArrayList<>();
                join.run(BatchSources.of(Rows.toBatches(LONG_KV, leftSmall ? small : large, 2)),
                        BatchSources.of(Rows.toBatches(LONG_KV, leftSmall ? large : small, 2)), b -> out.addAll(Rows.fromBatch(b)));
                assertThat(join.stats().buildSide()).isEqualTo(leftSmall ? Side.LEFT : Side.RIGHT);
                assertThat(out).hasSize(leftSmall ? 1 : 3);
                assertThat(join.stats().toJson()).contains("\"build_side\":\"" + (leftSmall ? "left" : "right") + "\"")
                        .contains("\"rows_out\":" + out.size());
            }
        }
    }

    @Test
    void aBuildSideOverTheBudgetSpillsAndStaysWithinIt(@TempDir Path spillRoot) throws IOException {
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 100_000; i++) {
            rows.add(new Object[]{i, i});
        }
        List<Batch> batches = Rows.toBatches(LONG_KV, rows, 1024);
        try (MemoryReservation small = MemoryReservation.root("small", 1 << 20)) {
            JoinSpec spec = JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").reservation(small)
                    .config(JoinConfig.builder().pageSize(64 * 1024).spillDirectory(spillRoot).build()).build();
            long[] count = new long[1];
            JoinStats stats;
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(BatchSources.of(batches), BatchSources.of(batches), b -> {
                    for (int i = 0; i < b.rowCount(); i++) {
                        assertThat(b.column(0).getLong(i)).isEqualTo(b.column(2).getLong(i));
                    }
                    count[0] += b.rowCount();
                });
                stats = join.stats();
            }
            assertThat(count[0]).isEqualTo(100_000);
            assertThat(stats.partitions()).isPositive();
            assertThat(stats.spilledBytesBuild()).isPositive();
            assertThat(stats.spilledBytesProbe()).isPositive();
            assertThat(small.reserved()).isZero();
            assertThat(small.peakReserved()).isLessThanOrEqualTo(1 << 20).isGreaterThan(1 << 19);
        }
        try (var left = Files.list(spillRoot)) {
            assertThat(left).as("spill root after the join").isEmpty();
        }
    }

    @Test
    void aBudgetBelowTheMinimumFailsAtConstructionNamingTheMinimum() {
        long minimum = HashJoin.minimumBudget(JoinConfig.DEFAULT);
        assertThat(minimum).isLessThan(1 << 20);
        JoinSpec spec = JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").budgetBytes(minimum - 1).build();
        assertThatThrownBy(() -> HashJoin.create(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("below this join's minimum of")
                .hasMessageContaining("(" + minimum + " bytes")
                .hasMessageContaining("give it at least");
    }

    @Test
    void badSpecsAreRejectedWithClearMessages() {
        Schema ints = Schema.of(Column.of("k", ColumnType.INTEGER), Column.of("j", ColumnType.INTEGER));
        assertThatThrownBy(() -> JoinSpec.builder(LONG_KV, ints).on("k", "k").budgetBytes(1 << 20).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("left column 'k' is BIGINT but right column 'k' is INTEGER")
                .hasMessageContaining("no implicit coercion");
        assertThatThrownBy(() -> JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").on("v", "v")
                .joinType(JoinType.NULL_AWARE_LEFT_ANTI).budgetBytes(1 << 20).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one key column");
        assertThatThrownBy(() -> JoinSpec.builder(LONG_KV, LONG_KV).on("k", "nope"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no column 'nope'");
        assertThatThrownBy(() -> JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").joinType(JoinType.LEFT_SEMI)
                .project(Side.RIGHT, "v").budgetBytes(1 << 20).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("returns only LEFT columns");
        assertThatThrownBy(() -> JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a memory budget");
    }

    @Test
    void thePushFormRefusesProbeBatchesBeforeTheBuildSideEnded() {
        JoinSpec spec = JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").reservation(root).build();
        List<Batch> batches = Rows.toBatches(LONG_KV, List.<Object[]>of(new Object[]{1L, 2L}), 4);
        try (HashJoin join = HashJoin.create(spec)) {
            Side first = join.start(10, 100, b -> { });
            assertThat(first).isEqualTo(Side.LEFT);
            join.push(Side.LEFT, batches.get(0));
            assertThatThrownBy(() -> join.push(Side.RIGHT, batches.get(0)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("end the build side (LEFT) first");
        }
    }

    @Test
    void outputNamesClashingColumnsBySide() {
        JoinSpec spec = JoinSpec.builder(LONG_KV, LONG_KV).on("k", "k").budgetBytes(1 << 20).build();
        assertThat(spec.outputSchema().names()).containsExactly("left.k", "left.v", "right.k", "right.v");
    }
}
