package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.DirectTable;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowPages;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.HashTable;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.InnerProbe;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.PartitionPages;
import dev.spilljoin.spill.MemoryReservation;

import java.util.List;
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
 * Probe: an INNER join's {@link InnerProbe} (the operator's {@code HashProbe} and {@code OutputWriter}) of one
 * {@value KeyValueRows#BATCH_ROWS}-row probe batch against a built table of {@code tableRows} rows (keys
 * {@code 0 .. tableRows-1}), as the probe pass runs it: hash the batch, load the directory entries, scan the slots,
 * and materialize the result (probe key, build payload) into the result batch. Reports ns per probe row.
 *
 * <p>{@code HITS}: probe keys uniform in the build's key range, so every row has exactly one match;
 * {@code MISSES}: uniform in {@code [tableRows, 2 tableRows)}, so none has (most are dropped by the directory's
 * tag filter). {@value #PROBE_BATCHES} different batches are probed in turn, so the table sees random accesses,
 * not one batch's cached lines. 32K rows fit in L2 (2 MiB), 1M rows (25 MiB of table) do not.
 *
 * <p>{@code table}: {@code HASH} is the unchained hash table above, built from 16 partitions as the join builds it;
 * {@code DIRECT} the direct-index table ({@code DirectIndexTable}, 8.19 bytes per row here) filled from the same
 * rows, probed by {@code DirectIndexProbe} (no hash: one occupancy load per probe row, then per hit its rank
 * and the payload value).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProbeBenchmark extends MicroBenchmark {
    static final int PROBE_BATCHES = 64;

    @Param({"32768", "1048576"})
    public int tableRows;

    @Param({"HITS", "MISSES"})
    public String probeKeys;

    @Param({"HASH", "DIRECT"})
    public String table;

    private MemoryReservation memory;
    private PartitionPages hashRows;
    private RowPages directRows;
    private HashTable hashTable;
    private DirectTable directTable;
    private InnerProbe probe;
    private Batch[] batches;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        memory = BenchBudget.open("probe", KeyValueRows.partitionedBytes(tableRows) + KeyValueRows.tableBytes(tableRows));
        long[] keys = KeyValueRows.shuffledRange(0, tableRows, 3);
        switch (table) {
            case "HASH" -> {
                hashRows = KeyValueRows.partitioned(keys, memory);
                hashTable = KeyValueRows.ACCESS.tryBuildTable(memory, hashRows);
                if (hashTable == null) {
                    throw new IllegalStateException("the budget cannot hold a table for " + tableRows + " rows");
                }
            }
            case "DIRECT" -> {
                directRows = KeyValueRows.serialize(keys, memory);
                directTable = KeyValueRows.ACCESS.tryCreateDirectTable(memory, directRows);
                if (directTable == null) {
                    throw new IllegalStateException("the budget cannot hold a direct-index table for " + tableRows
                            + " rows");
                }
            }
            default -> throw new IllegalArgumentException("table must be HASH or DIRECT, got " + table);
        }
        long from = switch (probeKeys) {
            case "HITS" -> 0;
            case "MISSES" -> tableRows;
            default -> throw new IllegalArgumentException("probeKeys must be HITS or MISSES, got " + probeKeys);
        };
        batches = KeyValueRows.batches(
                KeyValueRows.uniform(from, tableRows, PROBE_BATCHES * KeyValueRows.BATCH_ROWS, 4));
        List<ColumnRef> projection = List.of(new ColumnRef(Side.LEFT, 0), new ColumnRef(Side.RIGHT, 1));
        probe = hashTable != null
                ? KeyValueRows.ACCESS.innerProbe(hashTable, KeyValueRows.SCHEMA, projection, KeyValueRows.BATCH_ROWS)
                : KeyValueRows.ACCESS.innerProbe(directTable, KeyValueRows.SCHEMA, projection, KeyValueRows.BATCH_ROWS);
    }

    /** Probes the next batch to the end; returns the result rows it produced. */
    @Benchmark
    @OperationsPerInvocation(KeyValueRows.BATCH_ROWS)
    public long probeBatch() {
        Batch batch = batches[next];
        next = (next + 1) % PROBE_BATCHES;
        return probe.probe(batch);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (hashTable != null) {
            hashTable.close();
        }
        if (directTable != null) {
            directTable.close();
        }
        if (hashRows != null) {
            hashRows.close();
        }
        if (directRows != null) {
            directRows.close();
        }
        BenchBudget.close(memory);
    }
}
