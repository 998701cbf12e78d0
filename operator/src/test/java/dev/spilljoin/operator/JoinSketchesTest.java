package dev.spilljoin.operator;

import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.estimator.SketchConfig;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build workers' sketches ({@link JoinSketches#splitBuild}): one per worker when their extra bytes stay within
 * 1/{@value JoinSketches#PARTS_SHARE_OF_HEADROOM} of the free memory (reserved first, given back once merged), else
 * one shared by every worker; merged, they count every worker's rows.
 */
class JoinSketchesTest {
    private static final long MB = 1L << 20;
    private static final long PART = KeySketches.memoryBytes(SketchConfig.BUILD);

    @Test
    void eachWorkerGetsItsOwnSketchWhenTheBudgetHoldsThemAndTheyMergeIntoTheBuildSketch() {
        try (MemoryReservation root = MemoryReservation.root("sketches", 64 * MB)) {
            JoinSketches sketches = JoinSketches.reserve(root, 0).value();
            long before = root.reserved();
            sketches.splitBuild(4, root.headroom());
            assertThat(root.reserved() - before).as("three extra sketches reserved").isEqualTo(3 * PART);
            assertThat(sketches.buildParts()).hasSize(4).doesNotHaveDuplicates();
            assertThat(sketches.buildPart(0)).isSameAs(sketches.build);
            long[] hashes = new long[100];
            for (int w = 0; w < 4; w++) {
                for (int i = 0; i < hashes.length; i++) {
                    hashes[i] = 0x9E3779B97F4A7C15L * (w * 1000L + i + 1);
                }
                sketches.buildPart(w).update(hashes, hashes.length, 24L * hashes.length);
            }
            sketches.mergeBuildParts();
            assertThat(root.reserved()).as("the extra sketches' bytes given back").isEqualTo(before);
            assertThat(sketches.buildParts()).containsExactly(sketches.build);
            assertThat(sketches.build.rows()).isEqualTo(400);
            assertThat(sketches.build.bytes()).isEqualTo(400 * 24);
            assertThat(sketches.build.distinctEstimate()).isBetween(392L, 408L);
            sketches.close();
            assertThat(root.reserved()).isZero();
        }
    }

    /**
     * The probe workers' samples ({@link JoinSketches#splitProbe}): one each when the spare memory holds them, each
     * sampling every {@value JoinSketches#PROBE_EVERY_KTH_BATCH}th batch of its own, merged into the probe sample.
     */
    @Test
    void eachProbeWorkerGetsASampleOfItsOwnAndTheyMergeIntoTheProbeSample() {
        try (MemoryReservation root = MemoryReservation.root("sketches", 64 * MB)) {
            JoinSketches sketches = JoinSketches.reserve(root, 0).value();
            long before = root.reserved();
            sketches.splitProbe(2, root.headroom());
            assertThat(root.reserved()).as("an extra sample reserved").isGreaterThan(before);
            assertThat(sketches.probePart(0)).isSameAs(sketches.probe);
            assertThat(sketches.probePart(1)).isNotSameAs(sketches.probe);
            long[] hashes = new long[100];
            for (int b = 0; b < 32; b++) {
                for (int i = 0; i < hashes.length; i++) {
                    hashes[i] = 0x9E3779B97F4A7C15L * (b * 1000L + i + 1);
                }
                sketches.probePart(b % 2).update(hashes, hashes.length, 0);
            }
            sketches.mergeProbeParts();
            assertThat(root.reserved()).as("the extra sample's bytes given back").isEqualTo(before);
            assertThat(sketches.probePart(1)).isSameAs(sketches.probe);
            assertThat(sketches.probe.rows()).isEqualTo(3200);
            assertThat(sketches.probe.sketchedRows()).as("every 8th batch of each worker's 16").isEqualTo(400);
            assertThat(sketches.probe.distinctEstimate()).isBetween(392L, 408L);
            sketches.close();
            assertThat(root.reserved()).isZero();
        }
    }

    @Test
    void theWorkersShareOneSketchWhenTheExtraOnesWouldTakeMoreThanTheirShareOfTheFreeMemory() {
        try (MemoryReservation root = MemoryReservation.root("sketches", 64 * MB)) {
            JoinSketches sketches = JoinSketches.reserve(root, 0).value();
            long before = root.reserved();
            sketches.splitBuild(4, 3 * PART * JoinSketches.PARTS_SHARE_OF_HEADROOM - 1);
            assertThat(root.reserved()).isEqualTo(before);
            assertThat(sketches.buildParts()).containsExactly(sketches.build);
            for (int w = 0; w < 4; w++) {
                assertThat(sketches.buildPart(w)).isSameAs(sketches.build);
            }
            sketches.splitBuild(1, root.headroom());
            assertThat(sketches.buildParts()).containsExactly(sketches.build);
            sketches.splitProbe(2, KeySketches.memoryBytes(SketchConfig.BUILD) - 1);
            assertThat(sketches.probePart(1)).as("too little spare for a probe sample").isSameAs(sketches.probe);
            sketches.mergeBuildParts();
            assertThat(root.reserved()).isEqualTo(before);
            sketches.close();
        }
    }
}
