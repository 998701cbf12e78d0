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
        for (long i = 0; i < 50_000; i++) {
            build.add(new Object[]{i, i});
        }
        for (long i = 0; i < 200_000; i++) {
            probe.add(new Object[]{i % 60_000, i});
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
}
