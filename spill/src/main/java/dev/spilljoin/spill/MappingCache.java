package dev.spilljoin.spill;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The mappings of freed off-heap pages, kept mapped for the next page of the same length: what a malloc does with
 * freed memory, for the pages {@link NativeMemory} maps itself ({@value NativeMemory#MAPPED_FROM} bytes and up; from
 * 2 MiB up huge-page mappings).
 *
 * <p>Why: a fresh anonymous mapping's first touch costs the kernel's zeroing of every page, and on a VM whose balloon
 * driver reports free memory to the host ({@code virtio_balloon}) the host's backing of it again, many times what
 * zeroing a kept mapping costs (docs/PERFORMANCE.md has the figures). A process that joins again and again (an
 * engine embedding the operator, Spark's tasks in one executor, the bench's runs) otherwise pays that for every
 * join's row pages and table, a large share of an in-memory build. Below 2 MiB glibc's malloc would serve such pages
 * from mappings of their own or from heaps that it trims as they are freed (from 128 KiB; on other threads than the
 * first, from their own heaps likewise), so that every join touched its row pages afresh: with two build workers,
 * whose pages of a 32 MB budget are 125 KiB each, a join of W1's million build rows took 3,700 more page faults than
 * with one.
 *
 * <p>Invariants, all under this object's lock:
 * <ul>
 *   <li>a cached mapping is in no one's use, and {@link #take} hands it to one caller only;</li>
 *   <li>lengths match exactly: an allocation gets a mapping of its own length (a whole number of 4 KiB pages), so
 *       the bytes its reservation counts are the bytes mapped for it;</li>
 *   <li>the cache raises the process's footprint by an eighth at most: before a fresh mapping ({@link #map}), cached
 *       mappings are unmapped, oldest first, until the mappings in use, the cached ones and the new one together fit
 *       within the most that were ever in use at once and an eighth of that, or nothing is cached. Without the
 *       eighth, a join that asked for its pages in another order than the join before it (two pages of 1 MiB at
 *       once where the first join held one at a time) made room for the page no mapping matched by unmapping a
 *       page it would ask for next, and that one the next: W1 on two workers mapped a 1 MiB, a 2 MiB, an 8 MiB and a
 *       124 KiB page afresh in every join;</li>
 *   <li>at most {@code capacity} bytes are cached (the oldest go first); a mapping cached for longer than
 *       {@code idleNanos} is unmapped by a daemon thread that runs only while something is cached.</li>
 * </ul>
 * A mapping is handed out as it was left: the caller zeroes it, which costs a fraction of a fresh mapping's first
 * touch.
 */
final class MappingCache {
    /** The system property that sets the process's cache capacity in bytes (0: no cache); named when all were huge. */
    static final String CAPACITY_PROPERTY = "spilljoin.hugePageCacheBytes";
    private static final long DEFAULT_CAPACITY = 256L << 20;
    /** How long a cached mapping may wait for its next use (as jemalloc's default decay). */
    private static final long IDLE_NANOS = 10_000_000_000L;
    /** The cached mappings may take the process's mappings this fraction above their most ever in use. */
    private static final long FOOTPRINT_SLACK_DIVISOR = 8;

    /** Maps and unmaps anonymous memory: the operating system's calls in {@link NativeMemory}, recorded in tests. */
    interface Mapper {
        /** A fresh mapping of {@code length} bytes, or 0 if refused. */
        long map(long length);

        void unmap(long address, long length);
    }

    /** The process's cache (null until its first use). */
    private static volatile MappingCache process;

    private record Cached(long address, long length, long cachedAtNanos) {
    }

    private final long capacity;
    private final long idleNanos;
    private final Mapper mapper;
    /**
     * Cached mappings by length, the most recently cached of each length first (the likeliest to be backed still);
     * a join's pages come in a few lengths, so the oldest of all is found among a few deques' last entries.
     */
    private final Map<Long, ArrayDeque<Cached>> cached = new HashMap<>();
    private long cachedBytes;
    private long inUseBytes;
    private long peakInUseBytes;
    private boolean reaperRunning;

    MappingCache(long capacity, long idleNanos, Mapper mapper) {
        this.capacity = capacity;
        this.idleNanos = idleNanos;
        this.mapper = mapper;
    }

    /**
     * The process's cache over the operating system's mappings, made at its first use with the capacity that
     * {@value #CAPACITY_PROPERTY} gives; an {@link IllegalArgumentException} naming the property if it is not a byte
     * count (at every use: the property is read again until it is one).
     */
    static MappingCache process() {
        MappingCache cache = process;
        if (cache == null) {
            synchronized (MappingCache.class) {
                cache = process;
                if (cache == null) {
                    cache = new MappingCache(capacity(System.getProperty(CAPACITY_PROPERTY)), IDLE_NANOS,
                            NativeMemory.SYSTEM);
                    process = cache;
                }
            }
        }
        return cache;
    }

    /** The capacity {@code value} (the property's text, null when unset) gives. */
    static long capacity(String value) {
        if (value == null) {
            return DEFAULT_CAPACITY;
        }
        try {
            long bytes = Long.parseLong(value.trim());
            if (bytes >= 0) {
                return bytes;
            }
        } catch (NumberFormatException e) {
            // reported below, with what the property must be
        }
        throw new IllegalArgumentException("system property " + CAPACITY_PROPERTY + " must be a number of bytes, 0 or"
                + " more (0 turns the cache of freed mappings off), not '" + value + "'");
    }

    /** A cached mapping of exactly {@code length} bytes, now in the caller's use, or 0 if none is cached. */
    synchronized long take(long length) {
        ArrayDeque<Cached> ofLength = cached.get(length);
        if (ofLength == null) {
            return 0;
        }
        Cached c = ofLength.removeFirst();
        dropIfEmpty(ofLength, length);
        cachedBytes -= length;
        inUse(length);
        return c.address;
    }

    /**
     * A fresh mapping of {@code length} bytes in the caller's use, or 0 if the system refused it; cached mappings are
     * unmapped first as far as the footprint rule (class comment) needs.
     */
    synchronized long map(long length) {
        long bound = Math.max(peakInUseBytes + peakInUseBytes / FOOTPRINT_SLACK_DIVISOR, inUseBytes + length);
        while (!cached.isEmpty() && inUseBytes + length + cachedBytes > bound) {
            unmapOldest();
        }
        long address = mapper.map(length);
        if (address != 0) {
            inUse(length);
        }
        return address;
    }

    /** Takes back a mapping of {@code length} bytes that {@link #take} or {@link #map} gave, its user done with it. */
    synchronized void release(long address, long length) {
        inUseBytes -= length;
        if (length > capacity) {
            mapper.unmap(address, length);
            return;
        }
        Cached freed = new Cached(address, length, System.nanoTime());
        cached.computeIfAbsent(length, l -> new ArrayDeque<>()).addFirst(freed);
        cachedBytes += length;
        while (cachedBytes > capacity) {
            unmapOldest();
        }
        if (!reaperRunning) {
            reaperRunning = true;
            Thread reaper = new Thread(this::reapWhileCached, "spilljoin-mapping-cache");
            reaper.setDaemon(true);
            reaper.start();
        }
    }

    /** Unmaps every mapping cached at or before {@code nowNanos - idleNanos}; the bytes unmapped. */
    synchronized long releaseIdle(long nowNanos) {
        long released = 0;
        while (!cached.isEmpty() && nowNanos - oldest().cachedAtNanos >= idleNanos) {
            released += unmapOldest();
        }
        return released;
    }

    /** Unmaps every cached mapping (the reaper then ends); the bytes unmapped. */
    synchronized long releaseAll() {
        long released = cachedBytes;
        while (!cached.isEmpty()) {
            unmapOldest();
        }
        notifyAll();
        return released;
    }

    synchronized long cachedBytes() {
        return cachedBytes;
    }

    private void inUse(long length) {
        inUseBytes += length;
        peakInUseBytes = Math.max(peakInUseBytes, inUseBytes);
    }

    /** The mapping cached longest ago (the cache is not empty). */
    private Cached oldest() {
        Cached oldest = null;
        for (ArrayDeque<Cached> ofLength : cached.values()) {
            Cached last = ofLength.peekLast();
            if (oldest == null || last.cachedAtNanos - oldest.cachedAtNanos < 0) {
                oldest = last;
            }
        }
        return oldest;
    }

    /** Takes {@link #oldest} out of the cache and unmaps it; its length. */
    private long unmapOldest() {
        Cached oldest = oldest();
        ArrayDeque<Cached> ofLength = cached.get(oldest.length);
        ofLength.removeLast();
        dropIfEmpty(ofLength, oldest.length);
        cachedBytes -= oldest.length;
        mapper.unmap(oldest.address, oldest.length);
        return oldest.length;
    }

    /** Forgets {@code ofLength}, the deque of {@code length}'s mappings, once it holds none. */
    private void dropIfEmpty(ArrayDeque<Cached> ofLength, long length) {
        if (ofLength.isEmpty()) {
            cached.remove(length);
        }
    }

    /** The reaper's loop: wakes as the oldest cached mapping comes due, ends once nothing is cached. */
    private synchronized void reapWhileCached() {
        try {
            while (!cached.isEmpty()) {
                long due = oldest().cachedAtNanos + idleNanos - System.nanoTime();
                if (due > 0) {
                    wait(Math.max(1, due / 1_000_000));
                }
                releaseIdle(System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            reaperRunning = false;
        }
    }
}
