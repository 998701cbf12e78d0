package dev.spilljoin.operator;

import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionedSpillWriter;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;

/**
 * A {@link PartitionedSpillWriter} whose partitions draw their writer memory (buffer plus window share) from a
 * share the join set aside in advance, so that spilling can never be refused for want of memory: just before a
 * partition's first record, one writer share moves from {@code share} back to the budget, and the partition's
 * writer reserves it at once (single-threaded: nothing can take it in between). Rows are appended encoded in one side's
 * {@link SpillRowFormat}.
 */
final class ReservedSpillWriter implements AutoCloseable {
    private final PartitionedSpillWriter writer;
    private final MemoryReservation share;
    private final long perPartition;
    private final SpillRowFormat format;
    private final int recordCapacity;
    private final boolean[] opened;
    private int openedCount;

    ReservedSpillWriter(JoinContext ctx, String label, int partitions, MemoryReservation share,
                        SpillRowFormat format) {
        this.writer = ctx.space().newPartitionedWriter(label, partitions, ctx.memory, ctx.sizing.bufferBytes());
        this.format = format;
        this.recordCapacity = ctx.sizing.recordCapacity();
        this.share = share;
        this.perPartition = ctx.sizing.writerShare();
        this.opened = new boolean[partitions];
    }

    /**
     * Appends the in-memory row at {@code row} to partition {@code p}, encoded in the {@link SpillRowFormat}: straight
     * into the writer's buffer, or, for a row larger than the buffer, encoded over itself first (so the caller must
     * not read the row afterwards).
     */
    void spill(int p, long row) throws IOException {
        if (!opened[p]) {
            opened[p] = true;
            openedCount++;
            share.shrink(Math.min(perPartition, share.reserved()));
        }
        int length = format.encodedLength(row);
        if (length <= recordCapacity) {
            format.encode(row, writer.reserveRecord(p, length), length);
        } else {
            format.encode(row, row, length);
            writer.append(p, row, length);
        }
    }

    /** Seals every partition's file; the writers' memory goes back to the budget. Returns the partitions used. */
    int finish() throws IOException {
        writer.finish();
        return openedCount;
    }

    boolean used(int p) {
        return opened[p];
    }

    SpillFile file(int p) {
        return writer.file(p);
    }

    @Override
    public void close() {
        writer.close();
    }
}
