package dev.spilljoin.bench.micro;

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
 * Spill write: {@value SpillRows#MIB} MiB of 17-byte rows appended one by one to a new partition file through a
 * {@link PartitionWriter} ({@value SpillRows#BUFFER_BYTES}-byte write-combining buffer, CRC32C per block,
 * fallocate and a mapped window of {@code windowBytes} per chunk), then sealed ({@code finish}). The score, in
 * ops/s, is MiB/s. The file is opened before and deleted after each invocation (untimed); the spill space lives
 * under {@code -Dbench.tmpdir} (default java.io.tmpdir) and is closed at the end. The file stays in the page cache:
 * this is the CPU cost per byte; {@link FileChannelBenchmark} writes the same bytes without a mapping.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SpillWriteBenchmark extends MicroBenchmark {
    @Param({"65536", "1048576"})
    public int windowBytes;

    private SpillRows rows;
    private PartitionWriter writer;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        rows = new SpillRows("spill write", windowBytes);
    }

    @Setup(Level.Invocation)
    public void openWriter() {
        writer = rows.space().newFile("jmh-write").openWriter(rows.memory(), SpillRows.BUFFER_BYTES);
    }

    /** Writes every row and seals the file; returns the file's length. */
    @Benchmark
    @OperationsPerInvocation(SpillRows.MIB)
    public long write() throws IOException {
        rows.rows().appendEachRowTo(writer);
        writer.finish();
        return writer.bytesWritten();
    }

    @TearDown(Level.Invocation)
    public void deleteFile() throws IOException {
        writer.close();
        writer.file().delete();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        rows.close();
    }

    /** The file of the current invocation (for the unit test). */
    SpillFile file() {
        return writer.file();
    }

    SpillRows rows() {
        return rows;
    }
}
