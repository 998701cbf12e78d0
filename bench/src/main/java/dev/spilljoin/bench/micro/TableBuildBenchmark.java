package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.internal.MicroBenchmarkAccess;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.HashTable;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowPages;
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
 * Table build: {@link HashTable#insertAll} (the operator's {@code JoinHashTable.insertAll}) of {@code rows} serialized
 * rows (distinct keys, in random key order) from {@link RowPages}, into a fresh table, as the build's finish does. The
 * table's directory is reserved and allocated (zeroed) before each invocation and freed after it, untimed; the rows
 * stay put (an insert overwrites a row's chain link, so re-inserting them into a new table is exact). 32K rows (1.5 MiB
 * of rows, 512 KiB directory) fit in L2; 1M rows (48 MiB, 16 MiB) do not.
 *
 * <p>The primary score is ns per table; {@code insertAll:rows} (an {@link AuxCounters} counter) is ns per row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TableBuildBenchmark extends MicroBenchmark {
    @Param({"32768", "1048576"})
    public int rows;

    private MemoryReservation memory;
    private RowPages buildRows;
    private HashTable table;

    /** The rows inserted, reported per unit of time: JMH turns it into ns per row. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class RowCounter {
        public long rows;
    }

    @Setup(Level.Trial)
    public void setUp() {
        memory = BenchBudget.open("table build", KeyValueRows.arenaBytes(rows)
                + MicroBenchmarkAccess.tableDirectoryBytes(rows));
        buildRows = KeyValueRows.serialize(KeyValueRows.shuffledRange(0, rows, 2), memory);
    }

    @Setup(Level.Invocation)
    public void newTable() {
        table = MicroBenchmarkAccess.tryCreateTable(memory, rows);
        if (table == null) {
            throw new IllegalStateException("the budget cannot hold a directory for " + rows + " rows");
        }
    }

    /** Inserts every row; returns the table's size. */
    @Benchmark
    public long insertAll(RowCounter counter) {
        table.insertAll(buildRows);
        counter.rows += rows;
        return table.size();
    }

    @TearDown(Level.Invocation)
    public void closeTable() {
        table.close();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        buildRows.close();
        BenchBudget.close(memory);
    }

    /** The table of the current invocation (for the unit test). */
    HashTable table() {
        return table;
    }
}
