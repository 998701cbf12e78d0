package dev.spilljoin.cli;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * The heap buffers of one Parquet writer, kept when parquet-java releases them and handed out again: its open pages'
 * slabs are released after every page and its row group's compressed pages after every row group, so without reuse
 * each row group's worth of buffers is new garbage that lives long enough to reach the old generation, and the small
 * heap {@code bin/spilljoin} runs with would collect it in full collections over and over.
 *
 * <p>Algorithm: a request is rounded up to a size class (a power of two up to {@value #LINEAR_FROM} bytes, then a
 * multiple of it), served from that class's free arrays when there is one, else by a new array of the class; the
 * caller gets a buffer of exactly the size asked for over that array ({@link ByteBuffer#slice}: capacity = size,
 * array offset 0). {@link #release} puts the buffer's array back in its class. Invariants: an array is either handed
 * out or free, never both (a second release of the same buffer is ignored, so a double release cannot hand one array
 * to two users); the free arrays total at most {@code maxFreeBytes}, and none is larger than
 * {@code maxKeptArrayBytes} (any other released array is left to the garbage collector: an array a page of one value
 * of megabytes grew is not kept for the next such value, which a run of them would otherwise keep, one free array per
 * value, up to the whole bound). Used by one thread, as its writer is.
 */
final class RecyclingAllocator implements ByteBufferAllocator {
    static final int LINEAR_FROM = 64 << 10;

    private final long maxFreeBytes;
    private final int maxKeptArrayBytes;
    private final Map<Integer, ArrayDeque<byte[]>> free = new HashMap<>();
    private final Set<byte[]> freeArrays = Collections.newSetFromMap(new IdentityHashMap<>());
    private long freeBytes;

    /**
     * An allocator keeping at most {@code maxFreeBytes} of released arrays for reuse, each of at most
     * {@code maxKeptArrayBytes}.
     */
    RecyclingAllocator(long maxFreeBytes, int maxKeptArrayBytes) {
        this.maxFreeBytes = maxFreeBytes;
        this.maxKeptArrayBytes = maxKeptArrayBytes;
    }

    @Override
    public ByteBuffer allocate(int size) {
        int capacity = sizeClass(size);
        ArrayDeque<byte[]> arrays = free.get(capacity);
        byte[] array = arrays == null ? null : arrays.poll();
        if (array == null) {
            array = new byte[capacity];
        } else {
            freeArrays.remove(array);
            freeBytes -= capacity;
        }
        return ByteBuffer.wrap(array, 0, size).slice();
    }

    @Override
    public void release(ByteBuffer buffer) {
        if (!buffer.hasArray()) {
            return;
        }
        byte[] array = buffer.array();
        if (array.length != sizeClass(array.length) || array.length > maxKeptArrayBytes
                || freeBytes + array.length > maxFreeBytes || !freeArrays.add(array)) {
            return;
        }
        free.computeIfAbsent(array.length, c -> new ArrayDeque<>()).push(array);
        freeBytes += array.length;
    }

    @Override
    public boolean isDirect() {
        return false;
    }

    /** Bytes held in free arrays, for tests. */
    long freeBytes() {
        return freeBytes;
    }

    /** The size of the largest free array (0 with none), for tests. */
    int largestFreeArray() {
        int largest = 0;
        for (Map.Entry<Integer, ArrayDeque<byte[]>> arrays : free.entrySet()) {
            largest = arrays.getValue().isEmpty() ? largest : Math.max(largest, arrays.getKey());
        }
        return largest;
    }

    static int sizeClass(int size) {
        if (size <= LINEAR_FROM) {
            return Math.max(16, Integer.highestOneBit(Math.max(1, size - 1)) << 1);
        }
        return (int) Math.min(Integer.MAX_VALUE - 8, ((long) size + LINEAR_FROM - 1) / LINEAR_FROM * LINEAR_FROM);
    }
}
