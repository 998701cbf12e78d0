package dev.spilljoin.operator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyEncoder;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The unchained table on its own: its slots, its compact rows, NULL-key rows, MATCHED marks and its memory. Rows are
 * written as the build writes them (hashed, serialized into a {@link RowArena}), probed with {@link HashProbe} and
 * scanned with {@link BuildRowScan}; results are compared as "probe key|build key|build value" strings.
 */
class UnchainedTableTest {
    private static final Schema KV = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    private static final Schema TEXT = Schema.of(Column.of("k", ColumnType.VARCHAR), Column.of("v", ColumnType.VARCHAR));
    private static final int[] KEY = {0};
    private static final int PAGE = 64 * 1024;

    private final MemoryReservation memory = MemoryReservation.root("unchained table test", 256L << 20);

    @AfterEach
    void everyByteReturned() {
        assertThat(memory.reserved()).as("bytes still reserved after the test").isZero();
        memory.close();
    }

    private static RowLayout layoutOf(Schema schema) {
        return new RowLayout(schema, KEY, new int[] {0, 1});
    }

    /** The rows as the build writes them: hashed, serialized (NULL keys kept) into a fresh arena. */
    private RowArena arenaOf(Schema schema, List<Object[]> rows) {
        return arenaOf(memory, schema, rows);
    }

    static RowArena arenaOf(MemoryReservation memory, Schema schema, List<Object[]> rows) {
        RowArena arena = new RowArena(memory, PAGE);
        RowWriter writer = new RowWriter(layoutOf(schema));
        KeyHasher hasher = new KeyHasher(KEY);
        for (Batch batch : batchesOf(schema, rows)) {
            int n = batch.rowCount();
            long[] hashes = new long[n];
            long[] nullKeys = new long[(n + 63) >>> 6];
            hasher.hash(batch, hashes, nullKeys);
            assertThat(writer.write(batch, 0, hashes, nullKeys, true, arena)).isEqualTo(n);
        }
        return arena;
    }

    private static List<Batch> batchesOf(Schema schema, List<Object[]> rows) {
        BatchBuilder builder = new BatchBuilder(schema, 1024);
        for (Object[] row : rows) {
            builder.addRow(row);
        }
        return builder.build();
    }

    private static List<Object[]> keyValueRows(long... keys) {
        List<Object[]> rows = new ArrayList<>();
        for (long k : keys) {
            rows.add(new Object[] {k, 10 * k + 1});
        }
        return rows;
    }

    /**
     * The result of joining {@code probeRows} (probe = LEFT) with the table (build = RIGHT) as {@code type} does:
     * the probe pass, then the finish pass, through a writer of {@code outputRows} rows a batch (small ones exercise
     * resuming). Each result row as "probe key|build key|build value".
     */
    private static List<String> join(UnchainedTable table, Schema schema, JoinType type, List<Object[]> probeRows,
                                      int outputRows) {
        JoinStrategy strategy = JoinStrategy.of(type, Side.RIGHT);
        RowLayout layout = layoutOf(schema);
        KeyEncoder encoder = schema.type(0).isVariableWidth() ? new KeyEncoder(layout, KEY) : null;
        HashProbe probe = new HashProbe(table, strategy, new KeyHasher(KEY), encoder, false, false, null);
        boolean probeColumns = strategy.probe() != JoinStrategy.ProbeAction.MARK;
        boolean buildColumns = strategy.probe() != JoinStrategy.ProbeAction.SEMI
                && strategy.probe() != JoinStrategy.ProbeAction.ANTI;
        List<ColumnRef> projection = new ArrayList<>();
        List<Column> columns = new ArrayList<>();
        if (probeColumns) {
            projection.add(new ColumnRef(Side.LEFT, 0));
            columns.add(new Column("pk", schema.type(0), true));
        }
        if (buildColumns) {
            projection.add(new ColumnRef(Side.RIGHT, 0));
            projection.add(new ColumnRef(Side.RIGHT, 1));
            columns.add(new Column("bk", schema.type(0), true));
            columns.add(new Column("bv", schema.type(1), true));
        }
        Schema outSchema = Schema.of(columns.toArray(new Column[0]));
        OutputWriter out = new OutputWriter(outSchema, projection, Side.RIGHT, layout, outputRows, Long.MAX_VALUE);
        List<String> result = new ArrayList<>();
        for (Batch batch : batchesOf(schema, probeRows)) {
            probe.start(batch);
            boolean done;
            do {
                done = probe.fill(out);
                out.materialize(batch);
                collect(out, probeColumns, buildColumns, result);
            } while (!done);
        }
        BuildRowScan scan = new BuildRowScan(table, strategy.finish(), probeRows.isEmpty(), false);
        boolean done;
        do {
            done = scan.fill(out);
            out.materialize(null);
            collect(out, probeColumns, buildColumns, result);
        } while (!done);
        result.sort(null);
        return result;
    }

    private static void collect(OutputWriter out, boolean probeColumns, boolean buildColumns, List<String> into) {
        Batch batch = out.batch();
        for (int i = 0; i < batch.rowCount(); i++) {
            StringBuilder row = new StringBuilder();
            int c = 0;
            row.append(probeColumns ? value(batch.column(c++), i) : "-").append('|');
            row.append(buildColumns ? value(batch.column(c++), i) : "-").append('|');
            row.append(buildColumns ? value(batch.column(c), i) : "-");
            into.add(row.toString());
        }
        out.clear();
    }

    private static String value(ColumnVector v, int row) {
        if (v.isNull(row)) {
            return "null";
        }
        return switch (v.type()) {
            case BIGINT -> Long.toString(v.getLong(row));
            case VARCHAR -> "'" + v.getString(row) + "'";
            default -> throw new IllegalArgumentException(v.type().toString());
        };
    }

    private static List<String> sorted(String... rows) {
        List<String> list = new ArrayList<>(Arrays.asList(rows));
        list.sort(null);
        return list;
    }

    /** The first row and the end of slot {@code slot}, read through {@link UnchainedTable#loadSlots}. */
    private static long[] slotRange(UnchainedTable table, int slot) {
        int bits = Integer.numberOfTrailingZeros(table.slotCount());
        long[] begin = new long[1];
        long[] end = new long[1];
        table.loadSlots(new long[] {(long) slot << (64 - bits)}, 1, new long[1], begin, end, new int[1]);
        return new long[] {begin[0], end[0]};
    }

    @Test
    void slotsTileTheStorageAndHoldExactlyTheRowsOfTheirHash() {
        long[] keys = new long[1100];
        for (int i = 0; i < 1000; i++) {
            keys[i] = i;
        }
        for (int i = 0; i < 100; i++) {
            keys[1000 + i] = 10 * i; // a second row for every tenth key
        }
        try (RowArena arena = arenaOf(KV, keyValueRows(keys));
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), false, false, arena)) {
            assertThat(arena.rowCount()).as("the source arena is cleared once copied").isZero();
            assertThat(table.size()).isEqualTo(1100);
            assertThat(table.slotCount()).as("the power of two at or above the rows").isEqualTo(2048);
            CompactRows rows = table.format();
            int bits = Integer.numberOfTrailingZeros(table.slotCount());
            long expectedBegin = table.firstRow();
            long seen = 0;
            for (int s = 0; s < table.slotCount(); s++) {
                long[] range = slotRange(table, s);
                assertThat(range[0]).as("slot %d begins where slot %d ends", s, s - 1).isEqualTo(expectedBegin);
                for (long row = range[0]; row < range[1]; row += rows.rowLength(row)) {
                    long key = NativeMemory.getLong(rows.fixedAddress(row, 0));
                    long hash = HashFunctions.combine(HashFunctions.KEY_SEED, key);
                    assertThat(hash >>> (64 - bits)).as("slot of key %d", key).isEqualTo(s);
                    assertThat(NativeMemory.getLong(rows.fixedAddress(row, 1))).isEqualTo(10 * key + 1);
                    seen++;
                }
                expectedBegin = range[1];
            }
            assertThat(seen).isEqualTo(1100);
            assertThat(expectedBegin).as("the last slot ends at the NULL-key rows").isEqualTo(table.nullKeyRowsStart());
            assertThat(table.endOfRows()).isEqualTo(table.nullKeyRowsStart());

            List<String> expected = new ArrayList<>();
            for (long k = 0; k < 1000; k++) {
                for (int copy = 0; copy < (k % 10 == 0 ? 2 : 1); copy++) {
                    expected.add(k + "|" + k + "|" + (10 * k + 1));
                }
            }
            expected.sort(null);
            long[] probeKeys = new long[1200];
            for (int i = 0; i < probeKeys.length; i++) {
                probeKeys[i] = i;
            }
            assertThat(join(table, KV, JoinType.INNER, keyValueRows(probeKeys), 100)).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "filled on {0} threads")
    @ValueSource(ints = {1, 3})
    void aTableOfSeveralPartitionsHasOneDirectoryRangeEachAndFindsEveryRowThroughItsPartition(int threads) {
        int bits = 2;
        int[] resident = {0, 2, 3};
        RowArena[] arenas = new RowArena[resident.length];
        List<String> expected = new ArrayList<>();
        List<List<Object[]>> rowsOf = new ArrayList<>();
        for (int k = 0; k < resident.length; k++) {
            rowsOf.add(new ArrayList<>());
        }
        for (long key = 0; key < 2000; key++) {
            int p = HashFunctions.partitionOf(HashFunctions.combine(HashFunctions.KEY_SEED, key), 0, bits);
            int k = Arrays.binarySearch(resident, p);
            if (k >= 0) {
                rowsOf.get(k).add(new Object[] {key, 10 * key + 1});
                expected.add(key + "|" + key + "|" + (10 * key + 1));
            }
        }
        expected.sort(null);
        for (int k = 0; k < resident.length; k++) {
            arenas[k] = arenaOf(KV, rowsOf.get(k));
        }
        long[] probeKeys = new long[2000];
        for (int i = 0; i < probeKeys.length; i++) {
            probeKeys[i] = i;
        }
        try (UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), false, false, bits, resident, arenas,
                ParallelTasks.startingHelpers(threads))) {
            assertThat(table.rangeCount()).isEqualTo(3);
            assertThat(table.size()).isEqualTo(expected.size());
            assertThat(table.slotCount() % 3).isZero();
            assertThat(join(table, KV, JoinType.INNER, keyValueRows(probeKeys), 64))
                    .as("rows of the partition the table does not hold find nothing").isEqualTo(expected);
        } finally {
            for (RowArena arena : arenas) {
                arena.close();
            }
        }
    }

    @Test
    void anEmptyTableMatchesNothingAndPadsEveryProbeRow() {
        try (RowArena arena = new RowArena(memory, PAGE);
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), true, true, arena)) {
            assertThat(table.size()).isZero();
            assertThat(table.slotCount()).isEqualTo(16);
            assertThat(table.endOfRows()).isEqualTo(table.firstRow());
            assertThat(join(table, KV, JoinType.INNER, keyValueRows(1, 2, 3), 10)).isEmpty();
            assertThat(join(table, KV, JoinType.LEFT_OUTER, keyValueRows(1, 2), 10))
                    .isEqualTo(sorted("1|null|null", "2|null|null"));
            assertThat(join(table, KV, JoinType.FULL_OUTER, keyValueRows(5), 10)).isEqualTo(sorted("5|null|null"));
        }
    }

    @Test
    void rowsOfOneKeyShareOneSlotAndAreAllFoundAcrossFullOutputBatches() {
        long[] keys = new long[500];
        Arrays.fill(keys, 42);
        try (RowArena arena = arenaOf(KV, keyValueRows(keys));
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), false, false, arena)) {
            int bits = Integer.numberOfTrailingZeros(table.slotCount());
            int slot = (int) (HashFunctions.combine(HashFunctions.KEY_SEED, 42) >>> (64 - bits));
            long[] range = slotRange(table, slot);
            assertThat(range[0]).isEqualTo(table.firstRow());
            assertThat(range[1] - range[0]).as("500 rows of 16 bytes in one slot").isEqualTo(500 * 16);
            for (int s = 0; s < table.slotCount(); s++) {
                if (s != slot) {
                    long[] other = slotRange(table, s);
                    assertThat(other[1]).as("slot %d is empty", s).isEqualTo(other[0]);
                }
            }
            List<String> result = join(table, KV, JoinType.INNER, keyValueRows(42, 7, 42), 7);
            assertThat(result).hasSize(1000).containsOnly("42|42|421");
        }
    }

    @Test
    void nullKeyRowsAreKeptAfterTheLastSlotOnlyWhenAsked() {
        List<Object[]> rows = keyValueRows(1, 2, 3);
        rows.add(new Object[] {null, 7L});
        rows.add(new Object[] {null, null});
        try (RowArena arena = arenaOf(KV, rows);
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), true, true, arena)) {
            assertThat(table.size()).isEqualTo(3);
            assertThat(table.nullKeyRows()).isEqualTo(2);
            assertThat(table.endOfRows() - table.nullKeyRowsStart()).isEqualTo(2 * table.format().stride());
            assertThat(join(table, KV, JoinType.RIGHT_OUTER, keyValueRows(2), 10))
                    .isEqualTo(sorted("2|2|21", "null|1|11", "null|3|31", "null|null|7", "null|null|null"));
        }
        try (RowArena arena = arenaOf(KV, rows);
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), false, false, arena)) {
            assertThat(table.size()).isEqualTo(3);
            assertThat(table.nullKeyRows()).isZero();
            assertThat(table.endOfRows()).isEqualTo(table.nullKeyRowsStart());
            assertThat(join(table, KV, JoinType.INNER, keyValueRows(1, 2, 3), 10))
                    .isEqualTo(sorted("1|1|11", "2|2|21", "3|3|31"));
        }
    }

    @Test
    void variableWidthKeysAndPayloadsAreComparedAndReadBack() {
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {"", "empty key"});
        rows.add(new Object[] {"a", null});
        rows.add(new Object[] {"a", "second a"});
        rows.add(new Object[] {"a key longer than eight bytes", "x".repeat(300)});
        rows.add(new Object[] {"unmatched", "u"});
        rows.add(new Object[] {null, "null key"});
        List<Object[]> probe = new ArrayList<>();
        probe.add(new Object[] {"", "p"});
        probe.add(new Object[] {"a", "p"});
        probe.add(new Object[] {"a key longer than eight bytes", "p"});
        probe.add(new Object[] {"a key longer than eight byteS", "p"});
        probe.add(new Object[] {"b", "p"});
        try (RowArena arena = arenaOf(TEXT, rows);
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(TEXT), true, true, arena)) {
            assertThat(table.size()).isEqualTo(5);
            assertThat(table.nullKeyRows()).isEqualTo(1);
            assertThat(join(table, TEXT, JoinType.FULL_OUTER, probe, 3)).isEqualTo(sorted(
                    "''|''|'empty key'", "'a'|'a'|null", "'a'|'a'|'second a'",
                    "'a key longer than eight bytes'|'a key longer than eight bytes'|'" + "x".repeat(300) + "'",
                    "'a key longer than eight byteS'|null|null", "'b'|null|null",
                    "null|'unmatched'|'u'", "null|null|'null key'"));
        }
    }

    @Test
    void marksSetTheMatchedFlagOfEveryEqualBuildRowOnce() {
        try (RowArena arena = arenaOf(KV, keyValueRows(1, 1, 2, 3, 3, 3, 4));
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), true, false, arena)) {
            assertThat(join(table, KV, JoinType.RIGHT_SEMI, keyValueRows(3, 1, 3, 9), 2))
                    .isEqualTo(sorted("-|1|11", "-|1|11", "-|3|31", "-|3|31", "-|3|31"));
        }
        try (RowArena arena = arenaOf(KV, keyValueRows(1, 1, 2, 3, 3, 3, 4));
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), true, false, arena)) {
            assertThat(join(table, KV, JoinType.RIGHT_ANTI, keyValueRows(3, 1), 2))
                    .isEqualTo(sorted("-|2|21", "-|4|41"));
        }
    }

    @Test
    void singleFixedWidthKeysCompareByValue() {
        Schema ints = Schema.of(Column.of("k", ColumnType.INTEGER), Column.of("v", ColumnType.BIGINT));
        Schema doubles = Schema.of(Column.of("k", ColumnType.DOUBLE), Column.of("v", ColumnType.BIGINT));
        List<Object[]> intRows = List.of(new Object[] {-1, 1L}, new Object[] {Integer.MIN_VALUE, 2L},
                new Object[] {7, 3L});
        try (RowArena arena = arenaOf(ints, intRows);
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(ints), false, false, arena)) {
            List<Object[]> probe = List.of(new Object[] {-1, 0L}, new Object[] {Integer.MIN_VALUE, 0L},
                    new Object[] {Integer.MAX_VALUE, 0L});
            assertThat(countMatches(table, ints, probe)).isEqualTo(2);
        }
        List<Object[]> doubleRows = List.of(new Object[] {-0.0, 1L}, new Object[] {Double.NaN, 2L},
                new Object[] {1.5, 3L});
        try (RowArena arena = arenaOf(doubles, doubleRows);
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(doubles), false, false, arena)) {
            List<Object[]> probe = List.of(new Object[] {0.0, 0L}, new Object[] {Double.NaN, 0L},
                    new Object[] {-1.5, 0L});
            assertThat(countMatches(table, doubles, probe)).as("-0.0 joins 0.0, NaN joins NaN").isEqualTo(2);
        }
    }

    private static int countMatches(UnchainedTable table, Schema schema, List<Object[]> probeRows) {
        HashProbe probe = new HashProbe(table, JoinStrategy.of(JoinType.LEFT_SEMI, Side.RIGHT), new KeyHasher(KEY),
                null, false, false, null);
        OutputWriter out = new OutputWriter(Schema.of(new Column("v", ColumnType.BIGINT, true)),
                List.of(new ColumnRef(Side.LEFT, 1)), Side.RIGHT, layoutOf(schema), 16, Long.MAX_VALUE);
        Batch batch = batchesOf(schema, probeRows).get(0);
        probe.start(batch);
        assertThat(probe.fill(out)).isTrue();
        out.materialize(batch);
        return out.rowCount();
    }

    @Test
    void aBigintKeyAndPayloadTakes24BytesPerRowWithItsDirectoryEntry() {
        long[] keys = new long[1 << 16];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = 3L * i;
        }
        try (RowArena arena = arenaOf(KV, keyValueRows(keys));
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), false, false, arena)) {
            assertThat(table.format().stride()).as("no header: no NULL, no marks").isEqualTo(16);
            assertThat(table.bytesPerRow()).isEqualTo(24.0, within(0.001));
            assertThat(table.reservedBytes()).as("a directory of 64K entries and the sentinel, 64K rows of 16 bytes")
                    .isEqualTo(UnchainedTable.allocationBytes((8L << 16) + 8) + (16L << 16));
        }
        try (RowArena arena = arenaOf(KV, keyValueRows(keys));
             UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), true, true, arena)) {
            assertThat(table.format().stride()).as("a header byte for MATCHED and the null bits").isEqualTo(17);
            assertThat(table.bytesPerRow()).isEqualTo(25.0, within(0.001));
        }
    }

    @Test
    void closeAndARefusedReservationReturnEveryByte() {
        List<Object[]> rows = keyValueRows(1, 2, 3, 4, 5);
        long arenaBytes;
        try (RowArena arena = arenaOf(memory, KV, rows)) {
            arenaBytes = arena.reservedBytes();
        }
        long directory = UnchainedTable.directoryBytes(rows.size());
        for (long limit : new long[] {arenaBytes, arenaBytes + directory}) {
            try (MemoryReservation tight = MemoryReservation.root("tight", limit);
                 RowArena arena = arenaOf(tight, KV, rows)) {
                assertThat(UnchainedTable.tryBuild(tight, layoutOf(KV), false, false, arena))
                        .as("refused with a limit of %d", limit).isNull();
                assertThat(arena.rowCount()).as("the sources are untouched").isEqualTo(rows.size());
                assertThat(tight.reserved()).as("only the arena is reserved").isEqualTo(arenaBytes);
            }
        }
        try (RowArena arena = arenaOf(memory, KV, rows)) {
            UnchainedTable table = UnchainedTable.tryBuild(memory, layoutOf(KV), false, false, arena);
            assertThat(memory.reserved()).as("the arena was freed as it was copied").isEqualTo(table.reservedBytes());
            assertThat(join(table, KV, JoinType.INNER, keyValueRows(3), 4)).isEqualTo(sorted("3|3|31"));
            table.close();
            table.close();
            assertThat(memory.reserved()).isZero();
        }
    }
}
