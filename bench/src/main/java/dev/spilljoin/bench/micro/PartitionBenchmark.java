package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.PartitionPages;
import dev.spilljoin.spill.MemoryReservation;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Radix partitioning as the build pass does it (the operator has no separate radix-partitioning code): each row's
 * level-0 partition is the top {@code log2(fanout)} bits of h1 ({@link MicroBenchmarkAccess#partitionsOf}, the
 * operator's {@code HashFunctions.partitionOf} per row), and one {@code RowWriter} call per batch serializes the rows
 * straight into their partitions' arenas ({@link PartitionPages#scatter}), the per-partition buffers of the
 * resident build. The keys are hashed in the setup (see {@link HashBenchmark}).
 * Reports ns per row.
 *
 * <ul>
 *   <li>{@code partitionOf}: the h1 partition numbers of one batch;</li>
 *   <li>{@code scatter}: partition numbers plus the scatter of {@value #SCATTER_BATCHES} batches
 *       ({@value #SCATTER_ROWS} rows, 12 MiB) into {@code fanout} arenas of {@value #PAGE_BYTES}-byte pages. The
 *       arenas take their pages (reserved, allocated, zeroed) as rows arrive, as the build's do, so page allocation
 *       is part of the cost; they are emptied after each invocation, untimed.</li>
 * </ul>
 * The spilled partitions' route (into a staging arena, then each row into its partition's write-combining spill
 * buffer) adds {@link SpillWriteBenchmark}'s cost per byte.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PartitionBenchmark extends MicroBenchmark {
    static final int SCATTER_BATCHES = 256;
    static final int SCATTER_ROWS = SCATTER_BATCHES * KeyValueRows.BATCH_ROWS;
    /** Row page of each partition: the operator's {@code min(256 KiB, budget / (8 fanout))} at a 64 MiB budget and fanout 256. */
    static final int PAGE_BYTES = 32 * 1024;
    static final int MAX_FANOUT = 1024;

    @Param({"16", "256"})
    public int fanout;

    private int bits;
    private Batch[] batches;
    private long[][] hashes;
    private final long[] nullKeys = new long[KeyValueRows.BATCH_ROWS / 64];
    private final int[] partitionOfRow = new int[KeyValueRows.BATCH_ROWS];

    /**
     * The scatter's target: {@value #MAX_FANOUT} empty partition arenas (a fanout of F uses the first F) in their own
     * budget, emptied after every invocation (a state of its own so that {@code partitionOf} has no per-invocation
     * fixture).
     */
    @State(Scope.Thread)
    public static class PartitionArenas {
        private MemoryReservation memory;
        private PartitionPages arenas;

        @Setup(Level.Trial)
        public void open() {
            memory = BenchBudget.open("partition", (long) SCATTER_ROWS * KeyValueRows.ROW_BYTES
                    + 2L * MAX_FANOUT * PAGE_BYTES);
            arenas = KeyValueRows.ACCESS.newPartitionPages(memory, MAX_FANOUT, PAGE_BYTES);
        }

        @TearDown(Level.Invocation)
        public void empty() {
            arenas.clear();
        }

        @TearDown(Level.Trial)
        public void close() {
            arenas.close();
            BenchBudget.close(memory);
        }

        /** The partition arenas (for the unit test; filled by {@link #scatter} until {@link #empty}). */
        PartitionPages arenas() {
            return arenas;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        if (Integer.bitCount(fanout) != 1 || fanout > MAX_FANOUT) {
            throw new IllegalArgumentException("fanout must be a power of two up to " + MAX_FANOUT + ", got " + fanout);
        }
        bits = Integer.numberOfTrailingZeros(fanout);
        batches = KeyValueRows.batches(KeyValueRows.uniform(0, 1L << 40, SCATTER_ROWS, 5));
        hashes = new long[SCATTER_BATCHES][KeyValueRows.BATCH_ROWS];
        MicroBenchmarkAccess.BatchHasher hasher = KeyValueRows.ACCESS.batchHasher();
        for (int b = 0; b < SCATTER_BATCHES; b++) {
            hasher.hash(batches[b], hashes[b], nullKeys);
        }
    }

    /** The h1 partitions of one batch; returns the last row's. */
    @Benchmark
    @OperationsPerInvocation(KeyValueRows.BATCH_ROWS)
    public int partitionOf() {
        MicroBenchmarkAccess.partitionsOf(hashes[0], KeyValueRows.BATCH_ROWS, 0, bits, partitionOfRow);
        return partitionOfRow[KeyValueRows.BATCH_ROWS - 1];
    }

    /** The batch {@code partitionOf} works on (for the unit test). */
    Batch firstBatch() {
        return batches[0];
    }

    /** Partitions and scatters every batch into the first {@code fanout} arenas; returns partition 0's row count. */
    @Benchmark
    @OperationsPerInvocation(SCATTER_ROWS)
    public long scatter(PartitionArenas target) {
        PartitionPages arenas = target.arenas;
        for (int b = 0; b < SCATTER_BATCHES; b++) {
            if (arenas.scatter(batches[b], hashes[b], nullKeys, bits) != KeyValueRows.BATCH_ROWS) {
                throw new IllegalStateException("the budget '" + target.memory.name() + "' refused a page");
            }
        }
        return arenas.rowCount(0);
    }
}
