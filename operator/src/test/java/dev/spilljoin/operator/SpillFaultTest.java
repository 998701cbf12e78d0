package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.operator.testing.NestedLoopOracle;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults: a spill write that fails (as a failing disk would) at points in the build, the probe and the
 * re-partitioning passes, on one worker or several (whose own spill buffers then fail too), ends the join with a clear
 * error, nothing reserved and nothing on disk; and the test-only
 * hook that drops one spilled partition's unmatched build rows really changes an outer join's result (so oracle
 * comparisons downstream have teeth).
 */
class SpillFaultTest {
    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    @ParameterizedTest(name = "threads {0}")
    @ValueSource(ints = {1, 2, 4})
    void aFailedSpillWriteAnywhereLeavesNothingReservedOrOnDisk(int threads) {
        for (long blocks : new long[]{0, 3, 40, 400, 1500}) {
            try (MemoryReservation budget = MemoryReservation.root("fault", 1 << 20)) {
                JoinConfig config = JoinConfig.builder().spillDirectory(spillRoot.path()).pairMemoryLimit(64 * 1024)
                        .threads(threads).rowsPerWorker(0).build();
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget).config(config).build();
                try (HashJoin join = FaultInjection.failingSpillWritesAfterBlocks(blocks).apply(spec)) {
                    assertThatThrownBy(() -> join.run(GeneratedSource.w1Build(100_000),
                            GeneratedSource.w1Probe(400_000, 100_000), b -> { }))
                            .as("failure after %d blocks on %d workers", blocks, threads)
                            .isInstanceOf(UncheckedIOException.class)
                            .hasMessageContaining("spilling failed")
                            .hasMessageContaining("injected write failure");
                    assertThat(budget.reserved()).isZero();
                }
                assertThat(budget.peakReserved()).isLessThanOrEqualTo(1 << 20);
            }
        }
    }

    @Test
    void theDropUnmatchedBuildRowsHookChangesAnOuterJoinsResult() {
        List<Object[]> left = new ArrayList<>();
        List<Object[]> right = new ArrayList<>();
        for (long i = 0; i < 2000; i++) {
            left.add(new Object[]{i, i});
            if (i % 2 == 0) {
                right.add(new Object[]{i, -i});
            }
        }
        List<ColumnRef> projection = List.of(new ColumnRef(Side.LEFT, 0), new ColumnRef(Side.RIGHT, 1));
        var expected = Rows.multiset(NestedLoopOracle.join(left, right, new int[]{0}, new int[]{0},
                JoinType.LEFT_OUTER, projection));
        for (int fault : new int[]{-1, 1}) {
            JoinConfig config = JoinConfig.builder().pageSize(4096).outputBatchRows(100).buildSide(Side.LEFT)
                    .spillDirectory(spillRoot.path()).fanoutLog2(2).spillBufferBytes(256).spillWindowBytes(4096).forceSpill(true).build();
            try (MemoryReservation budget = MemoryReservation.root("hook", 1 << 20)) {
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .joinType(JoinType.LEFT_OUTER).projection(projection).reservation(budget).config(config)
                        .build();
                JoinRunner.Result result = JoinRunner.run(spec, fault < 0 ? HashJoin::create
                        : FaultInjection.droppingUnmatchedBuildRowsOfPartition(fault), Rows.toBatches(GeneratedSource.SCHEMA, left, 128),
                        Rows.toBatches(GeneratedSource.SCHEMA, right, 128), JoinRunner.Mode.SINK, budget);
                if (fault < 0) {
                    assertThat(Rows.multiset(result.rows())).isEqualTo(expected);
                } else {
                    assertThat(Rows.multiset(result.rows())).isNotEqualTo(expected);
                    assertThat(result.rows()).hasSizeBetween(1000, 1999);
                }
            }
        }
    }
}
