package dev.spilljoin.operator;

import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.HashProbe.RowMasks;
import dev.spilljoin.operator.table.OutputWriter;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.Arrays;

/**
 * One worker's share of a spilled pair's probe pass ({@link SharedProbePass}): takes the pass's blocks a few at a
 * time, decodes them into batches ({@link SpilledRowDecoder}), probes them against the task's table with a probe of
 * its own ({@link TableProbe}: the table is only read, and MATCHED marks are safe beside other lanes), and on the
 * nested-loop path forwards the probed rows to a file of its own for the next chunk ({@link ProbeRowForwarder}).
 * Resumable at every result batch.
 *
 * <p>Owns its decoder, its probe, its forwarder and, when the pass is shared, a buffer
 * ({@link SharedProbePass#laneBufferBytes()}, reserved in its memory) that the blocks it takes are copied into; the
 * table and the pass are the task's. A helper's lane (another worker's) detaches from the pass when it finds no block
 * left or is closed, handing over its forwarded file and its count of blocks.
 */
final class PairProbeLane implements OutputTask {
    /** Which probe rows the lane's probe may emit as unmatched (where the join type wants that). */
    enum Tail {
        /** Every unmatched row: the pair's one pass. */
        ALL,
        /** None: a nested-loop chunk before the last (a later chunk decides). */
        NONE,
        /** The rows that matched in no earlier chunk either: the nested loop's last chunk. */
        UNLESS_MATCHED_BEFORE
    }

    private final JoinContext ctx;
    private final SharedProbePass pass;
    private final MemoryReservation memory;
    private final SpilledRowDecoder decoder;
    private final TableProbe probe;
    private final PairOutput output;
    private final Tail tail;
    /** Null unless this is a nested-loop chunk with a next one. */
    private final ProbeRowForwarder forwarder;
    private final boolean helper;
    private final long bufferBytes;
    private final NativeMemory.NativePage buffer;
    private long[] allOnes = new long[0];
    private long block;
    private int blockLength;
    private int blockOffset;
    private boolean probing;
    private boolean ended;
    private boolean detached;
    private long blocks;
    private boolean closed;

    /**
     * A lane of {@code pass} probing with {@code probe}, writing through {@code output}; {@code helper}: another
     * worker's lane. Reserves its buffer in {@code memory} when the pass is shared.
     *
     * @throws MemoryExhaustedException if the buffer does not fit {@code memory}
     */
    PairProbeLane(JoinContext ctx, SharedProbePass pass, MemoryReservation memory, SpilledRowDecoder decoder,
                  TableProbe probe, PairOutput output, Tail tail, ProbeRowForwarder forwarder, boolean helper) {
        this.ctx = ctx;
        this.pass = pass;
        this.memory = memory;
        this.decoder = decoder;
        this.probe = probe;
        this.output = output;
        this.tail = tail;
        this.forwarder = forwarder;
        this.helper = helper;
        this.bufferBytes = pass.laneBufferBytes();
        if (!memory.tryGrow(bufferBytes)) {
            throw new MemoryExhaustedException("hash join: a spilled pair's probe block of "
                    + ByteSize.format(bufferBytes) + " does not fit the " + ByteSize.format(memory.headroom())
                    + " left of the budget");
        }
        this.buffer = bufferBytes == 0 ? null : NativeMemory.allocate(memory, bufferBytes);
    }

    /**
     * Takes the block at {@code address} ({@code length} bytes): read in place when the pass is not shared, else
     * copied into the lane's buffer, after the blocks already there when {@code append} (consecutive blocks' rows
     * read as one run of rows).
     */
    void receive(long address, int length, boolean append) {
        if (buffer == null) {
            block = address;
            blockLength = length;
        } else {
            int at = append ? blockLength : 0;
            NativeMemory.copy(address, buffer.address() + at, length);
            block = buffer.address();
            blockLength = at + length;
        }
        blockOffset = 0;
        blocks++;
    }

    /** Whether the buffer has room for a block of {@code length} bytes after those it took. */
    boolean holds(int length) {
        return bufferBytes - blockLength >= length;
    }

    /** Probes blocks into {@code shared} until the pass has none left (true) or the batch is full (false). */
    @Override
    public boolean fill(OutputWriter shared) throws IOException {
        OutputWriter out = output.writer(shared);
        while (true) {
            if (probing) {
                boolean done = probe.fill(out);
                out.materialize(decoder.batch());
                if (!done) {
                    return false;
                }
                probing = false;
                if (forwarder != null) {
                    forwarder.forward(decoder, probe);
                }
            } else if (blockOffset < blockLength) {
                ctx.checkCancelled();
                blockOffset = decoder.decode(block, blockLength, blockOffset, probe.readsKeyHashes());
                probe.start(decoder.batch(), decoder.hashes(), decoder.nullKeys(), masks());
                probing = true;
            } else if (!ended && pass.next(this)) {
                ctx.faults.pairProbeBlockTaken(helper);
            } else {
                if (!ended) {
                    ended = true;
                    if (helper) {
                        pass.detach(blocks, forwarder == null ? null : forwarder.finish());
                        detached = true;
                    }
                }
                return true;
            }
        }
    }

    private RowMasks masks() {
        return switch (tail) {
            case ALL -> RowMasks.NONE;
            case NONE -> RowMasks.noTail(allOnes(decoder.batch().rowCount()));
            case UNLESS_MATCHED_BEFORE -> RowMasks.noTail(decoder.matchedBefore());
        };
    }

    private long[] allOnes(int n) {
        int words = (n + 63) >>> 6;
        if (allOnes.length < words) {
            allOnes = new long[words];
            Arrays.fill(allOnes, -1L);
        }
        return allOnes;
    }

    /** The task's own lane, done: its forwarded file (sealed), or null when it forwards nothing. */
    SpillFile finishForwarding() throws IOException {
        return forwarder == null ? null : forwarder.finish();
    }

    /**
     * Frees the buffer and the forwarder (deleting its file unless finished); a helper's lane that did not finish
     * detaches. Idempotent.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (buffer != null) {
            buffer.close();
            memory.shrink(bufferBytes);
        }
        try {
            if (forwarder != null) {
                forwarder.close();
            }
        } finally {
            if (helper && !detached) {
                detached = true;
                pass.detach(blocks, null);
            }
        }
    }
}
