package dev.spilljoin.operator;

import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The heavy keys' filter: never misses a key added, and passes few others (by the hash's top 12 bits). */
class HeavyKeyFilterTest {
    @Test
    void passesEveryKeyAddedAndOnlyHashesSharingTheTopTwelveBitsOfOne() {
        long seed = Seeds.logged("HeavyKeyFilterTest");
        SplittableRandom r = new SplittableRandom(seed);
        HeavyKeyFilter filter = new HeavyKeyFilter();
        long one = r.nextLong();
        filter.add(one);
        assertThat(filter.mayContain(one)).isTrue();
        assertThat(filter.mayContain(one ^ 0xF_FFFF_FFFF_FFFFL)).as("the same top 12 bits").isTrue();
        for (int bit = 52; bit < 64; bit++) {
            assertThat(filter.mayContain(one ^ (1L << bit))).as("seed=%d, bit %d flipped", seed, bit).isFalse();
        }
        long[] heavy = new long[PartitionedBuild.MAX_HEAVY_KEYS];
        for (int k = 0; k < heavy.length; k++) {
            heavy[k] = r.nextLong();
            filter.add(heavy[k]);
        }
        for (long h : heavy) {
            assertThat(filter.mayContain(h)).as("seed=%d", seed).isTrue();
        }
        int passed = 0;
        int others = 100_000;
        for (int i = 0; i < others; i++) {
            passed += filter.mayContain(r.nextLong()) ? 1 : 0;
        }
        // 65 keys set at most 65 of 4,096 bits: 1.6 % of random hashes pass; 2.5 % leaves room for chance
        assertThat(passed).as("seed=%d: random hashes passed", seed).isLessThan(others / 40);
    }
}
