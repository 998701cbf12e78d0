package dev.spilljoin.spill;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.posix.PosixAPI;
import sun.misc.Unsafe;

/**
 * The one gate through which off-heap memory is allocated (and, by the spill files, mapped), plus raw access to it.
 *
 * <p>Invariant: every allocation is recorded against a {@link MemoryReservation} before the memory exists, and the
 * reservation refuses (with an {@link IllegalStateException}) an allocation its reserved bytes do not cover, so
 * under-reporting is impossible rather than unlikely. Freeing is synchronous: the bytes are gone before they are
 * counted free.
 *
 * <p>The static accessors compile to single machine loads and stores (no bounds checks): callers own the bounds.
 */
public final class NativeMemory {
    static {
        ChronicleOs.load(); // before Chronicle's first use here: see there
    }

    private static final Unsafe UNSAFE = UnsafeMemory.UNSAFE;
    private static final long BYTE_ARRAY_BASE = Unsafe.ARRAY_BYTE_BASE_OFFSET;
    private static final long LONG_ARRAY_BASE = Unsafe.ARRAY_LONG_BASE_OFFSET;
    /** What {@link #getLongOrZero} and its narrower forms read instead of address 0. */
    private static final long[] ZERO = new long[1];
    private static final long INT_ARRAY_BASE = Unsafe.ARRAY_INT_BASE_OFFSET;
    /** Array copies shorter than this go by longs ({@link #copyShort}), longer ones through Unsafe.copyMemory. */
    private static final int WORD_COPY_BELOW = 64;
    /** Allocations of at least this many bytes are mapped 2 MiB-aligned and backed by transparent huge pages. */
    public static final long HUGE_PAGE = 2L << 20;
    /**
     * Allocations of at least this many bytes are anonymous mappings of their own, kept for reuse once freed
     * ({@link MappingCache}); smaller ones come from malloc, whose free lists keep them.
     */
    public static final long MAPPED_FROM = 64L << 10;
    private static final int PROT_READ_WRITE = 0x3;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x22;
    private static final int MADV_HUGEPAGE = 14;
    /** The kernel's page: a mapping's size is a whole number of these. */
    public static final long SMALL_PAGE = 4096;
    /** The system property that makes {@link #allocateUninitialized} fill its memory with {@link #POISON}. */
    public static final String POISON_PROPERTY = "spilljoin.poisonUninitializedMemory";
    /** What uninitialized memory holds under {@link #POISON_PROPERTY}. */
    static final byte POISON = (byte) 0xA5;
    private static final boolean POISON_UNINITIALIZED = Boolean.getBoolean(POISON_PROPERTY);

    private NativeMemory() {
    }

    /**
     * Loads and initializes what off-heap memory needs (Chronicle Core, tens of milliseconds) ahead of the first
     * allocation, which would otherwise wait for it: a process may call this on a spare thread while it starts. The
     * work is this class's initialization, which runs once; a thread that needs the class meanwhile waits for it.
     */
    public static void initialize() {
    }

    /** Allocates {@code bytes} of zeroed off-heap memory owned by {@code owner}, which must have them reserved. */
    public static NativePage allocate(MemoryReservation owner, long bytes) {
        return new NativePage(owner, bytes, true);
    }

    /**
     * Allocates {@code bytes} of off-heap memory owned by {@code owner} (which must have them reserved) whose bytes
     * are undefined: what a freed page left there, or fresh zeros. For a caller that writes every byte before it
     * reads it (rows appended to row pages): zeroing is a pass over the whole allocation, and a join's row pages are
     * allocated whole however few rows they get. Under the system property {@value #POISON_PROPERTY}{@code =true}
     * (the tests' JVMs) such memory is filled with {@code 0xA5} bytes instead, so that a read of a byte nobody wrote
     * finds garbage rather than zeros that might pass for a value.
     */
    public static NativePage allocateUninitialized(MemoryReservation owner, long bytes) {
        return new NativePage(owner, bytes, false);
    }

    /**
     * Unmaps the mappings that freed pages of {@value #MAPPED_FROM} bytes and up left for reuse (at most 256 MiB, set
     * by the system property {@value MappingCache#CAPACITY_PROPERTY}; each unmapped anyway after 10 s unused); the
     * bytes unmapped. For a process that wants its memory back at once, e.g. after its last join for a while. (Named
     * when only huge-page mappings were kept.)
     */
    public static long releaseCachedHugePages() {
        return MappingCache.process().releaseAll();
    }

    /** Bytes of mappings kept for reuse (see {@link #releaseCachedHugePages}). */
    public static long cachedHugePageBytes() {
        return MappingCache.process().cachedBytes();
    }

    /**
     * The operating system's anonymous mappings: from {@link #HUGE_PAGE} bytes up 2 MiB-aligned and advised for
     * transparent huge pages, smaller ones as the kernel places them.
     */
    static final MappingCache.Mapper SYSTEM = new MappingCache.Mapper() {
        @Override
        public long map(long length) {
            PosixAPI posix = PosixAPI.posix();
            if (length < HUGE_PAGE) {
                long address = posix.mmap(0, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
                return address == -1 ? 0 : address;
            }
            long raw = posix.mmap(0, length + HUGE_PAGE, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
            if (raw == -1 || raw == 0) {
                return 0;
            }
            long start = roundUp(raw, HUGE_PAGE);
            if (start > raw) {
                posix.munmap(raw, start - raw);
            }
            long tail = raw + HUGE_PAGE - start;
            if (tail > 0) {
                posix.munmap(start + length, tail);
            }
            posix.madvise(start, length, MADV_HUGEPAGE);
            return start;
        }

        @Override
        public void unmap(long address, long length) {
            PosixAPI.posix().munmap(address, length);
        }
    };

    /**
     * Something that holds off-heap or mapped bytes on behalf of a reservation. Subclasses register in their
     * constructor (before acquiring the bytes) and release them in {@link #free()}.
     */
    public abstract static class Allocation implements AutoCloseable {
        private final MemoryReservation owner;
        private final long size;
        private boolean closed;

        protected Allocation(MemoryReservation owner, long size) {
            if (size < 0) {
                throw new IllegalArgumentException("negative allocation size " + size);
            }
            this.owner = owner;
            this.size = size;
            owner.recordAllocation(this);
        }

        public final long size() {
            return size;
        }

        public final MemoryReservation owner() {
            return owner;
        }

        /** Releases the bytes; called once, by {@link #close()}. */
        protected abstract void free();

        /** Frees the bytes and tells the owner they are gone; idempotent. */
        @Override
        public final void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            try {
                free();
            } finally {
                owner.recordFree(this);
            }
        }

        public final synchronized boolean isClosed() {
            return closed;
        }
    }

    /**
     * A fixed-size block of off-heap memory at a stable address, zeroed unless allocated uninitialized
     * ({@link #allocateUninitialized}). Below {@link #MAPPED_FROM} bytes it is a Chronicle native bytes store
     * (malloc). From there up it is an anonymous mapping, and from {@link #HUGE_PAGE} up one aligned to 2 MiB
     * and advised {@code MADV_HUGEPAGE}, so that the kernel backs it with transparent huge pages (also in THP's
     * "madvise" mode): random loads into hash tables and row pages then miss the TLB far less, which on a VM
     * (nested paging) about halves their latency (docs/PERFORMANCE.md). The mapping
     * is exactly the requested bytes rounded up to 4 KiB (the head and tail of the over-sized mapping used for the
     * alignment are unmapped at once): one a freed page of the same length left ({@link MappingCache}), zeroed here
     * unless uninitialized, or else fresh zeroed pages from the kernel. Freed, it goes back to that cache. If the
     * kernel refuses the mapping, the block falls back to malloc.
     */
    public static final class NativePage extends Allocation {
        private BytesStore<?, Void> store;
        private final long address;
        private final long mappedBytes;

        private NativePage(MemoryReservation owner, long bytes, boolean zeroed) {
            super(owner, bytes);
            long length = roundUp(bytes, SMALL_PAGE);
            long mapped = bytes >= MAPPED_FROM ? map(owner, length, zeroed) : 0;
            if (mapped != 0) {
                this.address = mapped;
                this.mappedBytes = length;
                return;
            }
            BytesStore<?, Void> s;
            try {
                s = BytesStore.nativeStoreWithFixedCapacity(Math.max(bytes, 1));
            } catch (RuntimeException | Error e) {
                // The allocation never existed: unrecord it so the owner's books stay right.
                owner.recordFree(this);
                throw e;
            }
            this.store = s;
            this.address = s.addressForWrite(0);
            this.mappedBytes = 0;
            initialize(address, bytes, zeroed, false);
        }

        /**
         * A mapping of {@code length} bytes: a kept one (zeroed here if {@code zeroed}), else a fresh one (zeroed by
         * the kernel); 0 if the kernel refused it. A failure (the cache's capacity property unreadable) unrecords the
         * allocation first.
         */
        private long map(MemoryReservation owner, long length, boolean zeroed) {
            try {
                MappingCache cache = MappingCache.process();
                long kept = cache.take(length);
                long mapped = kept != 0 ? kept : cache.map(length);
                if (mapped != 0) {
                    initialize(mapped, length, zeroed, kept == 0);
                }
                return mapped;
            } catch (RuntimeException e) {
                owner.recordFree(this);
                throw e;
            }
        }

        /**
         * Zeroes the {@code bytes} at {@code address} if {@code zeroed} (unless {@code fresh}: the kernel's new pages
         * are zeros), else poisons them under {@link #POISON_PROPERTY}.
         */
        private static void initialize(long address, long bytes, boolean zeroed, boolean fresh) {
            if (zeroed && !fresh) {
                UNSAFE.setMemory(address, bytes, (byte) 0);
            } else if (!zeroed && POISON_UNINITIALIZED) {
                UNSAFE.setMemory(address, bytes, POISON);
            }
        }

        public long address() {
            return address;
        }

        @Override
        protected void free() {
            if (mappedBytes > 0) {
                MappingCache.process().release(address, mappedBytes);
            } else {
                store.releaseLast();
                store = null;
            }
        }
    }

    private static long roundUp(long value, long multiple) {
        return (value + multiple - 1) & -multiple;
    }

    public static long getLong(long address) {
        return UNSAFE.getLong(address);
    }

    /**
     * The long at {@code address}, or 0 when {@code address} is 0, without a branch: that read goes to a zero long
     * on the heap instead, so that a loop reading values of which some are missing (address 0: a NULL, an unmatched
     * row) keeps its loads, each a likely cache miss, in flight together instead of behind a mispredicted branch.
     */
    public static long getLongOrZero(long address) {
        boolean none = address == 0;
        return UNSAFE.getLong(none ? ZERO : null, none ? LONG_ARRAY_BASE : address);
    }

    /** The int at {@code address}, or 0 when {@code address} is 0, as {@link #getLongOrZero} reads. */
    public static int getIntOrZero(long address) {
        boolean none = address == 0;
        return UNSAFE.getInt(none ? ZERO : null, none ? LONG_ARRAY_BASE : address);
    }

    /** The double at {@code address}, or 0.0 when {@code address} is 0, as {@link #getLongOrZero} reads. */
    public static double getDoubleOrZero(long address) {
        boolean none = address == 0;
        return UNSAFE.getDouble(none ? ZERO : null, none ? LONG_ARRAY_BASE : address);
    }

    public static void putLong(long address, long value) {
        UNSAFE.putLong(address, value);
    }

    /**
     * Sets {@code bits} in the long at {@code address}, atomically with respect to other threads setting bits in it;
     * reads first, so a word whose bits are already set is never written (no cache line bouncing between cores).
     */
    public static void orLongAtomic(long address, long bits) {
        getAndOrLongAtomic(address, bits);
    }

    /** {@link #orLongAtomic}, returning the long as it was before (to tell whether the bits were set already). */
    public static long getAndOrLongAtomic(long address, long bits) {
        long old = UNSAFE.getLongVolatile(null, address);
        while ((old & bits) != bits && !UNSAFE.compareAndSwapLong(null, address, old, old | bits)) {
            old = UNSAFE.getLongVolatile(null, address);
        }
        return old;
    }

    public static int getInt(long address) {
        return UNSAFE.getInt(address);
    }

    public static void putInt(long address, int value) {
        UNSAFE.putInt(address, value);
    }

    public static short getShort(long address) {
        return UNSAFE.getShort(address);
    }

    public static void putShort(long address, short value) {
        UNSAFE.putShort(address, value);
    }

    public static byte getByte(long address) {
        return UNSAFE.getByte(address);
    }

    public static void putByte(long address, byte value) {
        UNSAFE.putByte(address, value);
    }

    public static double getDouble(long address) {
        return UNSAFE.getDouble(address);
    }

    public static void putDouble(long address, double value) {
        UNSAFE.putDouble(address, value);
    }

    /** Copies {@code length} bytes between off-heap addresses (the ranges must not overlap). */
    public static void copy(long from, long to, long length) {
        UNSAFE.copyMemory(from, to, length);
    }

    public static void fill(long address, long length, byte value) {
        UNSAFE.setMemory(address, length, value);
    }

    /**
     * Copies {@code from[offset .. offset + length)} to {@code to}. A value shorter than {@value #WORD_COPY_BELOW}
     * bytes (a string field, mostly) is copied by longs ({@link #copyShort}): {@code Unsafe.copyMemory} checks its
     * array argument's class on every call, which costs more than copying a few bytes.
     */
    public static void copyFromArray(byte[] from, int offset, long to, int length) {
        if (length < WORD_COPY_BELOW) {
            copyShort(from, BYTE_ARRAY_BASE + offset, null, to, length);
        } else {
            UNSAFE.copyMemory(from, BYTE_ARRAY_BASE + offset, null, to, length);
        }
    }

    /** Copies {@code length} bytes at {@code from} to {@code to[offset ..]}, as {@link #copyFromArray} does. */
    public static void copyToArray(long from, byte[] to, int offset, int length) {
        if (length < WORD_COPY_BELOW) {
            copyShort(null, from, to, BYTE_ARRAY_BASE + offset, length);
        } else {
            UNSAFE.copyMemory(null, from, to, BYTE_ARRAY_BASE + offset, length);
        }
    }

    /**
     * Copies {@code length} (below {@value #WORD_COPY_BELOW}) bytes from {@code (fromBase, from)} to {@code (toBase,
     * to)} (a byte array and an offset in it, or null and an address): by longs, the last one overlapping the one
     * before when the length is not a multiple of 8, so that nothing outside the two ranges is read or written; a
     * length below 8 byte by byte. The callers' ranges lie within their arrays.
     */
    private static void copyShort(Object fromBase, long from, Object toBase, long to, int length) {
        if (length < Long.BYTES) {
            for (int i = 0; i < length; i++) {
                UNSAFE.putByte(toBase, to + i, UNSAFE.getByte(fromBase, from + i));
            }
            return;
        }
        int last = length - Long.BYTES;
        for (int i = 0; i < last; i += Long.BYTES) {
            UNSAFE.putLong(toBase, to + i, UNSAFE.getLong(fromBase, from + i));
        }
        UNSAFE.putLong(toBase, to + last, UNSAFE.getLong(fromBase, from + last));
    }

    public static void copyFromLongs(long[] from, int index, long to, int count) {
        UNSAFE.copyMemory(from, LONG_ARRAY_BASE + 8L * index, null, to, 8L * count);
    }

    public static void copyToLongs(long from, long[] to, int index, int count) {
        UNSAFE.copyMemory(null, from, to, LONG_ARRAY_BASE + 8L * index, 8L * count);
    }

    public static void copyFromInts(int[] from, int index, long to, int count) {
        UNSAFE.copyMemory(from, INT_ARRAY_BASE + 4L * index, null, to, 4L * count);
    }

    public static void copyToInts(long from, int[] to, int index, int count) {
        UNSAFE.copyMemory(null, from, to, INT_ARRAY_BASE + 4L * index, 4L * count);
    }
}
