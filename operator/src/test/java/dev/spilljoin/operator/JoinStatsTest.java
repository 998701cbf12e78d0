package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stats are a report assembled from the phases: the time of the build, probe and spilled-pairs phases, each
 * counted once, adds up to no more than the wall time around the whole join, in each of the three driving forms
 * (the pull form once counted the end of the probe input twice).
 */
class JoinStatsTest {
    private static final long MB = 1 << 20;

    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    @Test
    void thePhaseTimesAddUpToNoMoreThanTheWallTime() {
        List<Object[]> build = new ArrayList<>();
        List<Object[]> probe = new ArrayList<>();
        // keys spread over 2^40 (a bijection of 0..n-1): the hash table, which no readmission takes in, so the
        // spilled partitions are joined as pairs and every phase runs
        LongUnaryOperator spread = i -> Math.floorMod(i * 1_099_511_627_689L, 1L << 40);
        for (long i = 0; i < 50_000; i++) {
            build.add(new Object[]{spread.applyAsLong(i), i});
        }
        for (long i = 0; i < 200_000; i++) {
            probe.add(new Object[]{spread.applyAsLong(i % 60_000), i});
        }
        for (JoinRunner.Mode mode : JoinRunner.Mode.values()) {
            try (MemoryReservation budget = MemoryReservation.root("times-" + mode, MB)) {
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                        .config(JoinConfig.builder().spillDirectory(spillRoot.path()).build()).build();
                long start = System.nanoTime();
                JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(GeneratedSource.SCHEMA, build, 1024),
                        Rows.toBatches(GeneratedSource.SCHEMA, probe, 1024), mode, budget);
                long wall = System.nanoTime() - start;
                JoinStats stats = result.stats();
                assertThat(stats.partitions()).as("%s: the join spilled, so every phase ran", mode).isPositive();
                assertThat(stats.phaseNanos()).as("%s: build + probe + spilled-pairs time vs the wall time", mode)
                        .isPositive().isLessThanOrEqualTo(wall);
                assertThat(result.rows()).as("%s: result rows", mode).hasSize(170_000); // keys 0..19,999 match 4 probe rows, 20,000..49,999 match 3
            }
        }
    }

    /**
     * {@code table_bytes_per_row}: the resident table's bytes over its build rows. A (BIGINT, BIGINT) build side of
     * 2^20 rows: with dense unique keys the direct-index table holds a row in its payload column's 8 bytes plus its
     * bitmaps' bits; with keys spread over 2^40 the hash table in a row of at most 17 bytes (flag byte, key,
     * payload) plus its directory's share, 8 bytes a row at a power-of-two row count: 24-25 bytes, against 64 for
     * the chained table it replaced. Both within the stated bounds, both in the JSON.
     */
    @Test
    void theTableBytesPerRowOfBothTableKinds() {
        long rows = 1 << 20;
        // dense keys 0..rows-1; the same permuted over [0, 2^40) by an odd multiplier (a bijection, so still unique)
        LongUnaryOperator[] keys = {i -> i, i -> Math.floorMod(i * 1_099_511_627_689L, 1L << 40)};
        String[] kinds = {"direct", "hash"};
        double[][] bounds = {{8, 8.5}, {24, 24.01}};
        for (int t = 0; t < 2; t++) {
            LongUnaryOperator key = keys[t];
            try (MemoryReservation budget = MemoryReservation.root("bytes per row", 256 * MB)) {
                JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                        .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                        .config(JoinConfig.builder().spillDirectory(spillRoot.path()).buildSide(Side.RIGHT).build())
                        .build();
                long[] matched = new long[1];
                JoinStats stats;
                try (HashJoin join = HashJoin.create(spec)) {
                    join.run(GeneratedSource.of(rows, key, i -> i), GeneratedSource.of(rows, key, i -> -i),
                            b -> matched[0] += b.rowCount());
                    stats = join.stats();
                }
                String what = kinds[t] + ": " + stats.toJson();
                System.out.println("table_bytes_per_row, " + what);
                assertThat(matched[0]).as(what).isEqualTo(rows);
                assertThat(stats.tableKind()).as(what).isEqualTo(kinds[t]);
                assertThat(stats.buildRowsStored()).as(what).isEqualTo(rows);
                assertThat(stats.tableBytesPerRow()).as(what).isBetween(bounds[t][0], bounds[t][1]);
                assertThat(stats.toJson()).contains(String.format(Locale.ROOT, "\"table_bytes_per_row\":%.2f",
                        stats.tableBytesPerRow()));
            }
        }
    }

    /**
     * The stats may be read from another thread while the join folds a phase in: a reader of the per-level lists
     * meets no ConcurrentModificationException while 5,000 pair phases each add a level, and sees every level after
     * (four rounds: without the lock about two rounds in three failed).
     */
    @Test
    void readingTheStatsWhileAPhaseIsFoldedInNeverFails() throws InterruptedException {
        for (int round = 0; round < 4; round++) {
            readWhileFolding();
        }
    }

    private static void readWhileFolding() throws InterruptedException {
        JoinStats stats = new JoinStats();
        int levels = 5_000;
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean folded = new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader = new Thread(() -> {
            while (!folded.get()) {
                try {
                    stats.partitions();
                    stats.fanoutPerLevel();
                } catch (RuntimeException e) {
                    failures.add(e);
                    return;
                }
            }
        });
        reader.start();
        for (int level = 0; level < levels; level++) {
            PairCounters pairs = new PairCounters();
            pairs.countPartitions(level, 1);
            pairs.recordFanout(level, 2);
            stats.recordPairs(pairs);
        }
        folded.set(true);
        reader.join();
        assertThat(failures).isEmpty();
        assertThat(stats.partitions()).isEqualTo(levels);
    }
}
