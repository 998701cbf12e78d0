package dev.spilljoin.spill;

import java.io.IOException;

/**
 * Spills one input into N partition files at once: one {@link PartitionWriter} per partition, sharing one mapped
 * window (the writers flush one at a time, in the caller's thread).
 *
 * <p>Memory: a partition's buffer is reserved and allocated on its first record and can be given back with
 * {@link #releaseBuffer(int)} (flushing it), so the footprint is
 * {@code memoryBytes(buffersHeld, bufferBytes, windowBytes) = windowBytes + buffersHeld × bufferBytes}, at most
 * {@code windowBytes + partitions × bufferBytes}. All of it lives in one child of the reservation handed in; each
 * partition's buffer in a grandchild.
 *
 * <p>Invariants: the shared window's bytes are reserved for the writer's whole life; closing releases every buffer
 * and the window; files of an unfinished writer are never readable and are deleted with their space.
 */
public final class PartitionedSpillWriter implements AutoCloseable {
    private final MemoryReservation memory;
    private final PartitionWriter[] writers;
    private boolean closed;

    PartitionedSpillWriter(SpillSpace space, String label, int partitions, MemoryReservation reservation,
            int bufferBytes) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a partitioned spill writer needs at least 1 partition, got "
                    + partitions);
        }
        memory = reservation.newChild("spill " + label);
        if (!memory.tryGrow(space.windowBytes())) {
            memory.close();
            throw new MemoryExhaustedException("partitioned spill writer '" + label + "' needs a mapped window of "
                    + ByteSize.format(space.windowBytes()) + " but '" + reservation.name() + "' has only "
                    + ByteSize.format(reservation.headroom()) + " left: spill or free memory first");
        }
        writers = new PartitionWriter[partitions];
        try {
            for (int p = 0; p < partitions; p++) {
                SpillFile file = space.newFile(label + "-p" + p);
                writers[p] = file.attachWriter(memory.newChild("p" + p), memory, bufferBytes);
            }
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    /** The most a partitioned writer holds with {@code buffersHeld} partition buffers allocated. */
    public static long memoryBytes(int buffersHeld, int bufferBytes, int windowBytes) {
        return windowBytes + (long) buffersHeld * bufferBytes;
    }

    /** Appends a record to {@code partition} (see {@link PartitionWriter#append}). */
    public void append(int partition, long source, int length) throws IOException {
        writers[partition].append(source, length);
    }

    /** Room for a record in {@code partition}'s buffer (see {@link PartitionWriter#reserveRecord}). */
    public long reserveRecord(int partition, int length) throws IOException {
        return writers[partition].reserveRecord(length);
    }

    /** Flushes {@code partition}'s buffer and gives its memory back (the next record takes it again). */
    public void releaseBuffer(int partition) throws IOException {
        writers[partition].releaseBuffer();
    }

    /** Flushes and seals every partition's file; afterwards {@link #file(int)} can be read. */
    public void finish() throws IOException {
        for (PartitionWriter writer : writers) {
            writer.finish();
        }
    }

    public int partitions() {
        return writers.length;
    }

    public SpillFile file(int partition) {
        return writers[partition].file();
    }

    public long rowCount(int partition) {
        return writers[partition].rowCount();
    }

    /** True while {@code partition} holds its buffer's memory. */
    public boolean holdsBuffer(int partition) {
        return writers[partition].holdsBuffer();
    }

    /** Bytes this writer reserves now (window and buffers held). */
    public long reservedBytes() {
        return memory.reserved();
    }

    /** Releases every buffer and the window without flushing; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (PartitionWriter writer : writers) {
            if (writer != null) {
                writer.close();
            }
        }
        memory.close();
    }
}
