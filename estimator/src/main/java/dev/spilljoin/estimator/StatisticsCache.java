package dev.spilljoin.estimator;

import java.util.Optional;
import java.util.concurrent.Executor;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Statistics of join inputs seen before in this process, so that a repeated join (a database running many queries)
 * plans from known sizes and heavy keys from its first row instead of from hints.
 *
 * <p>A Caffeine cache keyed by {@link InputIdentity}, bounded by weight: an entry weighs the heap bytes of its key and
 * its {@link InputStatistics} (mostly the heavy hitters), and the cache holds at most {@code maximumBytes} of them,
 * evicting by Caffeine's size-aware W-TinyLFU policy. Hits and misses of {@link #get} are counted (Caffeine's
 * statistics) for the join's stats. Thread-safe: any number of joins may read and write it at once.
 */
public final class StatisticsCache {
    private final Cache<InputIdentity, InputStatistics> cache;
    private final long maximumBytes;

    /** A cache holding at most {@code maximumBytes} of statistics; eviction runs on Caffeine's default executor. */
    public StatisticsCache(long maximumBytes) {
        this(maximumBytes, null);
    }

    /** As above, with maintenance (eviction) run by {@code executor}; tests pass {@code Runnable::run}. */
    StatisticsCache(long maximumBytes, Executor executor) {
        if (maximumBytes <= 0) {
            throw new IllegalArgumentException("statistics cache size must be > 0 bytes, got " + maximumBytes);
        }
        this.maximumBytes = maximumBytes;
        Caffeine<InputIdentity, InputStatistics> builder = Caffeine.newBuilder()
                .maximumWeight(maximumBytes)
                .weigher((InputIdentity key, InputStatistics value) -> weight(key, value))
                .recordStats();
        this.cache = (executor == null ? builder : builder.executor(executor)).build();
    }

    private static int weight(InputIdentity key, InputStatistics value) {
        return (int) Math.min(Integer.MAX_VALUE, key.heapBytes() + value.heapBytes());
    }

    /** The statistics known for {@code input}, counted as a hit or a miss. */
    public Optional<InputStatistics> get(InputIdentity input) {
        return Optional.ofNullable(cache.getIfPresent(input));
    }

    /** Remembers the statistics measured for {@code input}, replacing older ones. */
    public void put(InputIdentity input, InputStatistics statistics) {
        if (statistics == null) {
            throw new IllegalArgumentException("statistics of " + input + " must not be null");
        }
        cache.put(input, statistics);
    }

    /** Forgets {@code input} (its owner knows it changed). */
    public void invalidate(InputIdentity input) {
        cache.invalidate(input);
    }

    public long hits() {
        return cache.stats().hitCount();
    }

    public long misses() {
        return cache.stats().missCount();
    }

    /** Hits over lookups, 1.0 before the first lookup (Caffeine's convention). */
    public double hitRate() {
        return cache.stats().hitRate();
    }

    public long evictions() {
        return cache.stats().evictionCount();
    }

    /** The number of inputs held (approximate while other threads write). */
    public long size() {
        return cache.estimatedSize();
    }

    /** The weight held now, in bytes; at most {@link #maximumBytes()} once maintenance has run. */
    public long weightBytes() {
        cache.cleanUp();
        return cache.policy().eviction().orElseThrow().weightedSize().orElseThrow();
    }

    public long maximumBytes() {
        return maximumBytes;
    }
}
