package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.CountAndSum;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.workloads.W1Rows;
import dev.spilljoin.workloads.WorkloadMath;
import dev.spilljoin.workloads.ZipfDistribution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The workloads of ../shared/WORKLOADS.md at the small scale under budgets far below the build side, generated
 * batch by batch (nothing held on the heap), checked by count and sum; the skewed build side that sends a hot key
 * to the nested-loop path; cancellation by interrupt and by {@link HashJoin#cancel()} mid-join, and a signal's
 * {@link HashJoin#deleteSpillFilesBeforeExit()}. After each:
 * zero bytes reserved, peak within the budget, an empty spill root.
 */
class LargeSpillingJoinTest {
    private static final long MB = 1 << 20;

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    private JoinSpec w1Spec(MemoryReservation budget) {
        return w1Spec(budget, JoinConfig.DEFAULT);
    }

    private JoinSpec w1Spec(MemoryReservation budget, JoinConfig config) {
        return JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                .config(config.toBuilder().spillDirectory(spillRoot.path()).build()).build();
    }

    @Test
    void w1SmallScaleUnderFourMegabytesGivesThePublishedCountAndSum() {
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("w1", 4 * MB)) {
            try (HashJoin join = HashJoin.create(w1Spec(budget))) {
                join.run(GeneratedSource.w1Build(1_000_000), GeneratedSource.w1Probe(10_000_000, 1_000_000), result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(4 * MB);
        }
        System.out.println("W1 1M x 10M under 4MB: " + stats.toJson());
        assertThat(result.count()).isEqualTo(10_000_000L);
        assertThat(result.sum()).isEqualTo(21481313584743985L);
        assertThat(stats.buildSide()).isEqualTo(Side.LEFT);
        assertThat(stats.partitions()).isPositive();
        // the direct-index table takes in more partitions than their rows fit (readmitted), but not every one
        assertThat(stats.readmittedPartitions()).isPositive();
        assertThat(stats.spilledBytesProbe()).isGreaterThan(50 * MB);
        assertThat(stats.peakReservedBytes()).isLessThanOrEqualTo(4 * MB);
    }

    /**
     * The compact spill format's target (issue 8): a spilled (BIGINT, BIGINT) row costs at most 1.1 × 24 bytes on
     * disk, block headers included. Every partition spills ({@code forceSpill}) and every pair fits, so each row is
     * written exactly once: spilled rows = both inputs' rows.
     */
    @Test
    void aSpilledBigintPairRowCostsAtMostTwentySixAndAHalfBytesOnDisk() {
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("compact", 32 * MB)) {
            try (HashJoin join = HashJoin.create(w1Spec(budget, JoinConfig.builder().forceSpill(true).build()))) {
                join.run(GeneratedSource.w1Build(100_000), GeneratedSource.w1Probe(1_000_000, 100_000), result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(32 * MB);
        }
        assertThat(result.count()).isEqualTo(1_000_000L);
        assertThat(stats.residentPartitions()).isZero();
        assertThat(stats.maxRecursionDepth()).isZero();
        assertThat(stats.heavyHitterRows()).isZero();
        double bytesPerRow = (double) (stats.spilledBytesBuild() + stats.spilledBytesProbe()) / 1_100_000;
        System.out.printf("compact spill format: %.3f bytes per spilled (BIGINT, BIGINT) row%n", bytesPerRow);
        assertThat(bytesPerRow).isLessThanOrEqualTo(1.1 * 24);
    }

    /**
     * R: 1M rows, 30% of them (i % 10 &lt; 3) with key 0, the others key i. S: 10M rows, 10 with key 0 (i % 1M == 0)
     * and the rest Zipf(1.2) over R's other keys. The oracle counts and sums from the generators alone. Role reversal
     * is off: with it, the hot pair (300K build rows, few probe rows) is simply joined the other way round, and the
     * nested-loop path, which this test is about, is not needed.
     */
    @Test
    void aHotBuildKeyTakesTheNestedLoopPathWithinTheBudget() {
        long nR = 1_000_000;
        long nS = 10_000_000;
        SkewedInputs inputs = new SkewedInputs(nR, nS);
        long[] expected = inputs.expectedCountAndSum();
        CountAndSum result = new CountAndSum();
        JoinStats stats;
        try (MemoryReservation budget = MemoryReservation.root("skew", 8 * MB)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                    .config(JoinConfig.builder().spillDirectory(spillRoot.path()).roleReversal(false).build()).build();
            try (HashJoin join = HashJoin.create(spec)) {
                join.run(inputs.build(), inputs.probe(), result);
                stats = join.stats();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(8 * MB);
        }
        System.out.println("skew 1M x 10M under 8MB: " + stats.toJson());
        assertThat(result.count()).isEqualTo(expected[0]);
        assertThat(result.sum()).isEqualTo(expected[1]);
        assertThat(stats.heavyHitterKeys()).as("key 0 on the nested-loop path").isGreaterThanOrEqualTo(1);
        assertThat(stats.heavyHitterRows()).isGreaterThanOrEqualTo(300_000);
        assertThat(stats.nestedLoopChunks()).isGreaterThan(1);
        assertThat(stats.heavyHitterKeysFromSketch()).as("key 0 routed by the sketch").isGreaterThanOrEqualTo(1);
        assertThat(stats.heavyHitterRowsFromSketch()).as("its build rows in the heavy pair").isEqualTo(300_000);
        assertThat(stats.heavyHitterKeysFromRepartitioning()).as("no hot key found by failed re-partitioning").isZero();
        assertThat(stats.maxRecursionDepth()).as("no pair was re-partitioned").isZero();
        assertThat(stats.sketchBytes()).isPositive();
        assertThat(stats.estimates().actualRows()).isEqualTo(nR);
    }

    @Test
    void anInterruptDuringTheProbeStopsTheJoinAndLeavesNothing() {
        try (MemoryReservation budget = MemoryReservation.root("interrupt", MB)) {
            GeneratedSource probe = new GeneratedSource(1_000_000) {
                @Override
                protected long key(long i) {
                    return W1Rows.probeKey(i, 100_000);
                }

                @Override
                protected long payload(long i) {
                    return 0;
                }

                @Override
                protected void beforeBatch(long firstRow) {
                    if (firstRow == 40 * 4096) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            try (HashJoin join = HashJoin.create(w1Spec(budget))) {
                assertThatThrownBy(() -> join.run(GeneratedSource.w1Build(100_000), probe, b -> { }))
                        .isInstanceOf(CancellationException.class)
                        .hasMessageContaining("interrupted");
                assertThat(join.stats().partitions()).as("the join had spilled").isPositive();
                assertThat(budget.reserved()).as("released before close").isZero();
            } finally {
                assertThat(Thread.interrupted()).as("the interrupt flag stays set for the caller").isTrue();
            }
            assertThat(budget.reserved()).isZero();
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(MB);
        }
    }

    @Test
    void cancelWhileJoiningSpilledPairsStopsTheJoinAndLeavesNothing() {
        try (MemoryReservation budget = MemoryReservation.root("cancel", MB)) {
            // every partition spilled: W1's table would fit the budget, which would take every partition back
            try (HashJoin join = HashJoin.create(w1Spec(budget, JoinConfig.builder().forceSpill(true).build()))) {
                long[] batches = new long[1];
                var results = join.iterator(GeneratedSource.w1Build(50_000), GeneratedSource.w1Probe(200_000, 50_000));
                assertThatThrownBy(() -> {
                    while (results.hasNext()) {
                        results.next();
                        if (++batches[0] == 150) {
                            join.cancel();
                        }
                    }
                }).isInstanceOf(CancellationException.class).hasMessageContaining("cancel");
                assertThat(join.stats().partitions()).isPositive();
                assertThat(budget.reserved()).isZero();
            }
            assertThat(budget.peakReserved()).isLessThanOrEqualTo(MB);
        }
    }

    /**
     * A signal's way out: the spill directory goes at once, from the calling thread, while the join is in the middle
     * of its spilled pairs (files open and mapped); the join then stops.
     */
    @Test
    void deleteSpillFilesBeforeExitEmptiesTheSpillRootAtOnceAndStopsTheJoin() throws Exception {
        try (MemoryReservation budget = MemoryReservation.root("exit", MB)) {
            try (HashJoin join = HashJoin.create(w1Spec(budget, JoinConfig.builder().forceSpill(true).build()))) {
                var results = join.iterator(GeneratedSource.w1Build(50_000), GeneratedSource.w1Probe(200_000, 50_000));
                for (int batch = 0; batch < 150; batch++) {
                    assertThat(results.hasNext()).isTrue();
                    results.next();
                }
                assertThat(join.stats().partitions()).isPositive();
                assertThat(entries(spillRoot.path())).as("the join has its spill directory").isOne();

                Thread other = new Thread(join::deleteSpillFilesBeforeExit, "signal");
                other.start();
                other.join();

                assertThat(entries(spillRoot.path())).as("deleted before the join's thread moved on").isZero();
                assertThatThrownBy(() -> {
                    while (results.hasNext()) {
                        results.next();
                    }
                }).isInstanceOf(CancellationException.class);
            }
            assertThat(budget.reserved()).isZero();
        }
    }

    private static long entries(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.count();
        }
    }

    /** The skew test's inputs and their oracle. */
    private static final class SkewedInputs {
        private static final double ZIPF_S = 1.2;
        private final long nR;
        private final long nS;
        /** Zipf over R's other (not hot) keys: rank {@code r} is the {@code r}-th of them. */
        private final ZipfDistribution othersZipf;

        SkewedInputs(long nR, long nS) {
            this.nR = nR;
            this.nS = nS;
            this.othersZipf = ZipfDistribution.ofExponent((int) (nR - (nR / 10) * 3), ZIPF_S);
        }

        static boolean hot(long i) {
            return i % 10 < 3;
        }

        long buildKey(long i) {
            return hot(i) ? 0 : i;
        }

        long probeKey(long i) {
            if (i % nR == 0) {
                return 0;
            }
            double u = (WorkloadMath.h(0x61, i) >>> 11) * 0x1.0p-53;
            int other = othersZipf.rank(u) - 1;
            return (other / 7L) * 10 + 3 + other % 7;
        }

        GeneratedSource build() {
            return GeneratedSource.of(nR, this::buildKey, i -> WorkloadMath.payload(0x11, i));
        }

        GeneratedSource probe() {
            return GeneratedSource.of(nS, this::probeKey, i -> WorkloadMath.payload(0x62, i));
        }

        /** {count, sum(r.p + s.p)} by arithmetic: key 0 matches every hot R row, any other key its one R row. */
        long[] expectedCountAndSum() {
            long hotRows = 0;
            long hotPayloads = 0;
            for (long i = 0; i < nR; i++) {
                if (hot(i)) {
                    hotRows++;
                    hotPayloads += WorkloadMath.payload(0x11, i);
                }
            }
            long count = 0;
            long sum = 0;
            for (long i = 0; i < nS; i++) {
                long k = probeKey(i);
                long p = WorkloadMath.payload(0x62, i);
                if (k == 0) {
                    count += hotRows;
                    sum += hotRows * p + hotPayloads;
                } else {
                    count++;
                    sum += p + WorkloadMath.payload(0x11, k);
                }
            }
            return new long[]{count, sum};
        }
    }
}
