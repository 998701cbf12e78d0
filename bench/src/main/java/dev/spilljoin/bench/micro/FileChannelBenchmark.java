package dev.spilljoin.bench.micro;

import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowCursor;
import dev.spilljoin.spill.SpillSpace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The known gap, quantified: the bytes of {@link SpillWriteBenchmark} and {@link SpillReadBenchmark} written and
 * read with a plain {@link FileChannel} instead of mapped windows, and without block headers or checksums. Rows are
 * copied one by one into a {@value SpillRows#BUFFER_BYTES}-byte direct buffer (whole rows only, as the spill writer's
 * blocks hold whole records) and each full buffer is written with {@code write}; reading takes the same blocks back
 * with positional {@code read}s and walks their rows, summing the stored key hashes. The score, in ops/s, is MiB/s.
 *
 * <p>{@code write} truncates its file before each invocation (untimed), so every invocation writes new blocks, as
 * the spill writer does; {@code read} reads a file written once at set-up. Both files live in the spill space's
 * directory (the same file system as the spill files) and are deleted with it; the buffer is reserved from the
 * benchmark's budget.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FileChannelBenchmark extends MicroBenchmark {
    /** Bytes of whole rows a buffer holds: the size of every block but the last. */
    static final int BLOCK_BYTES = SpillRows.BUFFER_BYTES / KeyValueRows.ROW_BYTES * KeyValueRows.ROW_BYTES;

    private SpillRows rows;
    private DirectBufferPage buffer;
    private FileChannel writeChannel;
    private FileChannel readChannel;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        rows = new SpillRows("file channel", SpillSpace.DEFAULT_WINDOW_BYTES);
        if (!rows.memory().tryGrow(SpillRows.BUFFER_BYTES)) {
            throw new IllegalStateException("the budget cannot hold the " + SpillRows.BUFFER_BYTES + "-byte buffer");
        }
        buffer = new DirectBufferPage(rows.memory(), SpillRows.BUFFER_BYTES);
        Path directory = rows.space().directory();
        writeChannel = FileChannel.open(directory.resolve("filechannel-write.bin"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        readChannel = FileChannel.open(directory.resolve("filechannel-read.bin"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.READ);
        writeAll(readChannel);
    }

    @Setup(Level.Invocation)
    public void truncateWriteFile() throws IOException {
        writeChannel.truncate(0);
        writeChannel.position(0);
    }

    /** Writes every row through the buffer; returns the bytes written. */
    @Benchmark
    @OperationsPerInvocation(SpillRows.MIB)
    public long write() throws IOException {
        return writeAll(writeChannel);
    }

    /** Reads every block and row; returns the sum of the rows' key hashes. */
    @Benchmark
    @OperationsPerInvocation(SpillRows.MIB)
    public long read() throws IOException {
        ByteBuffer b = buffer.buffer();
        long sum = 0;
        long position = 0;
        while (true) {
            b.clear().limit(BLOCK_BYTES);
            while (b.hasRemaining() && readChannel.read(b, position + b.position()) > 0) {
                // positional reads until the block is whole or the file ends
            }
            if (b.position() == 0) {
                return sum;
            }
            sum += rows.rows().keyHashSum(buffer.address(), b.position());
            position += b.position();
        }
    }

    private long writeAll(FileChannel channel) throws IOException {
        RowCursor cursor = rows.rows().cursor();
        long written = 0;
        int fill;
        while ((fill = cursor.copyTo(buffer.address(), SpillRows.BUFFER_BYTES)) > 0) {
            written += flush(channel, fill);
        }
        return written;
    }

    private int flush(FileChannel channel, int fill) throws IOException {
        ByteBuffer b = buffer.buffer();
        b.clear().limit(fill);
        while (b.hasRemaining()) {
            channel.write(b);
        }
        return fill;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            writeChannel.close();
            readChannel.close();
            buffer.close();
            rows.memory().shrink(SpillRows.BUFFER_BYTES);
        } finally {
            rows.close();
        }
    }

    SpillRows rows() {
        return rows;
    }
}
