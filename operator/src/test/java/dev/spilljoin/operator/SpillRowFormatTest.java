package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.row.SpilledRowDecoder;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Round trips through the spill encoding: in-memory rows written by {@link RowWriter} are encoded
 * ({@link SpillRowFormat}), then expanded back into in-memory rows (which must equal the originals byte for byte)
 * and decoded into a batch ({@link SpilledRowDecoder}, which must equal the input batch on every column
 * the layout holds), with NULLs, NULL keys and MATCHED flags carried, and the key hash either stored (a variable-width
 * key) or recomputed from the key (fixed-width key fields, with or without variable-width payloads) equal to the
 * batch's.
 */
class SpillRowFormatTest {
    /** Nine columns of every type, so the encoded bits take two bytes; keys BIGINT and VARCHAR. */
    private static final Schema WIDE = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("s", ColumnType.VARCHAR),
            Column.of("i", ColumnType.INTEGER), Column.of("d", ColumnType.DOUBLE), Column.of("b", ColumnType.BOOLEAN),
            Column.of("t", ColumnType.VARCHAR), Column.of("y", ColumnType.VARBINARY), Column.of("l", ColumnType.BIGINT),
            Column.of("j", ColumnType.INTEGER));
    private static final Schema LONG_KV = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    /** A BIGINT key with a string payload, as every CSV side the CLI reads (its non-key columns are strings). */
    private static final Schema LONG_KEY_TEXT = Schema.of(Column.of("k", ColumnType.BIGINT),
            Column.of("s", ColumnType.VARCHAR), Column.of("y", ColumnType.VARBINARY));
    /** Every fixed-width key type in one composite key, and a payload. */
    private static final Schema FIXED_KEYS = Schema.of(Column.of("i", ColumnType.INTEGER),
            Column.of("d", ColumnType.DOUBLE), Column.of("b", ColumnType.BOOLEAN), Column.of("l", ColumnType.BIGINT),
            Column.of("p", ColumnType.INTEGER));
    private MemoryReservation root;

    @BeforeEach
    void openBudget() {
        root = MemoryReservation.root("format-test", 64L << 20);
    }

    @AfterEach
    void releaseBudget() {
        JoinRunner.assertMemoryReleased(root);
        root.close();
    }

    private static List<Object[]> wideRows() {
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[]{1L, "a", 7, -0.0, true, "payload", new byte[]{1, 2, 3}, Long.MIN_VALUE, -1});
        rows.add(new Object[]{null, "b", null, Double.NaN, null, null, new byte[0], null, 2});
        rows.add(new Object[]{3L, null, 9, null, false, "", null, 5L, null});
        rows.add(new Object[]{Long.MAX_VALUE, "日本語".repeat(50), Integer.MIN_VALUE, 1e300, true, "x".repeat(3000),
                new byte[]{-1}, 0L, 0});
        rows.add(new Object[]{null, null, null, null, null, null, null, null, null});
        return rows;
    }

    @Test
    void everyColumnTypeWithNullsNullKeysAndMatchedFlagsRoundTrips() {
        RowLayout layout = new RowLayout(WIDE, new int[]{0, 1}, new int[]{0, 1, 2, 3, 4, 5, 6, 7, 8});
        SpillRowFormat format = new SpillRowFormat(layout);
        assertThat(format.isFixedWidth()).isFalse();
        assertThat(format.headerBytes()).as("length, hash, two bytes of bits").isEqualTo(4 + 8 + 2);
        Batch batch = Rows.toBatches(WIDE, wideRows(), 16).get(0);
        roundTrip(format, WIDE, batch, new int[]{0, 1});
    }

    @Test
    void aFixedWidthBigintPairIsSeventeenBytesAndRoundTrips() {
        RowLayout layout = new RowLayout(LONG_KV, new int[]{0}, new int[]{0, 1});
        SpillRowFormat format = new SpillRowFormat(layout);
        assertThat(format.isFixedWidth()).isTrue();
        List<Object[]> rows = List.of(new Object[]{1L, 2L}, new Object[]{null, 3L}, new Object[]{4L, null},
                new Object[]{-5L, Long.MAX_VALUE});
        Batch batch = Rows.toBatches(LONG_KV, rows, 16).get(0);
        long[] encoded = roundTrip(format, LONG_KV, batch, new int[]{0});
        for (long length : encoded) {
            assertThat(length).isEqualTo(17);
        }
        assertThat(layout.fixedRowLength()).as("in memory, the same bytes").isEqualTo(17);
    }

    @Test
    void aFixedWidthKeyWithStringPayloadsStoresNoHashAndRoundTrips() {
        RowLayout layout = new RowLayout(LONG_KEY_TEXT, new int[]{0}, new int[]{0, 1, 2});
        SpillRowFormat format = new SpillRowFormat(layout);
        assertThat(format.isFixedWidth()).isFalse();
        assertThat(format.headerBytes()).as("length, one byte of bits, no hash").isEqualTo(4 + 1);
        List<Object[]> rows = List.of(new Object[]{1L, "1078082296", new byte[]{1}},
                new Object[]{null, "b", new byte[0]}, new Object[]{Long.MIN_VALUE, null, null},
                new Object[]{-5L, "", new byte[]{-1, 0, 1}}, new Object[]{Long.MAX_VALUE, "x".repeat(3000), null},
                new Object[]{null, null, null}, new Object[]{0L, "日本語", new byte[]{7}});
        Batch batch = Rows.toBatches(LONG_KEY_TEXT, rows, 16).get(0);
        long[] encoded = roundTrip(format, LONG_KEY_TEXT, batch, new int[]{0});
        assertThat(encoded[0]).as("length, bits, key, and two values with their lengths")
                .isEqualTo(4 + 1 + 8 + (4 + 10) + (4 + 1));
    }

    @Test
    void fixedWidthRowsRecomputeTheKeyHashOfEveryFixedKeyType() {
        RowLayout layout = new RowLayout(FIXED_KEYS, new int[]{0, 1, 2, 3}, new int[]{0, 1, 2, 3, 4});
        SpillRowFormat format = new SpillRowFormat(layout);
        assertThat(format.isFixedWidth()).isTrue();
        List<Object[]> rows = List.of(new Object[]{-7, -0.0, true, Long.MIN_VALUE, 1},
                new Object[]{Integer.MIN_VALUE, Double.NaN, false, -1L, null},
                new Object[]{0, 0.0, false, 0L, 3}, new Object[]{null, 1.5, true, 2L, 4},
                new Object[]{Integer.MAX_VALUE, -1e300, null, Long.MAX_VALUE, Integer.MIN_VALUE});
        Batch batch = Rows.toBatches(FIXED_KEYS, rows, 16).get(0);
        roundTrip(format, FIXED_KEYS, batch, new int[]{0, 1, 2, 3});
    }

    /**
     * Writes {@code batch} as in-memory rows (MATCHED set on every other row), encodes them back to back (the last
     * one in place, over itself), expands and decodes the encoded block and checks both against the originals.
     * Returns the encoded lengths.
     */
    private long[] roundTrip(SpillRowFormat format, Schema schema, Batch batch, int[] keys) {
        RowLayout layout = format.layout();
        int n = batch.rowCount();
        long[] hashes = new long[n];
        long[] nullKeys = new long[1];
        new KeyHasher(keys).hash(batch, hashes, nullKeys);
        try (RowArena rows = new RowArena(root, 1 << 16); RowArena expanded = new RowArena(root, 1 << 16)) {
            RowWriter writer = new RowWriter(layout);
            assertThat(writer.write(batch, 0, hashes, nullKeys, true, rows)).isEqualTo(n);
            long[] addresses = writer.writtenAddresses().clone();
            long[] lengths = new long[n];
            long total = 0;
            for (int i = 0; i < n; i++) {
                if (i % 2 == 1) {
                    layout.setMatched(addresses[i]);
                }
                lengths[i] = format.encodedLength(addresses[i]);
                if (layout.hasVariableKey()) {
                    assertThat(lengths[i]).as("row %d: less its key length", i)
                            .isLessThan(layout.rowLength(addresses[i]));
                } else {
                    assertThat(lengths[i]).as("row %d: its own encoding", i).isEqualTo(layout.rowLength(addresses[i]));
                }
                total += lengths[i];
            }
            assertThat(root.tryGrow(total)).isTrue();
            try (NativeMemory.NativePage block = NativeMemory.allocate(root, total)) {
                long at = block.address();
                for (int i = 0; i < n; i++) {
                    if (i == n - 1) {
                        long copy = rows.tryAllocate(layout.rowLength(addresses[i]));
                        NativeMemory.copy(addresses[i], copy, layout.rowLength(addresses[i]));
                        format.encode(copy, copy, (int) lengths[i]);
                        NativeMemory.copy(copy, at, lengths[i]);
                    } else {
                        format.encode(addresses[i], at, (int) lengths[i]);
                    }
                    assertThat(format.rowLength(at)).isEqualTo((int) lengths[i]);
                    boolean nullKey = ((nullKeys[0] >>> i) & 1) != 0;
                    if (!nullKey) {
                        assertThat(format.hash(at)).as("hash of row %d", i).isEqualTo(hashes[i]);
                    }
                    assertThat(format.hasNullKey(at)).isEqualTo(nullKey);
                    assertThat(format.isMatched(at)).isEqualTo(i % 2 == 1);
                    at += lengths[i];
                }
                assertThat(format.expandedBytes(block.address(), (int) total))
                        .isLessThanOrEqualTo(format.expandedBytesBound(total, n));
                assertThat(format.expandBlock(expanded, block.address(), (int) total)).isTrue();
                assertThat(expanded.rowCount()).isEqualTo(n);
                assertThat(expanded.pageUsed(0)).isEqualTo(format.expandedBytes(block.address(), (int) total));
                long row = expanded.pageAddress(0);
                for (int i = 0; i < n; i++) {
                    assertSameRow(layout, addresses[i], row, i, ((nullKeys[0] >>> i) & 1) != 0);
                    row += layout.rowLength(row);
                }

                SpilledRowDecoder decoder = new SpilledRowDecoder(format, schema, 64);
                assertThat(decoder.decode(block.address(), (int) total, 0, true)).isEqualTo((int) total);
                Batch decoded = decoder.batch();
                assertThat(decoded.rowCount()).isEqualTo(n);
                for (int i = 0; i < n; i++) {
                    if (((nullKeys[0] >>> i) & 1) == 0) {
                        assertThat(decoder.hashes()[i]).isEqualTo(hashes[i]);
                    }
                    assertThat((decoder.nullKeys()[0] >>> i) & 1).as("NULL key of row %d", i)
                            .isEqualTo((nullKeys[0] >>> i) & 1);
                    assertThat((decoder.matchedBefore()[0] >>> i) & 1).isEqualTo(i % 2);
                    for (int f = 0; f < layout.fieldCount(); f++) {
                        int c = layout.sourceColumn(f);
                        assertThat(Rows.render(new Object[]{Rows.value(decoded.column(c), i)}))
                                .as("row %d column %d", i, c)
                                .isEqualTo(Rows.render(new Object[]{Rows.value(batch.column(c), i)}));
                    }
                }
            } finally {
                root.shrink(total);
            }
            return lengths;
        }
    }

    /**
     * The rows agree on every byte but the padding, and, for a NULL-key row whose hash the spill format recomputes
     * (fixed-width key fields in a variable-width row: the hash of the zeros a NULL key holds, where the stored one is
     * meaningless), but that hash.
     */
    private static void assertSameRow(RowLayout layout, long original, long expanded, int i, boolean nullKey) {
        boolean variableKey = false;
        for (int f = 0; f < layout.keyCount(); f++) {
            variableKey |= layout.fieldType(f).isVariableWidth();
        }
        boolean recomputedNullKeyHash = nullKey && layout.isVariableWidth() && !variableKey;
        assertThat(layout.rowLength(expanded)).as("length of row %d", i).isEqualTo(layout.rowLength(original));
        assertThat(layout.keyLength(expanded)).isEqualTo(layout.keyLength(original));
        if (!recomputedNullKeyHash) {
            assertThat(layout.hash(expanded)).as("hash of row %d", i).isEqualTo(layout.hash(original));
        }
        int end = layout.keyOffset() + new SpillRowFormat(layout).encodedLength(original)
                - new SpillRowFormat(layout).headerBytes();
        for (int b = 0; b < end; b++) {
            boolean hashByte = b >= 8 && b < 16;
            if (!(recomputedNullKeyHash && hashByte)) {
                assertThat(NativeMemory.getByte(expanded + b)).as("byte %d of row %d", b, i)
                        .isEqualTo(NativeMemory.getByte(original + b));
            }
        }
    }
}
