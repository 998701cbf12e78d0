package dev.spilljoin.bench.micro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.PartitionPages;
import dev.spilljoin.operator.internal.MicroBenchmarkAccess.RowPages;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Runs every microbenchmark method once or twice outside JMH, through its own set-up and tear-down methods with
 * its smaller parameters, and checks that it computes what the operation must produce and leaves nothing behind (the
 * budgets' tear-down throws if any off-heap byte is still reserved; spill directories must be gone).
 */
class MicroBenchmarksTest {

    @Test
    void arenaBytesIsWhatSerializingTakes() {
        for (int rows : new int[] {1, 5461, 5462, 32768}) {
            MemoryReservation memory = BenchBudget.open("arena", KeyValueRows.arenaBytes(rows));
            RowPages arena = KeyValueRows.serialize(KeyValueRows.shuffledRange(0, rows, 7), memory);
            assertThat(arena.rowCount()).isEqualTo(rows);
            assertThat(arena.reservedBytes()).as("%d rows", rows).isEqualTo(KeyValueRows.arenaBytes(rows));
            arena.close();
            BenchBudget.close(memory);
        }
    }

    @Test
    void hashBatchGivesTheKeyHashOfEveryBigintRow() {
        HashBenchmark bench = new HashBenchmark();
        bench.keyType = "BIGINT";
        bench.setUp();
        bench.hashBatch();
        ColumnVector keys = bench.batch().column(0);
        for (int i = 0; i < KeyValueRows.BATCH_ROWS; i++) {
            assertThat(bench.hashes()[i]).isEqualTo(MicroBenchmarkAccess.keyHash(keys.getLong(i)));
        }
    }

    @Test
    void hashBatchGivesTheKeyHashOfEveryVarcharRow() {
        HashBenchmark bench = new HashBenchmark();
        bench.keyType = "VARCHAR";
        bench.setUp();
        bench.hashBatch();
        ColumnVector keys = bench.batch().column(0);
        for (int i = 0; i < KeyValueRows.BATCH_ROWS; i++) {
            byte[] text = keys.getBytes(i);
            assertThat(text).hasSize(16);
            assertThat(bench.hashes()[i]).isEqualTo(MicroBenchmarkAccess.keyHash(text));
        }
    }

    @Test
    void tableBuildCopiesEveryRowIntoEachFreshTable() {
        TableBuildBenchmark bench = new TableBuildBenchmark();
        bench.rows = 32768;
        TableBuildBenchmark.RowCounter counter = new TableBuildBenchmark.RowCounter();
        bench.setUp();
        for (int invocation = 1; invocation <= 2; invocation++) {
            bench.newRows();
            assertThat(bench.build(counter)).isEqualTo(32768);
            assertThat(bench.table().slotCount()).isEqualTo(32768);
            assertThat(bench.table().bytesPerRow()).as("16 bytes of row, 8 of directory").isEqualTo(24.0, within(0.01));
            bench.closeTable();
            assertThat(counter.rows).isEqualTo(32768L * invocation);
        }
        bench.tearDown();
    }

    @Test
    void probeOfAllHitsFindsOneMatchPerRow() {
        assertProbeResults("HASH", "HITS", KeyValueRows.BATCH_ROWS);
        assertProbeResults("DIRECT", "HITS", KeyValueRows.BATCH_ROWS);
    }

    @Test
    void probeOfAllMissesFindsNothing() {
        assertProbeResults("HASH", "MISSES", 0);
        assertProbeResults("DIRECT", "MISSES", 0);
    }

    private static void assertProbeResults(String table, String probeKeys, long expectedPerBatch) {
        ProbeBenchmark bench = new ProbeBenchmark();
        bench.tableRows = 32768;
        bench.table = table;
        bench.probeKeys = probeKeys;
        bench.setUp();
        for (int b = 0; b < ProbeBenchmark.PROBE_BATCHES + 1; b++) {
            assertThat(bench.probeBatch()).as("batch %d", b).isEqualTo(expectedPerBatch);
        }
        bench.tearDown();
    }

    @Test
    void partitionOfGivesTheTopBitsOfH1() {
        PartitionBenchmark bench = new PartitionBenchmark();
        bench.fanout = 16;
        bench.setUp();
        long lastKey = bench.firstBatch().column(0).getLong(KeyValueRows.BATCH_ROWS - 1);
        long hash = MicroBenchmarkAccess.keyHash(lastKey);
        assertThat(bench.partitionOf()).isEqualTo((int) (MicroBenchmarkAccess.partitionHash(hash, 0) >>> 60));
    }

    @Test
    void scatterPutsEveryRowIntoTheArenaOfItsPartition() {
        PartitionBenchmark bench = new PartitionBenchmark();
        bench.fanout = 16;
        bench.setUp();
        PartitionBenchmark.PartitionArenas target = new PartitionBenchmark.PartitionArenas();
        target.open();
        for (int invocation = 0; invocation < 2; invocation++) {
            bench.scatter(target);
            PartitionPages arenas = target.arenas();
            long total = 0;
            for (int part = 0; part < PartitionBenchmark.MAX_FANOUT; part++) {
                long[] hashes = arenas.storedHashes(part);
                assertThat(hashes).hasSize((int) arenas.rowCount(part));
                if (part >= 16) {
                    assertThat(hashes).as("arena %d beyond the fanout", part).isEmpty();
                }
                total += hashes.length;
                for (long hash : hashes) {
                    assertThat((int) (MicroBenchmarkAccess.partitionHash(hash, 0) >>> 60)).isEqualTo(part);
                }
            }
            assertThat(total).isEqualTo(PartitionBenchmark.SCATTER_ROWS);
            target.empty();
        }
        target.close();
    }

    @Test
    void spillWriteWritesEveryRowAndDeletesEachFile() throws IOException {
        SpillWriteBenchmark bench = new SpillWriteBenchmark();
        bench.windowBytes = 64 * 1024;
        bench.setUp();
        Path directory = bench.rows().space().directory();
        for (int invocation = 0; invocation < 2; invocation++) {
            bench.openWriter();
            long length = bench.write();
            SpillFile file = bench.file();
            assertThat(file.rowCount()).isEqualTo(SpillRows.ROWS);
            assertThat(length).isEqualTo(bench.rows().bytes() + 8 * file.blockCount());
            bench.deleteFile();
            assertThat(bench.rows().space().liveFiles()).isZero();
        }
        bench.tearDown();
        assertThat(Files.exists(directory)).isFalse();
    }

    @Test
    void spillReadGivesBackTheRowsWritten() throws IOException {
        SpillReadBenchmark bench = new SpillReadBenchmark();
        bench.windowBytes = 64 * 1024;
        bench.setUp();
        Path directory = bench.rows().space().directory();
        for (int invocation = 0; invocation < 2; invocation++) {
            bench.writeFile();
            assertThat(bench.read()).isEqualTo(bench.rows().hashSum());
            bench.closeReader();
            assertThat(bench.rows().space().liveFiles()).isZero();
        }
        bench.tearDown();
        assertThat(Files.exists(directory)).isFalse();
    }

    @Test
    void fileChannelWritesAndReadsBackTheSameRows() throws IOException {
        FileChannelBenchmark bench = new FileChannelBenchmark();
        bench.setUp();
        Path directory = bench.rows().space().directory();
        for (int invocation = 0; invocation < 2; invocation++) {
            bench.truncateWriteFile();
            assertThat(bench.write()).isEqualTo(bench.rows().bytes());
            assertThat(bench.read()).isEqualTo(bench.rows().hashSum());
        }
        bench.tearDown();
        assertThat(Files.exists(directory)).isFalse();
    }
}
