package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.table.UnchainedTable;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HashFunctionsTest {

    @Test
    void partitionsAreBalancedForKeysDifferingOnlyInHighBitsAtEveryLevel() {
        for (int level = 0; level < 4; level++) {
            int[] counts = new int[16];
            for (long i = 0; i < 1 << 16; i++) {
                long h = HashFunctions.combine(HashFunctions.KEY_SEED, i << 32);
                counts[HashFunctions.partitionOf(h, level, 4)]++;
            }
            for (int c : counts) {
                assertThat(c).as("level %d", level).isBetween(4096 - 400, 4096 + 400);
            }
        }
    }

    @Test
    void aPartitionOfOneLevelSplitsEvenlyAtTheNextLevelAndAcrossBuckets() {
        int[] nextLevel = new int[16];
        int[] buckets = new int[16];
        int inPartition = 0;
        for (long i = 0; i < 1 << 18; i++) {
            long h = HashFunctions.combine(HashFunctions.KEY_SEED, i);
            if (HashFunctions.partitionOf(h, 0, 4) == 5) {
                inPartition++;
                nextLevel[HashFunctions.partitionOf(h, 1, 4)]++;
                buckets[HashFunctions.bucketOf(h, 4)]++;
            }
        }
        for (int p = 0; p < 16; p++) {
            assertThat(nextLevel[p]).isBetween(inPartition / 16 * 8 / 10, inPartition / 16 * 12 / 10);
            assertThat(buckets[p]).isBetween(inPartition / 16 * 8 / 10, inPartition / 16 * 12 / 10);
        }
    }

    @Test
    void batchHashesAgreeAcrossEqualKeysAndMarkNullKeys() {
        Schema s = Schema.of(Column.of("d", ColumnType.DOUBLE), Column.of("t", ColumnType.VARCHAR));
        List<Batch> batches = new BatchBuilder(s, 8).addRow(-0.0, "abcdefghij").addRow(0.0, "abcdefghij")
                .addRow(Double.NaN, "é").addRow(Double.longBitsToDouble(0x7ff8000000000001L), "é")
                .addRow(null, "é").addRow(1.0, "abcdefghik").build();
        long[] hashes = new long[6];
        long[] nulls = new long[1];
        boolean anyNull = new KeyHasher(new int[]{0, 1}).hash(batches.get(0), hashes, nulls);
        assertThat(anyNull).isTrue();
        assertThat(nulls[0]).isEqualTo(1L << 4);
        assertThat(hashes[0]).isEqualTo(hashes[1]);
        assertThat(hashes[2]).isEqualTo(hashes[3]);
        assertThat(hashes[0]).isNotEqualTo(hashes[5]);
        assertThat(HashFunctions.tagOf(hashes[0]) & UnchainedTable.ADDRESS_MASK).isZero();
    }

    @Test
    void stringHashesDependOnEveryByte() {
        byte[] a = "0123456789abcdefXYZ".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long base = HashFunctions.hashBytes(a, 0, a.length);
        for (int i = 0; i < a.length; i++) {
            byte[] b = a.clone();
            b[i] ^= 1;
            assertThat(HashFunctions.hashBytes(b, 0, b.length)).as("byte %d", i).isNotEqualTo(base);
        }
        assertThat(HashFunctions.hashBytes(a, 0, 0)).isNotEqualTo(HashFunctions.hashBytes(new byte[1], 0, 1));
    }
}
