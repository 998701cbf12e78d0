package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Key hashing: {@link MicroBenchmarkAccess.BatchHasher#hash} (the operator's {@code KeyHasher}) of one
 * {@value KeyValueRows#BATCH_ROWS}-row batch, the first step of both build and probe. {@code BIGINT}: W1's key
 * column (one {@code fmix64} per row); {@code VARCHAR}: 16-byte strings ({@code HashFunctions.hashBytes} per row,
 * then the fold). Reports ns per row. No off-heap memory: hashing works on the batch's arrays.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HashBenchmark extends MicroBenchmark {
    @Param({"BIGINT", "VARCHAR"})
    public String keyType;

    private Batch batch;
    private MicroBenchmarkAccess.BatchHasher hasher;
    private final long[] hashes = new long[KeyValueRows.BATCH_ROWS];
    private final long[] nullKeys = new long[KeyValueRows.BATCH_ROWS / 64];

    @Setup
    public void setUp() {
        long[] keys = KeyValueRows.uniform(0, 1L << 40, KeyValueRows.BATCH_ROWS, 1);
        batch = switch (keyType) {
            case "BIGINT" -> KeyValueRows.batch(keys, 0, keys.length);
            case "VARCHAR" -> varcharBatch(keys);
            default -> throw new IllegalArgumentException("keyType must be BIGINT or VARCHAR, got " + keyType);
        };
        hasher = MicroBenchmarkAccess.forRows(batch.schema(), KeyValueRows.KEY_COLUMNS).batchHasher();
    }

    private static Batch varcharBatch(long[] keys) {
        Batch varchar = new Batch(Schema.of(new Column("k", ColumnType.VARCHAR, false)), keys.length);
        ColumnVector k = varchar.column(0);
        for (int i = 0; i < keys.length; i++) {
            byte[] text = String.format("key-%012d", keys[i] % 1_000_000_000_000L).getBytes(StandardCharsets.UTF_8);
            k.setBytes(i, text, 0, text.length);
        }
        varchar.setRowCount(keys.length);
        return varchar;
    }

    /** Hashes the batch; returns the last row's hash. */
    @Benchmark
    @OperationsPerInvocation(KeyValueRows.BATCH_ROWS)
    public long hashBatch() {
        hasher.hash(batch, hashes, nullKeys);
        return hashes[KeyValueRows.BATCH_ROWS - 1];
    }

    /** The hashed batch (for the unit test). */
    Batch batch() {
        return batch;
    }

    /** The hashes of the last {@link #hashBatch} (for the unit test). */
    long[] hashes() {
        return hashes;
    }
}
