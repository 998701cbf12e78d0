package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Round trips, corruption, cancellation and injected failures of partition files. After every test: the root
 * reservation's peak is within its budget, nothing is reserved, nothing is mapped and no file is left.
 */
class PartitionFileTest {
    private static final long BUDGET = 4L << 20;
    private static final int WINDOW = 16 * 1024;
    private static final int BUFFER = 4 * 1024;
    /** Buffers of a writer's share in the tests that give it side writers: its own and three. */
    private static final int SHARED_BUFFERS = 4;

    @TempDir
    Path root;
    private MemoryReservation budget;
    private SpillSpace space;
    private RecordSource records;

    @BeforeEach
    void open() throws IOException {
        budget = MemoryReservation.root("test join", BUDGET);
        space = SpillSpace.create(root, WINDOW);
        records = new RecordSource(budget, 2 << 20);
    }

    @AfterEach
    void everythingIsGiven() throws IOException {
        records.close();
        space.close();
        assertThat(space.counters().mappedBytes()).isZero();
        assertThat(budget.peakReserved()).isLessThanOrEqualTo(BUDGET);
        assertThat(budget.reserved()).isZero();
        budget.close();
        assertThat(SpillSpaceTest.entries(root)).isZero();
    }

    @Test
    void randomRecordsRoundTripIncludingRecordsLargerThanTheBuffer() throws IOException {
        SplittableRandom random = SeededRandom.create("randomRecordsRoundTripIncludingRecordsLargerThanTheBuffer");
        List<byte[]> expected = new ArrayList<>();
        SpillFile file = space.newFile("build-p0");
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            for (int i = 0; i < 3000; i++) {
                byte[] record = i % 500 == 7 ? new byte[1 << 20] : randomRecord(random, i % 50 == 3 ? 3 * BUFFER : 300);
                random.nextBytes(record);
                expected.add(record);
                records.append(writer, record);
            }
            assertThat(writer.rowCount()).isEqualTo(expected.size());
            writer.finish();
            assertThat(writer.bytesWritten()).isEqualTo(file.length());
        }
        assertThat(file.rowCount()).isEqualTo(expected.size());
        assertThat(file.maxBlockPayload()).isGreaterThanOrEqualTo(1 << 20);
        assertThat(java.nio.file.Files.size(file.path())).as("reserved tail trimmed").isEqualTo(file.length());
        assertThat(readAll(file)).containsExactlyElementsOf(expected);
        assertThat(space.counters().bytesRead()).isEqualTo(space.counters().bytesWritten());
        assertThat(space.counters().blocksRead()).isEqualTo(space.counters().blocksWritten());
        assertThat(space.counters().peakMappedBytes()).isEqualTo(WINDOW);
        assertThat(file.path()).doesNotExist();
    }

    @Test
    void sideWritersOnOtherThreadsAppendWholeBlocksToTheSameFile() throws Exception {
        SplittableRandom random = SeededRandom.create("sideWritersOnOtherThreadsAppendWholeBlocksToTheSameFile");
        int threads = 4;
        List<List<byte[]>> expected = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<byte[]> own = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                byte[] record = randomRecord(random, i % 300 == 7 ? 3 * BUFFER : 200);
                if (record.length > 0) {
                    record[0] = (byte) t;
                }
                own.add(record);
            }
            expected.add(own);
        }
        SpillFile file = space.newFile("shared");
        long baseline = budget.reserved();
        try (PartitionWriter writer = file.openWriter(budget, BUFFER, threads)) {
            List<PartitionWriter> writers = new ArrayList<>();
            writers.add(writer);
            for (int t = 1; t < threads; t++) {
                writers.add(writer.sideWriter());
            }
            assertThat(writers).doesNotContainNull();
            assertThat(budget.reserved() - baseline).as("the sides' buffers lie in the writer's share")
                    .isEqualTo(PartitionWriter.memoryBytes(BUFFER, threads));
            assertThatThrownBy(writer::releaseBuffer).isInstanceOf(IllegalStateException.class);
            List<Thread> running = new ArrayList<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                PartitionWriter own = writers.get(t);
                List<byte[]> mine = expected.get(t);
                Thread thread = new Thread(() -> {
                    try (RecordSource source = new RecordSource(budget, 4 * BUFFER)) {
                        for (byte[] record : mine) {
                            source.append(own, record);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                running.add(thread);
                thread.start();
            }
            for (Thread thread : running) {
                thread.join();
            }
            assertThat(failures).isEmpty();
            writer.finish();
            assertThat(writer.rowCount()).isEqualTo(threads * 2000L);
            assertThat(budget.reserved()).as("every buffer and share given back").isEqualTo(baseline);
        }
        assertThat(file.rowCount()).isEqualTo(threads * 2000L);
        List<byte[]> read = readAll(file);
        List<byte[]> all = new ArrayList<>();
        expected.forEach(all::addAll);
        assertThat(read).hasSameSizeAs(all);
        for (int t = 0; t < threads; t++) { // each writer's records in its order: blocks interleave, records do not
            int tag = t;
            List<byte[]> ofThread = read.stream().filter(r -> r.length > 0 && r[0] == tag).toList();
            List<byte[]> nonEmpty = expected.get(t).stream().filter(r -> r.length > 0).toList();
            assertThat(ofThread).containsExactlyElementsOf(nonEmpty);
        }
    }

    @Test
    void aSideWriterIsRefusedWhenTheWritersShareHoldsNoMoreBuffers() throws IOException {
        SpillFile file = space.newFile("crowded");
        try (PartitionWriter writer = file.openWriter(budget, BUFFER, SHARED_BUFFERS)) {
            for (int i = 1; i < SHARED_BUFFERS; i++) {
                assertThat(writer.sideWriter()).as("side " + i).isNotNull();
            }
            assertThat(writer.sideWriter()).isNull();
            writer.finish();
            assertThat(file.rowCount()).isZero();
        }
        assertThat(readAll(file)).isEmpty();
    }

    @Test
    void aOneMegabyteRecordIsItsOwnBlockAndRecordsAreNeverSplit() throws IOException {
        SpillFile file = space.newFile("big");
        byte[] small = new byte[1000];
        byte[] big = new byte[1 << 20];
        new SplittableRandom(1).nextBytes(big);
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            records.append(writer, small);
            records.append(writer, small);
            records.append(writer, big);
            records.append(writer, small);
            writer.finish();
        }
        assertThat(file.blockCount()).isEqualTo(3);
        assertThat(file.length()).isEqualTo(3 * 8 + 2 * 1004 + 4 + (1 << 20) + 1004);
        assertThat(file.length() % WINDOW).as("the last window reaches past the trimmed end").isNotZero();
        try (PartitionReader reader = file.openReader(budget)) {
            List<Integer> blockLengths = new ArrayList<>();
            while (reader.nextBlock()) {
                blockLengths.add(reader.blockLength());
            }
            assertThat(blockLengths).containsExactly(2 * (4 + 1000), 4 + (1 << 20), 4 + 1000);
        }
    }

    @Test
    void recordsWrittenInPlaceRoundTrip() throws IOException {
        SpillFile file = space.newFile("in-place");
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            for (int i = 0; i < 10_000; i++) {
                long at = writer.reserveRecord(12);
                NativeMemory.putInt(at, 8);
                NativeMemory.putLong(at + 4, i * 31L);
            }
            assertThatThrownBy(() -> writer.reserveRecord(BUFFER))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("write it with append()");
            writer.finish();
        }
        List<byte[]> read = readAll(file);
        assertThat(read).hasSize(10_000);
        for (int i = 0; i < read.size(); i++) {
            assertThat(ByteBuffer.wrap(read.get(i)).order(java.nio.ByteOrder.nativeOrder()).getLong())
                    .isEqualTo(i * 31L);
        }
    }

    @Test
    void partitionedWriterBoundsMemoryAndReleasesBuffersOnRequest() throws IOException {
        SplittableRandom random = SeededRandom.create("partitionedWriterBoundsMemoryAndReleasesBuffersOnRequest");
        int partitions = 64;
        List<List<byte[]>> expected = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            expected.add(new ArrayList<>());
        }
        long maxBytes = PartitionedSpillWriter.memoryBytes(partitions, BUFFER, SHARED_BUFFERS);
        try (PartitionedSpillWriter writer = space.newPartitionedWriter("probe", partitions, budget, BUFFER,
                SHARED_BUFFERS)) {
            assertThat(writer.reservedBytes()).isEqualTo(PartitionedSpillWriter.memoryBytes(0, BUFFER, SHARED_BUFFERS));
            for (int i = 0; i < 20_000; i++) {
                int p = random.nextInt(partitions / 2) * 2;
                byte[] record = randomRecord(random, i % 997 == 0 ? 2 * BUFFER : 100);
                expected.get(p).add(record);
                records.append(writer, p, record);
                if (i % 1000 == 999) {
                    writer.releaseBuffer(p);
                    assertThat(writer.holdsBuffer(p)).isFalse();
                }
                assertThat(writer.reservedBytes()).isLessThanOrEqualTo(maxBytes);
            }
            int held = 0;
            for (int p = 0; p < partitions; p++) {
                held += writer.holdsBuffer(p) ? 1 : 0;
            }
            assertThat(held).isLessThanOrEqualTo(partitions / 2);
            assertThat(writer.reservedBytes())
                    .isEqualTo(PartitionedSpillWriter.memoryBytes(held, BUFFER, SHARED_BUFFERS));
            writer.finish();
            assertThat(writer.reservedBytes()).isZero();
            for (int p = 0; p < partitions; p++) {
                assertThat(writer.rowCount(p)).isEqualTo(expected.get(p).size());
                assertThat(readAll(writer.file(p))).containsExactlyElementsOf(expected.get(p));
            }
        }
    }

    @Test
    void aFileIsReadOnceAndOnlyWhenFinished() throws IOException {
        SpillFile file = space.newFile("once");
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            records.append(writer, new byte[10]);
            assertThatThrownBy(() -> file.openReader(budget))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("finish its writer first");
            writer.finish();
        }
        assertThatThrownBy(() -> file.openWriter(budget, BUFFER))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already has a writer");
        assertThat(readAll(file)).hasSize(1);
        assertThatThrownBy(() -> file.openReader(budget))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not after it was closed");
    }

    @Test
    void aPartitionFinishedAheadIsReadableWhileTheOthersTakeRecords() throws IOException {
        try (PartitionedSpillWriter writer = space.newPartitionedWriter("ahead", 2, budget, BUFFER, SHARED_BUFFERS)) {
            records.append(writer, 0, new byte[] {1});
            records.append(writer, 1, new byte[] {2});
            writer.finish(0);
            assertThat(writer.file(0).isSealed()).isTrue();
            assertThat(writer.file(1).isSealed()).isFalse();
            records.append(writer, 1, new byte[] {3});
            writer.finish(); // seals partition 1 and leaves partition 0 as it was
            assertThat(readAll(writer.file(0))).containsExactly(new byte[] {1});
            assertThat(readAll(writer.file(1))).containsExactly(new byte[] {2}, new byte[] {3});
        }
    }

    @Test
    void aReleasedReaderLeavesTheFileToReadAgain() throws IOException {
        SpillFile file = space.newFile("again");
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            for (int i = 0; i < 300; i++) {
                records.append(writer, new byte[] {(byte) i, (byte) (i >> 8)});
            }
            writer.finish();
        }
        long reserved = budget.reserved();
        PartitionReader first = file.openReader(budget);
        assertThat(first.nextBlock()).isTrue();
        assertThatThrownBy(() -> file.openReader(budget))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("one reader at a time");
        first.release();
        first.close(); // a released reader's close does nothing: the file stays
        assertThat(budget.reserved()).isEqualTo(reserved);
        assertThat(file.path()).exists();
        assertThat(file.isSealed()).isTrue();
        List<byte[]> read = readAll(file); // from the start, and closed: deleted
        assertThat(read).hasSize(300);
        for (int i = 0; i < 300; i++) {
            assertThat(read.get(i)).containsExactly((byte) i, (byte) (i >> 8));
        }
    }

    @Test
    void anEmptyFileReadsAsNoBlocks() throws IOException {
        SpillFile file = space.newFile("empty");
        file.openWriter(budget, BUFFER).finish();
        assertThat(readAll(file)).isEmpty();
        assertThat(file.length()).isZero();
    }

    @Test
    void aFlippedPayloadByteIsDetected() throws IOException {
        SpillFile file = writeBlocks("flip", 20);
        flipByte(file.path(), 3 * BUFFER + 100);
        assertCorruptAt(file, "CRC32C mismatch");
    }

    @Test
    void aFlippedLengthByteIsDetected() throws IOException {
        SpillFile file = writeBlocks("flip-length", 20);
        flipByte(file.path(), 0);
        assertCorruptAt(file, "block offset 0");
    }

    @Test
    void cancellingStopsWritingAtTheNextBlockAndCleanupLeavesNothing() throws IOException {
        SpillFile file = space.newFile("cancelled");
        PartitionWriter writer = file.openWriter(budget, BUFFER);
        records.append(writer, new byte[3000]);
        space.cancel();
        assertThatThrownBy(() -> records.append(writer, new byte[3000]))
                .isInstanceOf(CancellationException.class)
                .hasMessageContaining("cancelled");
        assertThat(budget.reserved()).isPositive();
        space.close();
        assertThat(budget.reserved()).isEqualTo(records.reserved());
        assertThat(file.path()).doesNotExist();
    }

    @Test
    void cancellingStopsReadingAtTheNextBlock() throws IOException {
        SpillFile file = writeBlocks("cancel-read", 10);
        PartitionReader reader = file.openReader(budget);
        assertThat(reader.nextBlock()).isTrue();
        space.cancel();
        assertThatThrownBy(reader::nextBlock).isInstanceOf(CancellationException.class);
        space.close();
        assertThat(budget.reserved()).isEqualTo(records.reserved());
    }

    @Test
    void anInterruptedThreadStopsAtTheNextBlock() throws IOException {
        SpillFile file = space.newFile("interrupted");
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            records.append(writer, new byte[3000]);
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> records.append(writer, new byte[3000]))
                    .isInstanceOf(CancellationException.class)
                    .hasMessageContaining("interrupted");
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Test
    void anInjectedWriteFailureFailsTheWriterAndCleanupLeavesNothing() throws IOException {
        space.failWritesAfterBlocks(3);
        try (PartitionedSpillWriter writer = space.newPartitionedWriter("build", 4, budget, BUFFER, 1)) {
            assertThatThrownBy(() -> {
                for (int i = 0; i < 1000; i++) {
                    records.append(writer, i % 4, new byte[1000]);
                }
            }).isInstanceOf(IOException.class).hasMessageContaining("injected write failure");
            assertThat(space.counters().blocksWritten()).isEqualTo(3);
            assertThatThrownBy(writer::finish)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("injected write failure");
        }
        assertThat(budget.reserved()).isEqualTo(records.reserved());
    }

    @Test
    void aWriterRefusesRecordsAfterAFailedWrite() throws IOException {
        space.failWritesAfterBlocks(0);
        PartitionWriter writer = space.newFile("fails").openWriter(budget, BUFFER);
        records.append(writer, new byte[3000]);
        assertThatThrownBy(() -> records.append(writer, new byte[3000]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("injected write failure");
        assertThatThrownBy(() -> records.append(writer, new byte[10])) // the disk's error again, not the state's
                .isInstanceOf(IOException.class)
                .hasMessageContaining("failed earlier")
                .hasMessageContaining("injected write failure");
        assertThat(writer.file().length()).isZero();
        writer.close();
        assertThat(budget.reserved()).isEqualTo(records.reserved());
    }

    @Test
    void aBudgetTooSmallForTheWritersShareIsRefusedAtTheFirstRecordWithNothingHeld() throws IOException {
        try (MemoryReservation tiny = MemoryReservation.root("tiny join", SHARED_BUFFERS * BUFFER - 1)) {
            PartitionWriter writer = space.newFile("refused").openWriter(tiny, BUFFER, SHARED_BUFFERS);
            assertThatThrownBy(() -> records.append(writer, new byte[10]))
                    .isInstanceOf(MemoryExhaustedException.class)
                    .hasMessageContaining("needs 16kB (4 buffers of 4kB)");
            assertThat(tiny.reserved()).isZero();
            writer.close();
        }
    }

    @Test
    void aPartitionBeyondTheBudgetIsRefusedUntilAnotherReleasesItsBuffer() throws IOException {
        long onePartition = PartitionWriter.memoryBytes(BUFFER, SHARED_BUFFERS);
        try (MemoryReservation small = MemoryReservation.root("small join", onePartition)) {
            PartitionedSpillWriter writer = space.newPartitionedWriter("two", 2, small, BUFFER, SHARED_BUFFERS);
            records.append(writer, 0, new byte[10]);
            assertThatThrownBy(() -> records.append(writer, 1, new byte[10]))
                    .isInstanceOf(MemoryExhaustedException.class)
                    .hasMessageContaining("release other partitions' buffers");
            writer.releaseBuffer(0);
            records.append(writer, 1, new byte[10]);
            assertThat(small.peakReserved()).isEqualTo(onePartition);
            writer.close();
            assertThat(small.reserved()).isZero();
        }
    }

    private SpillFile writeBlocks(String label, int blocks) throws IOException {
        SpillFile file = space.newFile(label);
        try (PartitionWriter writer = file.openWriter(budget, BUFFER)) {
            for (int i = 0; i < blocks; i++) {
                records.append(writer, new byte[BUFFER - 8 - 4]);
            }
            writer.finish();
        }
        assertThat(file.blockCount()).isEqualTo(blocks);
        return file;
    }

    private void assertCorruptAt(SpillFile file, String message) throws IOException {
        try (PartitionReader reader = file.openReader(budget)) {
            assertThatThrownBy(() -> {
                while (reader.nextBlock()) {
                    assertThat(reader.blockLength()).isEqualTo(BUFFER - 8);
                }
            }).isInstanceOf(SpillCorruptionException.class)
                    .hasMessageContaining(file.path().toString())
                    .hasMessageContaining(message);
        }
    }

    private static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x10));
            one.rewind();
            channel.write(one, offset);
        }
    }

    private static byte[] randomRecord(SplittableRandom random, int maxLength) {
        byte[] record = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(record);
        return record;
    }

    /** Reads every record ({@code [length:int][bytes]}) of a file; closing the reader deletes the file. */
    private List<byte[]> readAll(SpillFile file) throws IOException {
        List<byte[]> read = new ArrayList<>();
        try (PartitionReader reader = file.openReader(budget)) {
            while (reader.nextBlock()) {
                long at = reader.blockAddress();
                long end = at + reader.blockLength();
                while (at < end) {
                    int length = NativeMemory.getInt(at);
                    byte[] record = new byte[length];
                    NativeMemory.copyToArray(at + 4, record, 0, length);
                    read.add(record);
                    at += 4 + length;
                }
                assertThat(at).isEqualTo(end);
            }
        }
        assertThat(file.path()).doesNotExist();
        return read;
    }

    /** Stages test records off-heap (in the same budget) as {@code [length:int][bytes]} and appends them. */
    private static final class RecordSource implements AutoCloseable {
        private final MemoryReservation memory;
        private final NativeMemory.NativePage staging;

        RecordSource(MemoryReservation budget, int bytes) {
            memory = budget.newChild("test records");
            assertThat(memory.tryGrow(bytes)).isTrue();
            staging = NativeMemory.allocate(memory, bytes);
        }

        private int stage(byte[] record) {
            NativeMemory.putInt(staging.address(), record.length);
            NativeMemory.copyFromArray(record, 0, staging.address() + 4, record.length);
            return 4 + record.length;
        }

        void append(PartitionWriter writer, byte[] record) throws IOException {
            writer.append(staging.address(), stage(record));
        }

        void append(PartitionedSpillWriter writer, int partition, byte[] record) throws IOException {
            writer.append(partition, staging.address(), stage(record));
        }

        long reserved() {
            return memory.reserved();
        }

        @Override
        public void close() {
            memory.close();
        }
    }
}
