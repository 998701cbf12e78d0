package dev.spilljoin.spill;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The huge-page mappings of freed off-heap pages, kept mapped for the next page of the same length: what a malloc
 * does with freed memory, for the pages {@link NativeMemory} maps itself (2 MiB and up).
 *
 * <p>Why: a fresh anonymous mapping's first touch costs the kernel's zeroing of every page, and on a VM whose balloon
 * driver reports free memory to the host ({@code virtio_balloon}) the host's backing of it again, many times what
 * zeroing a kept mapping costs (docs/PERFORMANCE.md has the figures). A process that joins again and again (an
 * engine embedding the operator, Spark's tasks in one executor, the bench's runs) otherwise pays that for every
 * join's row pages and table, a large share of an in-memory build.
 *
 * <p>Invariants, all under this object's lock:
 * <ul>
 *   <li>a cached mapping is in no one's use, and {@link #take} hands it to one caller only;</li>
 *   <li>lengths match exactly: an allocation gets a mapping of its own length (a whole number of 4 KiB pages), so
 *       the bytes its reservation counts are the bytes mapped for it;</li>
 *   <li>the cache never raises the process's footprint: before a fresh mapping ({@link #map}), cached mappings are
 *       unmapped, oldest first, until the mappings in use, the cached ones and the new one together fit within the
 *       most that were ever in use at once, or nothing is cached;</li>
 *   <li>at most {@code capacity} bytes are cached (the oldest go first); a mapping cached for longer than
 *       {@code idleNanos} is unmapped by a daemon thread that runs only while something is cached.</li>
 * </ul>
 * A mapping is handed out as it was left: the caller zeroes it, which costs a fraction of a fresh mapping's first
 * touch.
 */
final class HugePageCache {
    /** The system property that sets the process's cache capacity in bytes (0: no cache). */
    static final String CAPACITY_PROPERTY = "spilljoin.hugePageCacheBytes";
    private static final long DEFAULT_CAPACITY = 256L << 20;
    /** How long a cached mapping may wait for its next use (as jemalloc's default decay). */
    private static final long IDLE_NANOS = 10_000_000_000L;

    /** Maps and unmaps anonymous memory: the operating system's calls in {@link NativeMemory}, recorded in tests. */
    interface Mapper {
        /** A fresh mapping of {@code length} bytes, or 0 if refused. */
        long map(long length);

        void unmap(long address, long length);
    }

    /** The process's cache (null until its first use). */
    private static volatile HugePageCache process;

    private record Cached(long address, long length, long cachedAtNanos) {
    }

    private final long capacity;
    private final long idleNanos;
    private final Mapper mapper;
    /** Cached mappings, the most recently cached first (the likeliest to be backed still). */
    private final ArrayDeque<Cached> cached = new ArrayDeque<>();
    private long cachedBytes;
    private long inUseBytes;
    private long peakInUseBytes;
    private boolean reaperRunning;

    HugePageCache(long capacity, long idleNanos, Mapper mapper) {
        this.capacity = capacity;
        this.idleNanos = idleNanos;
        this.mapper = mapper;
    }

    /**
     * The process's cache over the operating system's mappings, made at its first use with the capacity that
     * {@value #CAPACITY_PROPERTY} gives; an {@link IllegalArgumentException} naming the property if it is not a byte
     * count (at every use: the property is read again until it is one).
     */
    static HugePageCache process() {
        HugePageCache cache = process;
        if (cache == null) {
            synchronized (HugePageCache.class) {
                cache = process;
                if (cache == null) {
                    cache = new HugePageCache(capacity(System.getProperty(CAPACITY_PROPERTY)), IDLE_NANOS,
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
                + " more (0 turns the huge-page cache off), not '" + value + "'");
    }

    /** A cached mapping of exactly {@code length} bytes, now in the caller's use, or 0 if none is cached. */
    synchronized long take(long length) {
        for (Iterator<Cached> it = cached.iterator(); it.hasNext(); ) {
            Cached c = it.next();
            if (c.length == length) {
                it.remove();
                cachedBytes -= length;
                inUse(length);
                return c.address;
            }
        }
        return 0;
    }

    /**
     * A fresh mapping of {@code length} bytes in the caller's use, or 0 if the system refused it; cached mappings are
     * unmapped first as far as the footprint rule (class comment) needs.
     */
    synchronized long map(long length) {
        while (!cached.isEmpty() && inUseBytes + length + cachedBytes > Math.max(peakInUseBytes, inUseBytes + length)) {
            unmap(cached.removeLast());
        }
        long address = mapper.map(length);
        if (address != 0) {
            inUse(length);
        }
        return address;
    }

    /** Takes back a mapping of {@code length} bytes that {@link #take} or {@link #map} gave and its user is done with. */
    synchronized void release(long address, long length) {
        inUseBytes -= length;
        if (length > capacity) {
            mapper.unmap(address, length);
            return;
        }
        cached.addFirst(new Cached(address, length, System.nanoTime()));
        cachedBytes += length;
        while (cachedBytes > capacity) {
            unmap(cached.removeLast());
        }
        if (!reaperRunning) {
            reaperRunning = true;
            Thread reaper = new Thread(this::reapWhileCached, "spilljoin-huge-page-cache");
            reaper.setDaemon(true);
            reaper.start();
        }
    }

    /** Unmaps every mapping cached at or before {@code nowNanos - idleNanos}; the bytes unmapped. */
    synchronized long releaseIdle(long nowNanos) {
        long released = 0;
        while (!cached.isEmpty() && nowNanos - cached.peekLast().cachedAtNanos >= idleNanos) {
            Cached c = cached.removeLast();
            unmap(c);
            released += c.length;
        }
        return released;
    }

    /** Unmaps every cached mapping (the reaper then ends); the bytes unmapped. */
    synchronized long releaseAll() {
        long released = cachedBytes;
        while (!cached.isEmpty()) {
            unmap(cached.removeLast());
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

    private void unmap(Cached c) {
        cachedBytes -= c.length;
        mapper.unmap(c.address, c.length);
    }

    /** The reaper's loop: wakes as the oldest cached mapping comes due, ends once nothing is cached. */
    private synchronized void reapWhileCached() {
        try {
            while (!cached.isEmpty()) {
                long due = cached.peekLast().cachedAtNanos + idleNanos - System.nanoTime();
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
