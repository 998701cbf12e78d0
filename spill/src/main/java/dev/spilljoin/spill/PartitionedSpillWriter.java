package dev.spilljoin.spill;

import java.io.IOException;

/**
 * Spills one input into N partition files at once: one {@link PartitionWriter} per partition.
 *
 * <p>Memory: a partition's writer share ({@link PartitionWriter#memoryBytes}: its buffer and room for side writers')
 * is reserved on its first record and given back with {@link #releaseBuffer(int)} (flushing it), so the footprint is
 * {@code memoryBytes(partitionsHeld, bufferBytes, buffers) = partitionsHeld × bufferBytes × buffers}, at most
 * {@code partitions × bufferBytes × buffers}. All of it lives in one child of the reservation handed in, each
 * partition's share in a grandchild.
 *
 * <p>Invariants: closing releases every buffer; files of an unfinished writer are never readable and
 * are deleted with their space.
 */
public final class PartitionedSpillWriter implements AutoCloseable {
    private final MemoryReservation memory;
    private final PartitionWriter[] writers;
    private boolean closed;

    PartitionedSpillWriter(SpillSpace space, String label, int partitions, MemoryReservation reservation,
            int bufferBytes, int buffers) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a partitioned spill writer needs at least 1 partition, got "
                    + partitions);
        }
        memory = reservation.newChild("spill " + label);
        writers = new PartitionWriter[partitions];
        try {
            for (int p = 0; p < partitions; p++) {
                writers[p] = space.newFile(label + "-p" + p).openWriter(memory, bufferBytes, buffers);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The most a partitioned writer holds while {@code partitionsHeld} partitions hold their buffer. */
    public static long memoryBytes(int partitionsHeld, int bufferBytes, int buffers) {
        return partitionsHeld * PartitionWriter.memoryBytes(bufferBytes, buffers);
    }

    /** Appends a record to {@code partition} (see {@link PartitionWriter#append}). */
    public void append(int partition, long source, int length) throws IOException {
        writers[partition].append(source, length);
    }

    /** Hands {@code bytes} reserved by {@code source} to partition {@code partition}'s writer (see its takeFrom). */
    public void takeFrom(int partition, MemoryReservation source, long bytes) {
        writers[partition].takeFrom(source, bytes);
    }

    /** Partition {@code partition}'s writer: to append to, or to ask for side writers of ({@code sideWriter}). */
    public PartitionWriter partition(int partition) {
        return writers[partition];
    }

    /** Flushes {@code partition}'s buffer and gives its share back (the next record takes it again). */
    public void releaseBuffer(int partition) throws IOException {
        writers[partition].releaseBuffer();
    }

    /** Flushes and seals every partition's file not finished yet; afterwards {@link #file(int)} can be read. */
    public void finish() throws IOException {
        for (PartitionWriter writer : writers) {
            if (!writer.isFinished()) {
                writer.finish();
            }
        }
    }

    /** Flushes and seals {@code partition}'s file ahead of the others, which go on taking records. */
    public void finish(int partition) throws IOException {
        writers[partition].finish();
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

    /** Bytes this writer reserves now (the shares of the partitions that hold their buffer). */
    public long reservedBytes() {
        return memory.reserved();
    }

    /** Releases every buffer without flushing; idempotent. */
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
