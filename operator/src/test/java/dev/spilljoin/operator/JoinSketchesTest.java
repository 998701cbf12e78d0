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
            sketches.mergeBuildParts();
            assertThat(root.reserved()).isEqualTo(before);
            sketches.close();
        }
    }
}
