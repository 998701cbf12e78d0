package dev.spilljoin.spill;

/**
 * One global cap shared by many concurrent joins (a database's total work memory).
 *
 * <p>A join opens its root reservation with {@link #openJoin}: it takes its minimum up front, failing fast with a
 * clear error if the pool cannot give even that; beyond its minimum, each growth asks the pool, and a refusal makes
 * the join spill, exactly as its own limit would. Invariant: {@code used() <= capacity()} at every instant.
 */
public final class MemoryPool {
    private final long capacity;
    private long used;
    private long peak;

    public MemoryPool(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("memory pool capacity must be positive, got " + capacityBytes);
        }
        this.capacity = capacityBytes;
    }

    /**
     * Opens a root reservation for one join that holds {@code minimumBytes} at once and may grow to
     * {@code limitBytes} while the pool has room.
     *
     * @throws MemoryExhaustedException if the pool cannot give the minimum now
     */
    public MemoryReservation openJoin(String name, long minimumBytes, long limitBytes) {
        if (minimumBytes < 0 || limitBytes < minimumBytes) {
            throw new IllegalArgumentException("join '" + name + "': need 0 <= minimum (" + minimumBytes
                    + ") <= limit (" + limitBytes + ")");
        }
        if (!tryTake(minimumBytes)) {
            throw new MemoryExhaustedException("join '" + name + "' needs at least " + ByteSize.format(minimumBytes)
                    + " but the shared memory pool has only " + ByteSize.format(free()) + " free of "
                    + ByteSize.format(capacity) + ": run fewer joins at once or raise the pool's capacity");
        }
        return MemoryReservation.pooledRoot(name, this, minimumBytes, limitBytes);
    }

    synchronized boolean tryTake(long bytes) {
        if (bytes > capacity - used) {
            return false;
        }
        used += bytes;
        peak = Math.max(peak, used);
        return true;
    }

    synchronized void give(long bytes) {
        if (bytes < 0 || bytes > used) {
            throw new IllegalStateException("memory pool accounting error: giving back " + bytes + " of " + used);
        }
        used -= bytes;
    }

    public long capacity() {
        return capacity;
    }

    public synchronized long used() {
        return used;
    }

    public synchronized long free() {
        return capacity - used;
    }

    public synchronized long peakUsed() {
        return peak;
    }
}
