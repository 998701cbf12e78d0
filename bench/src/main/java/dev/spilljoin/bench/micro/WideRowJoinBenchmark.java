package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.MemoryReservation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * A whole INNER join of wide rows through {@link HashJoin}: {@code rows} rows a side, a BIGINT key and
 * {@code varcharColumns} VARCHAR columns (0 to 16 bytes, a tenth NULL), every row matching one row of the other
 * side, every column projected; one thread. Reports ms per join. It times what grows with a row's variable-width
 * columns: serializing the build rows, building the table, gathering the result's build columns (and, spilled,
 * decoding the spilled probe rows), which found each value by walking the ones before it until the gathers carried a
 * cursor from column to column.
 *
 * <p>{@code keys}: {@code DENSE} keys {@code 0 .. rows-1} (the direct-index table), {@code SPARSE} keys
 * {@code 0, 1000, 2000, ...} (too sparse for it: the hash table). {@code where}: {@code MEMORY} within a budget that
 * holds the build side, {@code SPILLED} every partition spilled (forced, 4 partitions) and joined pair by pair.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class WideRowJoinBenchmark extends MicroBenchmark {
    private static final long BUDGET = 1L << 30;
    private static final int BATCH_ROWS = 100;

    @Param({"2000"})
    public int rows;

    @Param({"1000"})
    public int varcharColumns;

    @Param({"DENSE", "SPARSE"})
    public String keys;

    @Param({"MEMORY", "SPILLED"})
    public String where;

    private Schema schema;
    private List<Batch> left;
    private List<Batch> right;
    private Path spillDirectory;
    private MemoryReservation memory;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        List<Column> columns = new ArrayList<>();
        columns.add(Column.of("id", ColumnType.BIGINT));
        for (int c = 1; c <= varcharColumns; c++) {
            columns.add(Column.of("v" + c, ColumnType.VARCHAR));
        }
        schema = new Schema(columns);
        left = side(1);
        right = side(2);
        spillDirectory = Files.createTempDirectory("wide-row-bench");
        memory = BenchBudget.open("wide rows", BUDGET);
    }

    /** One side's batches: keys in order, values from {@code seed}. */
    private List<Batch> side(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long step = keys.equals("DENSE") ? 1 : 1000;
        BatchBuilder builder = new BatchBuilder(schema, BATCH_ROWS);
        Object[] row = new Object[schema.size()];
        for (int i = 0; i < rows; i++) {
            row[0] = i * step;
            for (int c = 1; c < row.length; c++) {
                row[c] = random.nextInt(10) == 0 ? null : "abcdefghijklmnop".substring(random.nextInt(17));
            }
            builder.addRow(row);
        }
        return builder.build();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        BenchBudget.close(memory);
        Files.delete(spillDirectory);
    }

    @Benchmark
    public long join() {
        JoinConfig.Builder config = JoinConfig.builder().spillDirectory(spillDirectory);
        if (where.equals("SPILLED")) {
            config.forceSpill(true).fanoutLog2(2);
        }
        JoinSpec spec = JoinSpec.builder(schema, schema).on("id", "id").reservation(memory).config(config.build())
                .build();
        long[] out = new long[1];
        try (HashJoin join = HashJoin.create(spec)) {
            join.run(BatchSources.of(left), BatchSources.of(right), batch -> out[0] += batch.rowCount());
        }
        if (out[0] != rows) {
            throw new IllegalStateException("the join returned " + out[0] + " rows, expected " + rows);
        }
        return out[0];
    }
}
