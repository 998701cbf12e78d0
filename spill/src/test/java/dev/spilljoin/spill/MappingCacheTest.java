package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The mapping cache's rules over a recording mapper (addresses from a counter, every mapping and unmapping
 * recorded): exact-length reuse, the footprint never an eighth above the most ever in use, the capacity, the idle
 * release.
 */
class MappingCacheTest {
    private static final long MIB = 1L << 20;
    /** Longer than any test: only the reaper's own test sees it run. */
    private static final long IDLE = 3_600_000_000_000L;

    /** Hands out distinct addresses and keeps what is mapped. */
    private static final class RecordingMapper implements MappingCache.Mapper {
        final Map<Long, Long> mapped = new HashMap<>();
        final List<Long> unmapped = new ArrayList<>();
        private long next = 1L << 40;

        @Override
        public long map(long length) {
            long address = next;
            next += length + 2 * MIB;
            mapped.put(address, length);
            return address;
        }

        @Override
        public void unmap(long address, long length) {
            assertThat(mapped.remove(address)).as("unmapped 0x%x, which is mapped", address).isEqualTo(length);
            unmapped.add(address);
        }

        long mappedBytes() {
            return mapped.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    @Test
    void aFreedMappingServesTheNextRequestOfItsLengthOnly() {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(64 * MIB, IDLE, os);
        long a = cache.map(4 * MIB);
        cache.release(a, 4 * MIB);
        assertThat(cache.take(2 * MIB)).isZero();
        assertThat(cache.take(4 * MIB)).isEqualTo(a);
        assertThat(cache.take(4 * MIB)).as("handed out once").isZero();
        assertThat(cache.cachedBytes()).isZero();
        assertThat(os.unmapped).isEmpty();
        cache.releaseAll();
    }

    /**
     * Of several cached mappings of one length the most recently freed goes out first, and the oldest of all
     * lengths goes first when the capacity overflows, whatever its length.
     */
    @Test
    void takesTheNewestOfALengthAndEvictsTheOldestOfAll() {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(7 * MIB, IDLE, os);
        long small = cache.map(MIB / 4);
        long a = cache.map(2 * MIB);
        long b = cache.map(2 * MIB);
        long big = cache.map(4 * MIB);
        cache.release(small, MIB / 4);
        cache.release(a, 2 * MIB);
        cache.release(b, 2 * MIB);
        assertThat(cache.take(2 * MIB)).as("the newest of its length").isEqualTo(b);
        cache.release(b, 2 * MIB);
        cache.release(big, 4 * MIB); // 8.25 MiB cached: over 7, the oldest go, the quarter MiB first
        assertThat(os.unmapped).containsExactly(small, a);
        assertThat(cache.cachedBytes()).isEqualTo(6 * MIB);
        assertThat(cache.take(MIB / 4)).isZero();
        assertThat(cache.take(2 * MIB)).isEqualTo(b);
        assertThat(cache.take(2 * MIB)).isZero();
        assertThat(cache.take(4 * MIB)).isEqualTo(big);
        cache.releaseAll();
    }

    @Test
    void aFreshMappingFirstUnmapsWhatWouldRaiseTheFootprintAnEighthAboveThePeakInUse() {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(64 * MIB, IDLE, os);
        long a = cache.map(4 * MIB);
        long b = cache.map(2 * MIB);
        cache.release(a, 4 * MIB);
        cache.release(b, 2 * MIB);
        // In use 0, cached 6, peak 6: a fresh 4 MiB page fits beside b's 2 MiB, not beside a's 4 as well.
        long c = cache.map(4 * MIB);
        assertThat(os.unmapped).as("the oldest cached mapping goes, and no more").containsExactly(a);
        assertThat(os.mappedBytes()).isEqualTo(6 * MIB);
        assertThat(cache.take(2 * MIB)).isEqualTo(b);
        cache.release(b, 2 * MIB);
        cache.release(c, 4 * MIB);
        long d = cache.map(8 * MIB);
        assertThat(os.mappedBytes()).as("nothing cached is left beside a mapping above every earlier peak")
                .isEqualTo(8 * MIB);
        assertThat(os.unmapped).containsExactly(a, b, c);
        cache.release(d, 8 * MIB);
        cache.releaseAll();
    }

    /**
     * A page no cached mapping matches is mapped beside them all while that stays within an eighth above the most in
     * use: a join asking for its pages in another order than the one before keeps the pages it asks for next.
     */
    @Test
    void aFreshMappingAnEighthAboveThePeakInUseUnmapsNothing() {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(64 * MIB, IDLE, os);
        long[] pages = new long[4];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = cache.map(2 * MIB);
        }
        for (long page : pages) {
            cache.release(page, 2 * MIB);
        }
        long small = cache.map(MIB);
        assertThat(os.unmapped).as("8 MiB cached, 1 more mapped: 9 MiB, 8 in use at most").isEmpty();
        long second = cache.map(MIB);
        assertThat(os.unmapped).as("10 MiB would be more than an eighth above: the oldest goes")
                .containsExactly(pages[0]);
        cache.release(small, MIB);
        cache.release(second, MIB);
        cache.releaseAll();
    }

    @Test
    void theCacheKeepsItsCapacityAndReleasesIdleMappingsOldestFirst() {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(4 * MIB, IDLE, os);
        long a = cache.map(2 * MIB);
        long b = cache.map(2 * MIB);
        long c = cache.map(2 * MIB);
        long big = cache.map(6 * MIB);
        cache.release(a, 2 * MIB);
        cache.release(b, 2 * MIB);
        cache.release(c, 2 * MIB);
        assertThat(os.unmapped).as("over capacity: the oldest goes").containsExactly(a);
        cache.release(big, 6 * MIB);
        assertThat(os.unmapped).as("larger than the capacity: unmapped at once").containsExactly(a, big);
        long cachedAt = System.nanoTime();
        assertThat(cache.releaseIdle(cachedAt)).as("not idle yet").isZero();
        assertThat(cache.releaseIdle(cachedAt + IDLE + 1)).isEqualTo(4 * MIB);
        assertThat(os.mapped).isEmpty();
        assertThat(cache.cachedBytes()).isZero();
        cache.releaseAll();
    }

    @Test
    void noCapacityCachesNothing() {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(0, IDLE, os);
        long a = cache.map(2 * MIB);
        cache.release(a, 2 * MIB);
        assertThat(os.mapped).isEmpty();
        assertThat(cache.take(2 * MIB)).isZero();
    }

    @Test
    void theReaperThreadUnmapsIdleMappingsAndEnds() throws InterruptedException {
        RecordingMapper os = new RecordingMapper();
        MappingCache cache = new MappingCache(64 * MIB, 50_000_000L, os);
        long a = cache.map(2 * MIB);
        cache.release(a, 2 * MIB);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cache.cachedBytes() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        synchronized (cache) {
            assertThat(os.unmapped).containsExactly(a);
        }
    }

    @Test
    void randomUseNeverHandsAMappingOutTwiceNorRaisesTheFootprint() {
        SplittableRandom random = SeededRandom.create("randomUseNeverHandsAMappingOutTwiceNorRaisesTheFootprint");
        RecordingMapper os = new RecordingMapper();
        long capacity = random.nextInt(0, 9) * 2 * MIB;
        MappingCache cache = new MappingCache(capacity, IDLE, os);
        Map<Long, Long> inUse = new HashMap<>();
        long peakInUse = 0;
        for (int step = 0; step < 20_000; step++) {
            if (inUse.isEmpty() || random.nextInt(3) > 0 && inUse.size() < 12) {
                long length = random.nextInt(1, 5) * 2 * MIB;
                long address = cache.take(length);
                if (address == 0) {
                    address = cache.map(length);
                }
                assertThat(inUse.put(address, length)).as("step %d: 0x%x already in use", step, address).isNull();
                assertThat(os.mapped.get(address)).as("step %d: mapped with its length", step).isEqualTo(length);
            } else {
                Long address = new ArrayList<>(inUse.keySet()).get(random.nextInt(inUse.size()));
                cache.release(address, inUse.remove(address));
            }
            long used = inUse.values().stream().mapToLong(Long::longValue).sum();
            peakInUse = Math.max(peakInUse, used);
            assertThat(os.mappedBytes()).as("step %d: footprint", step).isLessThanOrEqualTo(peakInUse + peakInUse / 8)
                    .isEqualTo(used + cache.cachedBytes());
            assertThat(cache.cachedBytes()).as("step %d: cached", step).isLessThanOrEqualTo(capacity);
        }
        cache.releaseAll();
    }

    @Test
    void theCapacityPropertyTakesABytesCountAndNothingElse() {
        assertThat(MappingCache.capacity(null)).isEqualTo(256 * MIB);
        assertThat(MappingCache.capacity("0")).isZero();
        assertThat(MappingCache.capacity(" 1048576 ")).isEqualTo(MIB);
        for (String bad : new String[] {"", "-1", "1MB", "lots"}) {
            assertThatThrownBy(() -> MappingCache.capacity(bad)).as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("system property spilljoin.hugePageCacheBytes must be a number of bytes, 0 or more (0"
                            + " turns the cache of freed mappings off), not '" + bad + "'");
        }
    }
}
