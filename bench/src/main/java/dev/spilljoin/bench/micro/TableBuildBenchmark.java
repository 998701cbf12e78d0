package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.internal.MicroBenchmarkAccess;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.HashTable;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.PartitionPages;
import dev.spilljoin.spill.MemoryReservation;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Table build: {@link MicroBenchmarkAccess#tryBuildTable} (the operator's {@code UnchainedTable.tryBuild}) over
 * {@code rows} serialized rows (distinct keys, in random key order) in {@value KeyValueRows#TABLE_PARTITIONS}
 * partitions' pages ({@link PartitionPages}), as the build's finish does with its resident partitions: count the rows
 * per slot, reserve and allocate the directory and the compact rows, copy every row to its slot (freeing each
 * partition's pages once copied). The rows are serialized before each invocation and the table freed
 * after it, untimed. 32K rows (0.5 MiB of rows, under 1 MiB of table) fit in L2; 1M rows (17 MiB, 25 MiB) do not.
 *
 * <p>The primary score is ns per table; {@code build:rows} (an {@link AuxCounters} counter) is ns per row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TableBuildBenchmark extends MicroBenchmark {
    @Param({"32768", "1048576"})
    public int rows;

    private MemoryReservation memory;
    private long[] keys;
    private PartitionPages buildRows;
    private HashTable table;

    /** The rows copied, reported per unit of time: JMH turns it into ns per row. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class RowCounter {
        public long rows;
    }

    @Setup(Level.Trial)
    public void setUp() {
        keys = KeyValueRows.shuffledRange(0, rows, 2);
        memory = BenchBudget.open("table build", KeyValueRows.partitionedBytes(rows) + KeyValueRows.tableBytes(rows));
    }

    @Setup(Level.Invocation)
    public void newRows() {
        buildRows = KeyValueRows.partitioned(keys, memory);
    }

    /** Builds the table over every row; returns its size. */
    @Benchmark
    public long build(RowCounter counter) {
        table = KeyValueRows.ACCESS.tryBuildTable(memory, buildRows);
        if (table == null) {
            throw new IllegalStateException("the budget cannot hold a table for " + rows + " rows");
        }
        counter.rows += rows;
        return table.size();
    }

    @TearDown(Level.Invocation)
    public void closeTable() {
        table.close();
        buildRows.close();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        BenchBudget.close(memory);
    }

    /** The table of the current invocation (for the unit test). */
    HashTable table() {
        return table;
    }
}
