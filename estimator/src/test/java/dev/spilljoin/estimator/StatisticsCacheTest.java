package dev.spilljoin.estimator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatisticsCacheTest {

    private static InputStatistics statisticsWithHeavyKeys(int keys) {
        long[] hashes = new long[keys];
        long[] rows = new long[keys];
        for (int i = 0; i < keys; i++) {
            hashes[i] = KeyData.fmix64(i);
            rows[i] = 1000 + i;
        }
        return new InputStatistics(1_000_000, 24_000_000, 500_000,
                HeavyHitters.of(999, hashes, rows, rows.clone(), rows.clone()));
    }

    @Test
    void weightBoundEvicts() {
        StatisticsCache cache = new StatisticsCache(64 * 1024, Runnable::run);
        InputStatistics statistics = statisticsWithHeavyKeys(30); // about 1 KiB each
        long entryWeight = statistics.heapBytes() + InputIdentity.ofTable("t0", 0).heapBytes();
        assertThat(entryWeight).isBetween(900L, 1200L);
        int entries = 200;
        for (int i = 0; i < entries; i++) {
            cache.put(InputIdentity.ofTable("t" + i, 0), statistics);
        }

        assertThat(cache.weightBytes()).isLessThanOrEqualTo(64 * 1024).isGreaterThan(64 * 1024 - 2 * entryWeight);
        assertThat(cache.size()).isLessThan(entries);
        assertThat(cache.evictions()).isEqualTo(entries - cache.size());
    }

    @Test
    void hitsAndMissesAreCounted() {
        StatisticsCache cache = new StatisticsCache(1024 * 1024, Runnable::run);
        InputIdentity orders = InputIdentity.ofTable("orders", 7);
        InputStatistics statistics = statisticsWithHeavyKeys(3);

        assertThat(cache.get(orders)).isEmpty();
        cache.put(orders, statistics);
        assertThat(cache.get(orders)).contains(statistics);
        assertThat(cache.get(orders)).contains(statistics);
        assertThat(cache.get(InputIdentity.ofTable("orders", 8))).isEmpty();

        assertThat(cache.hits()).isEqualTo(2);
        assertThat(cache.misses()).isEqualTo(2);
        assertThat(cache.hitRate()).isEqualTo(0.5);
        cache.invalidate(orders);
        assertThat(cache.get(orders)).isEmpty();
    }

    @Test
    void fileWithAChangedModificationTimeMisses(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("r.csv");
        Files.writeString(file, "k,p\n1,2\n");
        StatisticsCache cache = new StatisticsCache(1024 * 1024, Runnable::run);
        InputStatistics statistics = statisticsWithHeavyKeys(1);
        cache.put(InputIdentity.ofFile(file), statistics);

        // the same file named another way is the same input
        assertThat(cache.get(InputIdentity.ofFile(dir.resolve(".").resolve("r.csv")))).contains(statistics);
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 1000));
        assertThat(cache.get(InputIdentity.ofFile(file))).isEmpty();
        Files.writeString(file, "k,p\n1,2\n3,4\n");
        assertThat(cache.get(InputIdentity.ofFile(file))).isEmpty();

        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(2);
    }

    @Test
    void concurrentJoinsShareTheCache() throws Exception {
        long seed = KeyData.seed("concurrentJoinsShareTheCache");
        StatisticsCache cache = new StatisticsCache(1024 * 1024);
        int threads = 4;
        int lookups = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom random = new SplittableRandom(seed + t);
                results.add(pool.submit(() -> {
                    long found = 0;
                    for (int i = 0; i < lookups; i++) {
                        InputIdentity input = InputIdentity.ofTable("t" + random.nextInt(50), 1);
                        if (cache.get(input).isPresent()) {
                            found++;
                        } else {
                            cache.put(input, InputStatistics.of(i, i, i));
                        }
                    }
                    return new long[] {found};
                }));
            }
            long found = 0;
            for (Future<long[]> result : results) {
                found += result.get(60, TimeUnit.SECONDS)[0];
            }
            assertThat(cache.hits()).isEqualTo(found);
            assertThat(cache.hits() + cache.misses()).isEqualTo((long) threads * lookups);
            assertThat(cache.size()).isLessThanOrEqualTo(50);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new StatisticsCache(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("statistics cache size must be > 0 bytes, got 0");
        assertThatThrownBy(() -> InputIdentity.ofTable("", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("table identity needs a non-empty table id");
    }
}
