package dev.spilljoin.operator;

import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One probe pass of a spilled pair's task (an {@link InMemoryPairJoin}, or a chunk of a {@link HeavyHitterNestedLoop})
 * over its table: the probe files' blocks handed out one at a time to the pass's {@link PairProbeLane}s: the task's
 * own lane, and the lanes of pair workers that found no pair to take and join in ({@link SpilledPairs#take}). So
 * one large pair, such as the heavy keys' pair, is probed on every worker, a block of its probe file at a time.
 *
 * <p>Algorithm: one reader at a time over the files in turn (each deleted once read, as every spill file is), its
 * memory the task's. Shared (the phase has more than one worker), blocks are copied out into the taking lane's own
 * buffer under this object's lock, since the reader's window moves on at the next block: as many consecutive blocks
 * as the buffer surely holds ({@link #laneBufferBytes}: up to {@value #BLOCKS_PER_TAKE} write buffers' worth), so
 * that lanes take the lock once per a few blocks, not per block; else the one lane reads each block in place. A lane
 * that finds no block left detaches; the task's own lane then waits until every helper lane detached
 * ({@link #awaitHelpers}) before the task goes on (its finish scan, its next chunk, freeing its table), so
 * no helper reads a table that is gone, and the barrier makes every helper's MATCHED marks visible to the scan.
 *
 * <p>Invariants: a block goes to exactly one lane; helpers attach only while blocks are left; a helper lane's
 * memory is its own worker's (its buffer, decoder, forwarded file), the table's and the reader's are the task's.
 */
final class SharedProbePass {
    /** Write buffers' worth of blocks a lane's buffer holds: the blocks one take of the lock hands out, at most. */
    static final int BLOCKS_PER_TAKE = 4;

    /** Makes the lane of a worker that joins the pass, in that worker's memory; null when it does not fit there. */
    interface LaneFactory {
        PairProbeLane newLane(SharedProbePass pass, MemoryReservation memory) throws IOException;
    }

    private final JoinContext ctx;
    /** The task's memory: the readers. */
    private final MemoryReservation memory;
    private final ArrayDeque<SpillFile> files = new ArrayDeque<>();
    private final boolean shared;
    private final int maxBlockPayload;
    private final LaneFactory helperLanes;
    /** Files the helper lanes forwarded probe rows to, for the task's next chunk. */
    private final List<SpillFile> forwarded = new ArrayList<>();
    private PartitionReader reader;
    private int helpers;
    private long helperBlocks;
    private boolean drained;

    /**
     * The pass over {@code files} (null entries: no rows), reading in {@code memory}; {@code shared}: other workers'
     * lanes may join, made by {@code helperLanes}.
     */
    SharedProbePass(JoinContext ctx, MemoryReservation memory, List<SpillFile> files, boolean shared,
                    LaneFactory helperLanes) {
        this.ctx = ctx;
        this.memory = memory;
        this.shared = shared;
        this.helperLanes = helperLanes;
        int largest = 0;
        for (SpillFile file : files) {
            if (file != null) {
                this.files.add(file);
                largest = Math.max(largest, file.maxBlockPayload());
            }
        }
        this.maxBlockPayload = largest;
        this.drained = this.files.isEmpty();
    }

    /** The largest block of the pass's files. */
    int maxBlockPayload() {
        return maxBlockPayload;
    }

    /** The buffer of a lane of this pass: none unless shared. */
    long laneBufferBytes() {
        return shared && maxBlockPayload > 0 ? laneBufferBytes(ctx, maxBlockPayload) : 0;
    }

    /**
     * The buffer of a lane of a shared pass whose blocks are of up to {@code maxBlock} bytes: the larger of one such
     * block and {@value #BLOCKS_PER_TAKE} write buffers.
     */
    static long laneBufferBytes(JoinContext ctx, int maxBlock) {
        return laneBufferBytes(ctx.sizing.bufferBytes(), maxBlock);
    }

    /** As {@link #laneBufferBytes(JoinContext, int)} with write buffers of {@code writeBuffer} bytes. */
    static long laneBufferBytes(int writeBuffer, int maxBlock) {
        return Math.max(maxBlock, (long) BLOCKS_PER_TAKE * writeBuffer);
    }

    /** Whether a worker may join now: shared, and blocks are left. */
    synchronized boolean wantsHelpers() {
        return shared && !drained;
    }

    /**
     * A lane for a worker joining the pass, in its {@code workerMemory}; null when no block is left or the lane does
     * not fit that memory.
     */
    synchronized PairProbeLane attach(MemoryReservation workerMemory) throws IOException {
        if (!wantsHelpers()) {
            return null;
        }
        PairProbeLane lane = helperLanes.newLane(this, workerMemory);
        if (lane != null) {
            helpers++;
        }
        return lane;
    }

    /**
     * Hands the next blocks to {@code lane} ({@link PairProbeLane#receive}): one when not shared, else blocks while
     * the lane's buffer has room for one more of the largest; false when every block was handed out.
     */
    synchronized boolean next(PairProbeLane lane) throws IOException {
        boolean taken = false;
        while (!drained) {
            if (reader == null) {
                SpillFile file = files.poll();
                if (file == null) {
                    drained = true;
                    break;
                }
                reader = file.openReader(memory, ctx.sizing.readWindowBytes());
            }
            if (reader.nextBlock()) {
                lane.receive(reader.blockAddress(), reader.blockLength(), shared && taken);
                taken = true;
                if (!shared || !lane.holds(maxBlockPayload)) {
                    return true;
                }
            } else {
                reader.close();
                reader = null;
            }
        }
        return taken;
    }

    /**
     * A helper lane is done: it joined {@code blocks} blocks and forwarded its probe rows to {@code forwardedFile}
     * (null: none).
     */
    synchronized void detach(long blocks, SpillFile forwardedFile) {
        helpers--;
        helperBlocks += blocks;
        if (forwardedFile != null) {
            forwarded.add(forwardedFile);
        }
        notifyAll();
    }

    /**
     * Waits until every helper lane detached (checking cancellation) and returns true; without {@code block}, only
     * says whether they have (the caller's thread must not wait: it hands the helpers' result batches out).
     */
    synchronized boolean awaitHelpers(boolean block) {
        while (helpers > 0) {
            if (!block) {
                return false;
            }
            ctx.checkCancelled();
            try {
                wait(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // checkCancelled turns it into a CancellationException
            }
        }
        return true;
    }

    /** Blocks the helper lanes joined (read after {@link #awaitHelpers}). */
    synchronized long helperBlocks() {
        return helperBlocks;
    }

    /**
     * The files the helper lanes forwarded probe rows to, handed to the task (call after {@link #awaitHelpers});
     * the pass no longer deletes them.
     */
    synchronized List<SpillFile> takeForwarded() {
        List<SpillFile> taken = List.copyOf(forwarded);
        forwarded.clear();
        return taken;
    }

    /**
     * Closes the reader and deletes the files not read yet and the forwarded files not taken; no lane takes a block
     * after this. Idempotent.
     */
    synchronized void close() throws IOException {
        drained = true;
        try {
            if (reader != null) {
                reader.close();
                reader = null;
            }
        } finally {
            files.addAll(forwarded);
            forwarded.clear();
            while (!files.isEmpty()) {
                files.poll().delete();
            }
        }
    }
}
