package dev.spilljoin.bench.micro;

import dev.spilljoin.bench.TempDirectories;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowPages;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillSpace;

import java.io.IOException;

/**
 * The data of the spill benchmarks: {@value #ROWS} serialized W1 rows ({@value #MIB} MiB) in {@link RowPages},
 * in a budget that also holds one spill writer, one reader and one {@value #BUFFER_BYTES}-byte buffer besides;
 * the sum of the rows' key hashes, which a read must give back; and a {@link SpillSpace} under
 * {@code -Dbench.tmpdir} (default java.io.tmpdir) whose directory holds every file the benchmark writes and is
 * deleted, with whatever is left in it, on {@link #close()}.
 */
final class SpillRows implements AutoCloseable {
    static final int ROWS = 1 << 20;
    /** {@value #ROWS} rows of 17 bytes: a whole number of MiB, so that ops/s read as MiB/s. */
    static final int MIB = ROWS * KeyValueRows.ROW_BYTES >> 20;
    /** The write-combining buffer of a spill writer (the operator's largest, chosen at generous budgets). */
    static final int BUFFER_BYTES = 64 * 1024;

    private final MemoryReservation memory;
    private final RowPages rows;
    private final long hashSum;
    private final SpillSpace space;

    /** Rows in a budget with room for writers and readers, and a spill space, using windows of {@code windowBytes}. */
    SpillRows(String name, int windowBytes) throws IOException {
        memory = BenchBudget.open(name, KeyValueRows.arenaBytes(ROWS) + 2L * (BUFFER_BYTES + windowBytes)
                + 2L * BUFFER_BYTES);
        rows = KeyValueRows.serialize(KeyValueRows.shuffledRange(0, ROWS, 6), memory);
        hashSum = rows.keyHashSum();
        try {
            space = SpillSpace.create(TempDirectories.root(), windowBytes);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    SpillSpace space() {
        return space;
    }

    MemoryReservation memory() {
        return memory;
    }

    RowPages rows() {
        return rows;
    }

    /** Bytes of all rows. */
    long bytes() {
        return (long) ROWS * KeyValueRows.ROW_BYTES;
    }

    /** The sum of every row's stored key hash. */
    long hashSum() {
        return hashSum;
    }

    /** Deletes the spill space and frees the rows; throws if the benchmark left anything else reserved. */
    @Override
    public void close() throws IOException {
        try {
            if (space != null) {
                space.close();
            }
        } finally {
            rows.close();
            BenchBudget.close(memory);
        }
    }
}
