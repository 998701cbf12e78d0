package dev.spilljoin.bench.micro;

import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.PartitionWriter;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
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
 * Spill read: a {@link PartitionReader} walks a {@value SpillRows#MIB} MiB partition file block by block (one
 * mapped window of {@code windowBytes} at a time, CRC32C verified per block) and every row in each block, summing
 * the rows' key hashes. The score, in ops/s, is MiB/s. A spill file is read once and deleted when its reader
 * closes, so each invocation's file is written and its reader opened before it, untimed, and the reader closed
 * after it. The file is in the page cache (just written): this is the CPU cost per byte; {@link FileChannelBenchmark}
 * reads the same bytes without a mapping.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SpillReadBenchmark extends MicroBenchmark {
    @Param({"65536", "1048576"})
    public int windowBytes;

    private SpillRows rows;
    private PartitionReader reader;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        rows = new SpillRows("spill read", windowBytes);
    }

    @Setup(Level.Invocation)
    public void writeFile() throws IOException {
        SpillFile file = rows.space().newFile("jmh-read");
        try (PartitionWriter writer = file.openWriter(rows.memory(), SpillRows.BUFFER_BYTES)) {
            rows.rows().appendEachRowTo(writer);
            writer.finish();
        }
        reader = file.openReader(rows.memory());
    }

    /** Reads every block and row; returns the sum of the rows' key hashes. */
    @Benchmark
    @OperationsPerInvocation(SpillRows.MIB)
    public long read() throws IOException {
        long sum = 0;
        while (reader.nextBlock()) {
            sum += rows.rows().keyHashSum(reader.blockAddress(), reader.blockLength());
        }
        return sum;
    }

    @TearDown(Level.Invocation)
    public void closeReader() throws IOException {
        reader.close();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        rows.close();
    }

    SpillRows rows() {
        return rows;
    }
}
