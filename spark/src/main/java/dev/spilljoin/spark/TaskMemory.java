package dev.spilljoin.spark;

import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * A task's claim on Spark's execution memory for its join, registered with the task's {@link TaskMemoryManager}.
 *
 * <p>Algorithm: {@link #acquireUpTo} asks for the target in chunks and stops at the first partial grant, so a task
 * takes at most what Spark's pool gives it without waiting for memory another task holds (Spark grants each of N
 * active tasks up to 1/N of the pool, and blocks a request only while the task holds less than 1/2N). The join
 * then runs under exactly the bytes granted and spills within them; {@link #spill} therefore frees nothing: the
 * join's memory is released as a whole by {@link #releaseAll()} when the task completes.
 *
 * <p>Invariant: {@code getUsed()} equals the bytes acquired and not yet released; after {@link #releaseAll()} it is 0.
 * The mode (on- or off-heap) is the task memory manager's; the join's pages are native memory either way, so on
 * a heap pool this is conservative accounting of bytes that live outside the heap.
 */
final class TaskMemory extends MemoryConsumer {

    TaskMemory(TaskMemoryManager taskMemoryManager) {
        super(taskMemoryManager, taskMemoryManager.getTungstenMemoryMode());
    }

    /** Acquires up to {@code target} bytes in chunks of {@code chunkBytes}; returns the bytes now held. */
    long acquireUpTo(long target, long chunkBytes) {
        while (getUsed() < target) {
            long ask = Math.min(chunkBytes, target - getUsed());
            long got = acquireMemory(ask);
            if (got < ask) {
                break;
            }
        }
        return getUsed();
    }

    /** The join is running inside the memory it holds and spills within it; nothing can be handed back early. */
    @Override
    public long spill(long size, MemoryConsumer trigger) {
        return 0;
    }

    /** Returns every byte to Spark; idempotent. */
    void releaseAll() {
        long used = getUsed();
        if (used > 0) {
            freeMemory(used);
        }
    }
}
