package dev.spilljoin.spill;

import java.util.ArrayList;
import java.util.List;

/**
 * A named claim on memory, in a tree: a join holds a root reservation with a hard limit, and opens children per
 * phase, partition or recursion level (PostgreSQL's batch memory context idea: close the child and everything it
 * held is gone).
 *
 * <p>Algorithm: {@link #tryGrow} walks up to the root and either grants the whole request on every level or changes
 * nothing; a refusal is the join's signal to spill. It never waits and never overruns. Beyond the root's guaranteed
 * minimum a root may ask a shared {@link MemoryPool} for more; the pool may refuse too.
 *
 * <p>Invariants:
 * <ul>
 *   <li>{@code reserved() <= limit()} on the root at every instant, so the root's {@link #peakReserved()} is at most
 *       its limit;</li>
 *   <li>a node's reserved bytes include its children's; {@code allocated() <= reserved()} on every node, because
 *       {@link NativeMemory} refuses (with an {@link IllegalStateException}) to allocate or map bytes that are not
 *       reserved;</li>
 *   <li>{@link #close()} frees every page still allocated under this node, closes the children and returns the bytes
 *       to the parent; it is idempotent and is the single cleanup path.</li>
 * </ul>
 * All methods lock the root, so the workers of one join may share a tree.
 */
public final class MemoryReservation implements AutoCloseable {
    private final String name;
    private final MemoryReservation parent;
    private final MemoryReservation root;
    private final long limit;
    private final MemoryPool pool;
    private final long guaranteed;
    private final List<MemoryReservation> children = new ArrayList<>();
    private final List<NativeMemory.Allocation> allocations = new ArrayList<>();
    private long reserved;
    private long allocated;
    private long peak;
    private boolean closed;

    private MemoryReservation(String name, MemoryReservation parent, long limit, MemoryPool pool, long guaranteed) {
        this.name = name;
        this.parent = parent;
        this.root = parent == null ? this : parent.root;
        this.limit = limit;
        this.pool = pool;
        this.guaranteed = guaranteed;
    }

    /** A standalone root with a hard limit of {@code limitBytes} (a join's work_mem). */
    public static MemoryReservation root(String name, long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("memory limit of '" + name + "' must be positive, got " + limitBytes);
        }
        return new MemoryReservation(name, null, limitBytes, null, limitBytes);
    }

    /** A root that holds {@code guaranteed} bytes of {@code pool} already and may ask it for up to {@code limit}. */
    static MemoryReservation pooledRoot(String name, MemoryPool pool, long guaranteed, long limit) {
        return new MemoryReservation(name, null, limit, pool, guaranteed);
    }

    /** Opens a child that draws from this reservation; closing the child returns everything it held. */
    public MemoryReservation newChild(String childName) {
        return newChild(childName, Long.MAX_VALUE);
    }

    /**
     * Opens a child that draws from this reservation and may hold at most {@code limitBytes} itself (with its own
     * children): a worker's share of a join's budget, so that workers sharing a budget cannot take each other's
     * room. Closing the child returns everything it held.
     */
    public MemoryReservation newChild(String childName, long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("memory limit of '" + childName + "' must be positive, got " + limitBytes);
        }
        synchronized (root) {
            checkOpen();
            MemoryReservation child = new MemoryReservation(name + "/" + childName, this, limitBytes, null, 0);
            children.add(child);
            return child;
        }
    }

    /**
     * Reserves {@code bytes} more, or changes nothing and returns false if that would pass the root's limit (or the
     * shared pool refuses). A refused reservation is the caller's signal to spill.
     */
    public boolean tryGrow(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot grow by negative bytes: " + bytes);
        }
        synchronized (root) {
            checkOpen();
            if (bytes == 0) {
                return true;
            }
            long newRootTotal = root.reserved + bytes;
            if (newRootTotal < 0 || bytes > headroomLocked()) {
                return false;
            }
            if (root.pool != null && newRootTotal > root.guaranteed) {
                long beyond = newRootTotal - Math.max(root.reserved, root.guaranteed);
                if (!root.pool.tryTake(beyond)) {
                    return false;
                }
            }
            for (MemoryReservation node = this; node != null; node = node.parent) {
                node.reserved += bytes;
                node.peak = Math.max(node.peak, node.reserved);
            }
            assert invariantsHold();
            return true;
        }
    }

    /**
     * Returns {@code bytes} of this reservation; never below what is still allocated by this node or reserved by
     * its children (those bytes belong to them).
     */
    public void shrink(long bytes) {
        synchronized (root) {
            long held = allocated + childReserved();
            if (bytes < 0 || bytes > reserved - held) {
                throw new IllegalStateException("cannot shrink '" + name + "' by " + bytes + " bytes: it reserves "
                        + reserved + " of which " + allocated + " are allocated and " + childReserved()
                        + " are reserved by its children");
            }
            release(bytes);
            assert invariantsHold();
        }
    }

    /**
     * Moves {@code bytes} this node reserves but does not use (not allocated, not its children's) to {@code target}
     * in the same tree, at once: the root's total does not change, so no other reservation can take them in between
     * (a share set aside for a spill writer handed to the writer while other workers reserve pages).
     */
    public void transferTo(MemoryReservation target, long bytes) {
        synchronized (root) {
            checkOpen();
            target.checkOpen();
            if (target.root != root) {
                throw new IllegalArgumentException("cannot move bytes from '" + name + "' to '" + target.name
                        + "': they are in different trees");
            }
            long unused = reserved - allocated - childReserved();
            if (bytes < 0 || bytes > unused) {
                throw new IllegalStateException("cannot move " + bytes + " bytes from '" + name + "': only " + unused
                        + " of its " + reserved + " reserved bytes are unused");
            }
            for (MemoryReservation node = this; node != null; node = node.parent) {
                node.reserved -= bytes;
            }
            for (MemoryReservation node = target; node != null; node = node.parent) {
                node.reserved += bytes;
                node.peak = Math.max(node.peak, node.reserved);
            }
            assert invariantsHold();
        }
    }

    /**
     * The accounting invariants of this node's whole tree, checked after every change when assertions are on
     * (always in tests): reserved covers allocated plus the children's reserved bytes, and the root is within its
     * limit.
     */
    private boolean invariantsHold() {
        for (MemoryReservation node = this; node != null; node = node.parent) {
            if (node.allocated < 0 || node.reserved < node.allocated + node.childReserved()) {
                throw new AssertionError("memory accounting broken at '" + node.name + "': reserved " + node.reserved
                        + " < allocated " + node.allocated + " + children " + node.childReserved());
            }
        }
        if (root.reserved > root.limit) {
            throw new AssertionError("memory accounting broken: '" + root.name + "' reserves " + root.reserved
                    + " over its limit " + root.limit);
        }
        return true;
    }

    private void release(long bytes) {
        if (bytes == 0) {
            return;
        }
        long before = root.reserved;
        for (MemoryReservation node = this; node != null; node = node.parent) {
            node.reserved -= bytes;
        }
        if (root.pool != null) {
            long overBefore = Math.max(0, before - root.guaranteed);
            long overAfter = Math.max(0, root.reserved - root.guaranteed);
            root.pool.give(overBefore - overAfter);
        }
    }

    /** Bytes reserved by this node and its children. */
    public long reserved() {
        synchronized (root) {
            return reserved;
        }
    }

    /** Bytes allocated or mapped through {@link NativeMemory} by this node itself (not its children). */
    public long allocated() {
        synchronized (root) {
            return allocated;
        }
    }

    /** Reserved bytes not yet allocated by this node itself. */
    public long available() {
        synchronized (root) {
            return reserved - allocated - childReserved();
        }
    }

    private long childReserved() {
        long sum = 0;
        for (MemoryReservation child : children) {
            sum += child.reserved;
        }
        return sum;
    }

    /** The most this node ever reserved (for the root: never above {@link #limit()}). */
    public long peakReserved() {
        synchronized (root) {
            return peak;
        }
    }

    /** The root's hard limit; bytes that can still be reserved anywhere in the tree, ignoring a pool. */
    public long limit() {
        return root.limit;
    }

    /** Bytes this node could still be granted: the least room left under any limit from it up to the root. */
    public long headroom() {
        synchronized (root) {
            return headroomLocked();
        }
    }

    private long headroomLocked() {
        long room = Long.MAX_VALUE;
        for (MemoryReservation node = this; node != null; node = node.parent) {
            room = Math.min(room, node.limit - node.reserved);
        }
        return room;
    }

    public String name() {
        return name;
    }

    public boolean isClosed() {
        synchronized (root) {
            return closed;
        }
    }

    void recordAllocation(NativeMemory.Allocation allocation) {
        synchronized (root) {
            checkOpen();
            long size = allocation.size();
            if (allocated + size > reserved - childReserved()) {
                throw new IllegalStateException("'" + name + "' would allocate " + (allocated + size)
                        + " bytes but reserves only " + (reserved - childReserved())
                        + " for itself: reserve before allocating");
            }
            allocated += size;
            allocations.add(allocation);
            assert invariantsHold();
        }
    }

    void recordFree(NativeMemory.Allocation allocation) {
        synchronized (root) {
            if (allocations.remove(allocation)) {
                allocated -= allocation.size();
                assert invariantsHold();
            }
        }
    }

    /**
     * Frees all pages still allocated under this node, closes its children, returns its bytes to the parent (and a
     * root's to its pool). Idempotent; safe in any state, after an exception too.
     */
    @Override
    public void close() {
        synchronized (root) {
            if (closed) {
                return;
            }
            for (MemoryReservation child : new ArrayList<>(children)) {
                child.close();
            }
            for (NativeMemory.Allocation allocation : new ArrayList<>(allocations)) {
                allocation.close();
            }
            closed = true;
            if (parent != null) {
                parent.children.remove(this);
                release(reserved);
            } else {
                release(reserved);
                if (pool != null) {
                    pool.give(guaranteed);
                }
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("memory reservation '" + name + "' is closed");
        }
    }

    @Override
    public String toString() {
        synchronized (root) {
            return "MemoryReservation[" + name + ", reserved=" + reserved + ", allocated=" + allocated + ", limit="
                    + root.limit + "]";
        }
    }
}
