package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.table.TableProbe;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.PartitionWriter;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;

/**
 * The nested-loop path's copy of a chunk's probe rows on to the next chunk's probe file
 * ({@link HeavyHitterNestedLoop}): each probed row, still encoded, with its MATCHED flag set if it matched in this
 * chunk or an earlier one; a row that matched is dropped instead when the join type never emits it again (SEMI,
 * ANTI, NOT IN). One per lane of a chunk's probe pass, each writing a file of its own.
 *
 * <p>Memory: the writer's buffer ({@link SpillSizing#pairWriterShare}) in the given reservation, and,
 * for a matched row too large for the buffer, a scratch copy of it while it is flagged and written.
 */
final class ProbeRowForwarder implements AutoCloseable {
    private final JoinContext ctx;
    private final MemoryReservation memory;
    private final boolean dropsMatched;
    private final SpillFile file;
    private final PartitionWriter writer;
    private boolean finished;

    /** Forwards to a new file named after {@code pair}, writing in {@code memory}. */
    ProbeRowForwarder(JoinContext ctx, MemoryReservation memory, SpillPair pair, boolean dropsMatched) {
        this.ctx = ctx;
        this.memory = memory;
        this.dropsMatched = dropsMatched;
        this.file = ctx.space().newFile("nested-loop-probe-L" + pair.level() + "-p" + pair.index());
        this.writer = file.openWriter(memory, ctx.sizing.bufferBytes());
    }

    /** The memory a forwarder needs beside its lane when the probe rows come from blocks of up to {@code maxBlock}. */
    static long memoryNeeded(JoinContext ctx, int maxBlock) {
        long scratch = maxBlock <= ctx.sizing.recordCapacity() ? 0 : maxBlock;
        return ctx.sizing.pairWriterShare() + scratch;
    }

    /** Copies the rows of the batch {@code probe} just probed (decoded by {@code decoder}) on to the file. */
    void forward(SpilledRowDecoder decoder, TableProbe probe) throws IOException {
        int n = decoder.batch().rowCount();
        long[] before = decoder.matchedBefore();
        int capacity = ctx.sizing.recordCapacity();
        SpillRowFormat format = decoder.format();
        for (int i = 0; i < n; i++) {
            boolean matched = probe.matched(i) || Bitmaps.isSet(before, i);
            if (matched && dropsMatched) {
                continue;
            }
            long row = decoder.rowAddress(i);
            int length = format.rowLength(row);
            if (length <= capacity) {
                long target = writer.reserveRecord(length);
                NativeMemory.copy(row, target, length);
                if (matched) {
                    format.setMatched(target);
                }
            } else {
                appendLarge(format, row, length, matched);
            }
        }
    }

    /** A row larger than the write buffer: flagged in a scratch page (reserved first), written as its own block. */
    private void appendLarge(SpillRowFormat format, long row, int length, boolean matched) throws IOException {
        if (!matched || format.isMatched(row)) {
            writer.append(row, length);
            return;
        }
        if (!memory.tryGrow(length)) {
            throw new MemoryExhaustedException("hash join: a probe row of " + ByteSize.format(length)
                    + " on the nested-loop path needs a scratch copy but the budget is full");
        }
        try (NativeMemory.NativePage scratch = NativeMemory.allocate(memory, length)) {
            NativeMemory.copy(row, scratch.address(), length);
            format.setMatched(scratch.address());
            writer.append(scratch.address(), length);
        } finally {
            memory.shrink(length);
        }
    }

    /** Seals the file and gives the writer's memory back: the file, for the next chunk to read. */
    SpillFile finish() throws IOException {
        writer.finish();
        writer.close();
        finished = true;
        return file;
    }

    /** Releases the writer; unless {@link #finish}ed, deletes the file (a failed or cancelled pass). Idempotent. */
    @Override
    public void close() throws IOException {
        writer.close();
        if (!finished) {
            file.delete();
        }
    }
}
