package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Plain benchmark (not a test): spill write and read throughput of {@link PartitionWriter}/{@link PartitionReader}
 * against a {@link FileChannel} writing and reading the same bytes in the same block size.
 *
 * <p>Arguments: {@code [total size, default 1GB] [block size, default 64kB] [mapped window size, default 1MB]
 * [directory, default java.io.tmpdir]}.
 * Records are 1 kB each; the spill path includes the CRC32C of every block (written and verified), the FileChannel
 * path has no checksum. Each variant runs three times; the best run is reported. The files stay in the page cache
 * (this measures CPU cost per byte, which is what a join on a fast disk pays).
 */
public final class SpillThroughputBenchmark {
    private static final int RECORD = 1024;

    private SpillThroughputBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        long total = ByteSize.parse(args.length > 0 ? args[0] : "1GB");
        int block = (int) ByteSize.parse(args.length > 1 ? args[1] : "64kB");
        int window = (int) ByteSize.parse(args.length > 2 ? args[2] : "1MB");
        Path root = Paths.get(args.length > 3 ? args[3] : System.getProperty("java.io.tmpdir"));
        System.out.printf(Locale.ROOT, "%s in %s blocks, %s mapped windows, under %s%n", ByteSize.format(total),
                ByteSize.format(block), ByteSize.format(window), root);
        double[] best = new double[4];
        for (int run = 0; run < 3; run++) {
            double[] spill = spill(total, block, window, root);
            double[] channel = fileChannel(total, block, root);
            best[0] = Math.max(best[0], spill[0]);
            best[1] = Math.max(best[1], spill[1]);
            best[2] = Math.max(best[2], channel[0]);
            best[3] = Math.max(best[3], channel[1]);
        }
        System.out.printf(Locale.ROOT, "spill (mapped, CRC32C)  write %7.0f MB/s   read %7.0f MB/s%n", best[0], best[1]);
        System.out.printf(Locale.ROOT, "FileChannel (no CRC)    write %7.0f MB/s   read %7.0f MB/s%n", best[2], best[3]);
    }

    private static double[] spill(long total, int block, int window, Path root) throws IOException {
        try (MemoryReservation budget = MemoryReservation.root("benchmark", 64L << 20);
                SpillSpace space = SpillSpace.create(root, window)) {
            MemoryReservation source = budget.newChild("records");
            if (!source.tryGrow(RECORD)) {
                throw new IllegalStateException("the benchmark's budget cannot hold one record");
            }
            NativeMemory.NativePage record = NativeMemory.allocate(source, RECORD);
            fillRandom(record.address(), RECORD);
            SpillFile file = space.newFile("bench");
            long start = System.nanoTime();
            try (PartitionWriter writer = file.openWriter(budget, block)) {
                for (long written = 0; written < total; written += RECORD) {
                    writer.append(record.address(), RECORD);
                }
                writer.finish();
            }
            double write = mbPerSecond(file.length(), System.nanoTime() - start);
            long checksum = 0;
            start = System.nanoTime();
            try (PartitionReader reader = file.openReader(budget)) {
                while (reader.nextBlock()) {
                    checksum += NativeMemory.getLong(reader.blockAddress());
                }
            }
            double read = mbPerSecond(space.counters().bytesRead(), System.nanoTime() - start);
            consume(checksum);
            return new double[] {write, read};
        }
    }

    private static double[] fileChannel(long total, int block, Path root) throws IOException {
        Path path = Files.createTempFile(root, "filechannel-bench", ".bin");
        try {
            ByteBuffer buffer = ByteBuffer.allocateDirect(block);
            byte[] bytes = new byte[block];
            new SplittableRandom(42).nextBytes(bytes);
            buffer.put(bytes);
            long start = System.nanoTime();
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                for (long written = 0; written < total; written += block) {
                    buffer.clear();
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                }
            }
            double write = mbPerSecond(total, System.nanoTime() - start);
            long checksum = 0;
            long read = 0;
            start = System.nanoTime();
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                int n;
                buffer.clear();
                while ((n = channel.read(buffer)) > 0) {
                    read += n;
                    checksum += buffer.getLong(0);
                    buffer.clear();
                }
            }
            double readRate = mbPerSecond(read, System.nanoTime() - start);
            consume(checksum);
            return new double[] {write, readRate};
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private static void fillRandom(long address, int length) {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i + 8 <= length; i += 8) {
            NativeMemory.putLong(address + i, random.nextLong());
        }
    }

    private static double mbPerSecond(long bytes, long nanos) {
        return bytes / (1024.0 * 1024.0) / (nanos / 1e9);
    }

    private static void consume(long value) {
        if (value == 42) {
            System.out.println("(checksum " + value + ")");
        }
    }
}
