package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.GatherScratch;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.Seeds;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.PartitionWriter;
import dev.spilljoin.spill.SpillFile;
import dev.spilljoin.spill.SpillSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The direct-index table on its own: its size for W1's rows, its refusals (each leaving the reservation as it was),
 * and that it gives back every stored row by {@code key - min + 1}, NULLs included.
 */
class DirectIndexTableTest {
    private static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    private static final RowLayout LAYOUT = new RowLayout(SCHEMA, new int[] {0}, new int[] {0, 1});

    /** An arena holding rows (key, value) of {@code rows} (null = NULL), NULL-key rows kept. */
    private static RowArena arena(MemoryReservation memory, List<Long[]> rows) {
        return arena(memory, SCHEMA, LAYOUT, rows);
    }

    /** An arena of 4 KiB pages holding {@code rows} of {@code schema} (key: column 0) as {@code layout}'s rows. */
    static RowArena arena(MemoryReservation memory, Schema schema, RowLayout layout,
                                  List<? extends Object[]> rows) {
        BatchBuilder builder = new BatchBuilder(schema, rows.size());
        for (Object[] row : rows) {
            builder.addRow(row);
        }
        Batch batch = builder.build().get(0);
        long[] hashes = new long[batch.rowCount()];
        long[] nullKeys = new long[(batch.rowCount() + 63) >>> 6];
        new KeyHasher(new int[] {0}).hash(batch, hashes, nullKeys);
        RowArena arena = new RowArena(memory, 4096);
        assertThat(new RowWriter(layout).write(batch, 0, hashes, nullKeys, true, arena)).isEqualTo(batch.rowCount());
        return arena;
    }

    private static DirectIndexTable build(MemoryReservation memory, RowArena arena, boolean marks) {
        return DirectIndexTable.tryBuild(memory, LAYOUT, KeyRange.scan(LAYOUT, arena), marks,
                new RowArena[] {arena}, Long.MAX_VALUE);
    }

    @Test
    void w1sRowsCostABitOfOccupancyHalfABitOfRanksAndEightBytesOfPayloadEach() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            List<Long[]> rows = new ArrayList<>();
            for (long k = 0; k < 4096; k++) {
                rows.add(new Long[] {k - 100, k});
            }
            RowArena arena = arena(memory, rows);
            long bytes = DirectIndexTable.bytes(LAYOUT, KeyRange.scan(LAYOUT, arena), false);
            assertThat(bytes).isEqualTo(4096 / 64 * (8 + 4) + 4096 * 8);
            arena.close();
        }
    }

    @Test
    void givesBackEveryRowByKeyAndItsNullsAfterTheRange() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            RowArena arena = arena(memory, List.of(new Long[] {-7L, 70L}, new Long[] {-3L, null},
                    new Long[] {null, 5L}, new Long[] {60L, 600L}));
            long before = memory.reserved();
            DirectIndexTable table = build(memory, arena, true);
            assertThat(table).isNotNull();
            assertThat(table.range()).isEqualTo(68);
            assertThat(table.rows()).isEqualTo(4);
            long[] refs = {table.refOf(0), table.refOf(4), table.refOf(67), table.refOf(68), 0};
            ColumnVector keys = new ColumnVector(ColumnType.BIGINT, refs.length);
            ColumnVector values = new ColumnVector(ColumnType.BIGINT, refs.length);
            table.gather(0, refs, refs.length, new GatherScratch(refs.length), keys, 0);
            table.gather(1, refs, refs.length, new GatherScratch(refs.length), values, 0);
            assertThat(keys.getLong(0)).isEqualTo(-7);
            assertThat(values.getLong(0)).isEqualTo(70);
            assertThat(keys.getLong(1)).isEqualTo(-3);
            assertThat(values.isNull(1)).isTrue();
            assertThat(keys.getLong(2)).isEqualTo(60);
            assertThat(values.getLong(2)).isEqualTo(600);
            assertThat(keys.isNull(3)).as("the NULL-key row after the range").isTrue();
            assertThat(values.getLong(3)).isEqualTo(5);
            assertThat(keys.isNull(4)).isTrue();
            assertThat(values.isNull(4)).isTrue();
            table.setMatched(refs[2]);
            assertThat(table.isMatched(refs[2])).isTrue();
            assertThat(table.isMatched(refs[0])).isFalse();
            table.close();
            assertThat(memory.reserved()).isEqualTo(before);
            arena.close();
        }
    }

    /**
     * BIGINT, INTEGER and DOUBLE payloads that hold no NULL (read with an address per ref, and no NULL bits unless a
     * ref is 0) beside one that holds NULLs: every ref gets its row's values, a ref of 0 (outer padding) NULL in each
     * column, and a column gathered without a 0 ref has no NULL.
     */
    @Test
    void fixedWidthPayloadsWithoutNullsComeBackByRefAndARefOfZeroIsNull() {
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("b", ColumnType.BIGINT),
                Column.of("i", ColumnType.INTEGER), Column.of("d", ColumnType.DOUBLE),
                Column.of("n", ColumnType.BIGINT));
        RowLayout layout = new RowLayout(schema, new int[] {0}, new int[] {0, 1, 2, 3, 4});
        java.util.SplittableRandom random = new java.util.SplittableRandom(Seeds.logged("DirectIndexTableTest fixed"));
        int rows = 5000;
        List<Object[]> stored = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            stored.add(new Object[] {(long) i, random.nextLong(), random.nextInt(), random.nextDouble(),
                    random.nextInt(3) == 0 ? null : random.nextLong()});
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 16 << 20)) {
            RowArena arena = arena(memory, schema, layout, stored);
            DirectIndexTable table = DirectIndexTable.tryBuild(memory, layout, KeyRange.scan(layout, arena), false,
                    new RowArena[] {arena}, Long.MAX_VALUE);
            assertThat(table).isNotNull();
            for (boolean padded : new boolean[] {false, true}) {
                int n = 3000;
                int[] row = new int[n];
                long[] refs = new long[n];
                for (int j = 0; j < n; j++) {
                    row[j] = padded && random.nextInt(4) == 0 ? -1 : random.nextInt(rows);
                    refs[j] = row[j] < 0 ? 0 : table.refOf(row[j]);
                }
                int start = random.nextInt(100);
                ColumnVector[] columns = new ColumnVector[5];
                for (int f = 1; f < 5; f++) {
                    columns[f] = new ColumnVector(schema.type(f), start + n);
                    table.gather(f, refs, n, new GatherScratch(n), columns[f], start);
                }
                for (int f = 1; f < 4; f++) {
                    assertThat(columns[f].mayHaveNulls()).as("column %d, padded %b", f, padded).isEqualTo(padded);
                }
                for (int j = 0; j < n; j++) {
                    int at = start + j;
                    if (row[j] < 0) {
                        for (int f = 1; f < 5; f++) {
                            assertThat(columns[f].isNull(at)).as("padded row %d, column %d", j, f).isTrue();
                        }
                        continue;
                    }
                    Object[] expected = stored.get(row[j]);
                    assertThat(columns[1].isNull(at) ? null : columns[1].getLong(at)).as("row %d", j)
                            .isEqualTo(expected[1]);
                    assertThat(columns[2].isNull(at) ? null : columns[2].getInt(at)).as("row %d", j)
                            .isEqualTo(expected[2]);
                    assertThat(columns[3].isNull(at) ? null : columns[3].getDouble(at)).as("row %d", j)
                            .isEqualTo(expected[3]);
                    assertThat(columns[4].isNull(at) ? null : columns[4].getLong(at)).as("row %d", j)
                            .isEqualTo(expected[4]);
                }
            }
            table.close();
            arena.close();
        }
    }

    /**
     * VARCHAR and VARBINARY payloads (NULL, empty, up to 12 bytes in their entries, 13 bytes and over a kilobyte in
     * the heap): on two threads over several row pages, every row comes back by key with its values and NULLs, a
     * row's bytes are its fixed widths plus each value's length and 4.
     */
    @Test
    void variableWidthValuesComeBackByKeyFromTheHeap() {
        Schema schema = Schema.of(Column.of("k", ColumnType.INTEGER), Column.of("s", ColumnType.VARCHAR),
                Column.of("v", ColumnType.BIGINT), Column.of("b", ColumnType.VARBINARY));
        RowLayout layout = new RowLayout(schema, new int[] {0}, new int[] {0, 1, 2, 3});
        java.util.SplittableRandom r = new java.util.SplittableRandom(20261204);
        int rows = 3000;
        List<Object[]> expected = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            int kind = r.nextInt(10);
            String text = kind == 0 ? null : kind == 1 ? "" : kind == 2 ? "x".repeat(1000 + r.nextInt(500))
                    : kind <= 5 ? "y".repeat(10 + kind) // 11 to 13 bytes: around what an entry holds
                    : "s" + i;
            byte[] bytes = r.nextInt(4) == 0 ? null : new byte[r.nextInt(20)];
            if (bytes != null) {
                r.nextBytes(bytes);
            }
            Object[] row = {i - 1500 + (i >= 2000 ? 7 : 0), text, r.nextInt(6) == 0 ? null : r.nextLong(), bytes};
            expected.add(row);
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 16 << 20)) {
            RowArena arena = arena(memory, schema, layout, expected);
            assertThat(arena.pageCount()).isGreaterThan(4);
            KeyRange keys = KeyRange.scan(layout, arena);
            // a tenth of the values are long: in the heap here as in the hash table's rows, so the two tables cost
            // about the same; the table is refused against any alternative cheaper than itself, taken against one
            // that costs as much
            long directBytes = DirectIndexTable.bytes(layout, keys, false);
            long before = memory.reserved();
            assertThat(DirectIndexTable.tryBuild(memory, layout, keys, false, new RowArena[] {arena},
                    directBytes - 1, tasks(2))).as("dearer than the alternative").isNull();
            assertThat(memory.reserved()).as("nothing kept of a refused table").isEqualTo(before);
            DirectIndexTable table = DirectIndexTable.tryBuild(memory, layout, keys, false, new RowArena[] {arena},
                    directBytes, tasks(2));
            assertThat(table).as("a dense unique INTEGER key with VARCHAR and VARBINARY payloads").isNotNull();
            long[] refs = new long[rows];
            for (int i = 0; i < rows; i++) {
                refs[i] = table.refOf(((Integer) expected.get(i)[0]) - table.min());
            }
            ColumnVector[] columns = new ColumnVector[4];
            for (int f = 0; f < 4; f++) {
                columns[f] = new ColumnVector(schema.type(f), rows);
                table.gather(f, refs, rows, new GatherScratch(rows), columns[f], 0);
            }
            for (int i = 0; i < rows; i++) {
                Object[] row = expected.get(i);
                assertThat(columns[0].getInt(i)).isEqualTo(row[0]);
                assertThat(columns[1].isNull(i) ? null : columns[1].getString(i)).as("row %d", i).isEqualTo(row[1]);
                assertThat(columns[2].isNull(i) ? null : columns[2].getLong(i)).as("row %d", i).isEqualTo(row[2]);
                assertThat(columns[3].isNull(i) ? null : columns[3].getBytes(i)).as("row %d", i).isEqualTo(row[3]);
                int stored = 8 + 4 + (row[1] == null ? 0 : ((String) row[1]).length())
                        + 4 + (row[3] == null ? 0 : ((byte[]) row[3]).length);
                assertThat(table.rowBytes(refs[i])).as("row %d", i).isEqualTo(stored);
            }
            table.close();
            arena.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    /**
     * A table over rows partly in an arena and partly in sealed spill files, read back block by block on two threads
     * ({@link SpilledRowPages}), gives back every row as the same table over all the rows in arenas does: VARCHAR
     * values in entries and in the heap, NULL keys and payloads; so does the table that takes its occupancy from
     * {@link DirectIndexTable#uniqueKeys} over the same rows. The passes leave the files sealed, readable again;
     * {@link DirectIndexTable#uniqueKeys} finds no key repeated among these rows, and one once a spilled row repeats
     * a key.
     */
    @Test
    void aTableOverArenasAndSpilledFilesIsTheTableOverArenas(@TempDir Path root) throws IOException {
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("s", ColumnType.VARCHAR),
                Column.of("v", ColumnType.BIGINT));
        RowLayout layout = new RowLayout(schema, new int[] {0}, new int[] {0, 1, 2});
        SpillRowFormat format = new SpillRowFormat(layout);
        java.util.SplittableRandom r = new java.util.SplittableRandom(20261206);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
            int kind = r.nextInt(10);
            String text = kind == 0 ? null : kind == 1 ? "long " + "x".repeat(20 + r.nextInt(200)) : "s" + i;
            rows.add(new Object[] {r.nextInt(30) == 0 ? null : (Object) (long) (3 * i + 11 - 9000), text,
                    r.nextInt(7) == 0 ? null : r.nextLong()});
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 32 << 20);
             SpillSpace space = SpillSpace.create(root, 4096)) {
            RowArena all = arena(memory, schema, layout, rows);
            RowArena inMemory = arena(memory, schema, layout, rows.subList(0, 2000));
            List<SpillFile> files = List.of(spill(memory, space, format, layout, schema, rows.subList(2000, 4500)),
                    spill(memory, space, format, layout, schema, rows.subList(4500, 6000)));
            KeyRange keys = KeyRange.scan(layout, all);
            DirectIndexTable expected = DirectIndexTable.tryBuild(memory, layout, keys, true,
                    new RowArena[] {all}, Long.MAX_VALUE);
            DirectIndexTable table;
            DirectIndexTable proven;
            // passes through windows grown to 16 KB (the budget has room), on two threads with a reader each
            try (SpilledRowPages spilled = new SpilledRowPages(memory, format, 4096, 16384, 64)) {
                files.forEach(spilled::add);
                assertThat(spilled.passWindow(2)).isEqualTo(16384);
                assertThat(spilled.rowCount()).isEqualTo(4000);
                assertThat(spilled.blockCount()).isGreaterThan(2);
                table = DirectIndexTable.tryBuild(memory, layout, keys, true, false,
                        new RowArena[] {null, inMemory}, spilled, Long.MAX_VALUE, tasks(2), null);
                try (DirectIndexTable.UniqueKeys unique = DirectIndexTable.uniqueKeys(memory, layout, keys,
                        new RowArena[] {inMemory}, spilled, tasks(2))) {
                    assertThat(unique).isNotNull();
                    proven = DirectIndexTable.tryBuild(memory, layout, unique, true, false,
                            new RowArena[] {inMemory}, spilled, tasks(2));
                }
            }
            assertThat(proven).isNotNull();
            assertThat(proven.bytes()).isEqualTo(expected.bytes());
            assertThat(table).isNotNull();
            assertThat(table.rows()).isEqualTo(expected.rows());
            assertThat(table.bytes()).isEqualTo(expected.bytes());
            // every keyed row by its index (keys 3 apart), then the NULL-key rows after the range (in any order)
            int keyed = (int) keys.keyedRows();
            List<Object[]> want = rowsByIndex(expected, schema, keys, rows);
            for (DirectIndexTable built : List.of(table, proven)) {
                List<Object[]> got = rowsByIndex(built, schema, keys, rows);
                for (int j = 0; j < keyed; j++) {
                    assertThat(got.get(j)).as("keyed row %d", j).isEqualTo(want.get(j));
                }
                assertThat(Rows.multiset(got.subList(keyed, got.size())))
                        .isEqualTo(Rows.multiset(want.subList(keyed, want.size())));
            }
            for (SpillFile file : files) {
                assertThat(file.isSealed()).as("read back, released, sealed again").isTrue();
            }
            // a spilled row repeating an in-memory row's key: no longer unique (and the table would not build)
            SpillFile repeat = spill(memory, space, format, layout, schema, List.<Object[]>of(rows.get(5).clone()));
            try (SpilledRowPages spilled = new SpilledRowPages(memory, format, 4096, 4096, 64)) {
                spilled.add(repeat);
                files.forEach(spilled::add);
                assertThat(DirectIndexTable.uniqueKeys(memory, layout, keys, new RowArena[] {inMemory}, spilled,
                        tasks(2)))
                        .isNull();
                spilled.deleteFiles();
            }
            for (SpillFile file : files) {
                assertThat(file.path()).doesNotExist();
            }
            table.close();
            proven.close();
            expected.close();
            all.close();
            inMemory.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    /**
     * Narrow entries: a VARCHAR field whose values are at most 10 bytes takes 11-byte entries, five to a cache line
     * (12.8 bytes a row against a wide entry's 16), and the table gives back every value, NULL and empty ones
     * included, and every row's size, as the table of wide entries does, on one thread and on three. A value of 16
     * bytes leaves the field its wide entries. Statistics taken over parts of the rows and added up size the table
     * as those taken over all of them.
     */
    @Test
    void narrowEntriesHoldShortValuesInLessRoomAndGiveBackWhatWideOnesDo() throws IOException {
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("s", ColumnType.VARCHAR),
                Column.of("v", ColumnType.BIGINT));
        RowLayout layout = new RowLayout(schema, new int[] {0}, new int[] {0, 1, 2});
        long seed = 20261207L;
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            int length = i == 7 ? 10 : r.nextInt(11);
            String text = r.nextInt(9) == 0 ? null : "abcdefghij".substring(0, length);
            rows.add(new Object[] {r.nextInt(40) == 0 ? null : (Object) (long) (i + (i > 2500 ? 3 : 0)), text,
                    (long) i});
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 32 << 20)) {
            RowArena all = arena(memory, schema, layout, rows);
            RowArena first = arena(memory, schema, layout, rows.subList(0, 1700));
            RowArena second = arena(memory, schema, layout, rows.subList(1700, 5000));
            KeyRange keys = KeyRange.scan(layout, all);
            KeyRange parts = KeyRange.scan(layout, first).plus(KeyRange.scan(layout, second));
            long narrowBytes = DirectIndexTable.bytes(layout, keys, true, true);
            long wideBytes = DirectIndexTable.bytes(layout, keys, true, false);
            assertThat(DirectIndexTable.bytes(layout, parts, true, true)).as("seed %d", seed).isEqualTo(narrowBytes);
            long rowCount = keys.keyedRows() + keys.nullKeyRows();
            assertThat(wideBytes - narrowBytes).as("16 bytes a row against 64 per 5 rows, less a line of slack")
                    .isEqualTo(16 * rowCount - ((rowCount + 4) / 5 + 1) * 64);
            for (int threads : new int[] {1, 3}) {
                DirectIndexTable wide = DirectIndexTable.tryBuild(memory, layout, keys, true, false,
                        new RowArena[] {all}, null, Long.MAX_VALUE, tasks(threads), null);
                DirectIndexTable narrow = DirectIndexTable.tryBuild(memory, layout, keys, true, true,
                        new RowArena[] {first, second}, null, Long.MAX_VALUE, tasks(threads), null);
                assertThat(narrow.bytes()).isEqualTo(narrowBytes);
                List<Object[]> got = rowsByIndex(narrow, schema, keys, rows);
                List<Object[]> want = rowsByIndex(wide, schema, keys, rows);
                int keyed = (int) keys.keyedRows();
                for (int j = 0; j < keyed; j++) {
                    assertThat(got.get(j)).as("seed %d keyed row %d threads %d", seed, j, threads)
                            .isEqualTo(want.get(j));
                }
                assertThat(Rows.multiset(got.subList(keyed, got.size())))
                        .isEqualTo(Rows.multiset(want.subList(keyed, want.size())));
                for (Object[] row : rows) {
                    if (row[0] != null) {
                        long index = (Long) row[0] - narrow.min();
                        assertThat(narrow.rowBytes(narrow.refOf(index))).as("index %d", index)
                                .isEqualTo(wide.rowBytes(wide.refOf(index)));
                    }
                }
                narrow.close();
                wide.close();
            }
            rows.set(11, new Object[] {rows.get(11)[0], "0123456789abcdef", 11L});
            RowArena withLong = arena(memory, schema, layout, rows);
            KeyRange longKeys = KeyRange.scan(layout, withLong);
            assertThat(DirectIndexTable.bytes(layout, longKeys, true, true))
                    .isEqualTo(DirectIndexTable.bytes(layout, longKeys, true, false));
            withLong.close();
            all.close();
            first.close();
            second.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    /**
     * Every row of {@code table} (over keys {@code keys} of {@code rows}, key first) as values of
     * {@code schema}'s fields: the keyed rows by index, in the order of {@code rows}, then the NULL-key rows after the
     * range.
     */
    private static List<Object[]> rowsByIndex(DirectIndexTable table, Schema schema, KeyRange keys,
                                              List<Object[]> rows) {
        List<Long> indexes = new ArrayList<>();
        for (Object[] row : rows) {
            if (row[0] != null) {
                indexes.add(((Long) row[0] - table.min()) / table.keyStride());
            }
        }
        for (long j = 0; j < table.rows() - keys.keyedRows(); j++) {
            indexes.add(table.range() + j);
        }
        int n = indexes.size();
        long[] refs = new long[n];
        for (int j = 0; j < n; j++) {
            refs[j] = table.refOf(indexes.get(j));
        }
        List<Object[]> out = new ArrayList<>();
        ColumnVector[] columns = new ColumnVector[schema.size()];
        for (int f = 0; f < columns.length; f++) {
            columns[f] = new ColumnVector(schema.type(f), n);
            table.gather(f, refs, n, new GatherScratch(n), columns[f], 0);
        }
        for (int j = 0; j < n; j++) {
            Object[] row = new Object[columns.length];
            for (int f = 0; f < columns.length; f++) {
                row[f] = Rows.value(columns[f], j);
            }
            out.add(row);
        }
        return out;
    }

    /** A sealed spill file holding {@code rows} of {@code schema}, encoded in {@code format}. */
    static SpillFile spill(MemoryReservation memory, SpillSpace space, SpillRowFormat format,
                           RowLayout layout, Schema schema, List<Object[]> rows) throws IOException {
        RowArena arena = arena(memory, schema, layout, rows);
        SpillFile file = space.newFile("rows");
        assertThat(memory.tryGrow(1 << 16)).isTrue();
        try (PartitionWriter writer = file.openWriter(memory, 1024);
             NativeMemory.NativePage buffer = NativeMemory.allocate(memory, 1 << 16)) {
            for (int p = 0; p < arena.pageCount(); p++) {
                for (long row = arena.pageAddress(p), end = row + arena.pageUsed(p); row < end;
                     row += layout.rowLength(row)) {
                    int length = format.encodedLength(row);
                    format.encode(row, buffer.address(), length);
                    writer.append(buffer.address(), length);
                }
            }
            writer.finish();
        } finally {
            memory.shrink(1 << 16);
        }
        arena.close();
        return file;
    }

    /**
     * A full range (every value a key: a dense surrogate key) needs neither occupancy nor ranks to find a row: the
     * table says so, and gives back every row by {@code key - min + 1}, the NULL-key rows after the range, as a table
     * with one value missing does (which is not full).
     */
    @Test
    void aFullRangeGivesBackEveryRowAsAnyOtherTableDoes() {
        try (MemoryReservation memory = MemoryReservation.root("test", 4 << 20)) {
            for (boolean oneMissing : new boolean[] {false, true}) {
                List<Long[]> rows = new ArrayList<>();
                for (long i = 0; i < 5000; i++) {
                    long key = (i * 7919) % 5000 - 50; // a permutation of -50..4949
                    if (!(oneMissing && key == 1234)) {
                        rows.add(new Long[] {key, key % 13 == 0 ? null : 10 * key});
                    }
                }
                rows.add(new Long[] {null, 7L});
                rows.add(new Long[] {null, null});
                RowArena arena = arena(memory, rows);
                DirectIndexTable table = build(memory, arena, true);
                assertThat(table.full()).as("full, one value missing: %s", oneMissing).isEqualTo(!oneMissing);
                assertThat(table.range()).isEqualTo(5000);
                long[] refs = new long[5003]; // refs[0]: no row; refs[j]: the row at index j - 1
                for (int j = 1; j < refs.length; j++) {
                    refs[j] = table.refOf(j - 1);
                }
                ColumnVector keys = new ColumnVector(ColumnType.BIGINT, refs.length);
                ColumnVector values = new ColumnVector(ColumnType.BIGINT, refs.length);
                table.gather(0, refs, refs.length, new GatherScratch(refs.length), keys, 0);
                table.gather(1, refs, refs.length, new GatherScratch(refs.length), values, 0);
                assertThat(keys.isNull(0)).isTrue();
                for (int j = 1; j <= 5000; j++) {
                    long key = j - 1 - 50;
                    if (oneMissing && key == 1234) {
                        assertThat(values.isNull(j)).as("the missing key's value").isTrue();
                        continue;
                    }
                    assertThat(keys.getLong(j)).as("key at ref %d", j).isEqualTo(key);
                    if (key % 13 == 0) {
                        assertThat(values.isNull(j)).as("NULL value at ref %d", j).isTrue();
                    } else {
                        assertThat(values.getLong(j)).as("value at ref %d", j).isEqualTo(10 * key);
                    }
                }
                assertThat(keys.isNull(5001)).as("the NULL-key rows after the range").isTrue();
                assertThat(values.getLong(5001)).isEqualTo(7);
                assertThat(values.isNull(5002)).isTrue();
                table.setMatched(refs[5001]);
                table.setMatched(refs[10]);
                assertThat(table.isMatched(refs[5001])).isTrue();
                assertThat(table.isMatched(refs[10])).isTrue();
                assertThat(table.isMatched(refs[11])).isFalse();
                assertThat(table.isMatched(refs[5002])).isFalse();
                table.close();
                arena.close();
            }
            assertThat(memory.reserved()).isZero();
        }
    }

    @Test
    void aDuplicateKeyOrARefusedReservationLeavesNothingReserved() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            RowArena duplicates = arena(memory, List.of(new Long[] {1L, 1L}, new Long[] {2L, 2L},
                    new Long[] {1L, 3L}));
            long before = memory.reserved();
            assertThat(build(memory, duplicates, false)).isNull();
            assertThat(memory.reserved()).isEqualTo(before);
            duplicates.close();
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 8192)) {
            RowArena arena = arena(memory, List.of(new Long[] {1L, 1L}, new Long[] {2L, 2L}));
            long before = memory.reserved();
            MemoryReservation full = memory.newChild("full");
            assertThat(full.tryGrow(memory.headroom())).isTrue();
            assertThat(build(memory, arena, false)).as("refused").isNull();
            full.close();
            assertThat(memory.reserved()).isEqualTo(before);
            arena.close();
        }
    }

    @Test
    void rangesThatOverflowOrAreTooSparseCannotBeBuilt() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            RowArena extremes = arena(memory, List.of(new Long[] {Long.MIN_VALUE, 1L}, new Long[] {Long.MAX_VALUE, 2L}));
            assertThat(DirectIndexTable.bytes(LAYOUT, KeyRange.scan(LAYOUT, extremes), false))
                    .isEqualTo(-1);
            RowArena wide = arena(memory, List.of(new Long[] {0L, 1L}, new Long[] {1L, 1L}, new Long[] {1L << 31, 2L}));
            assertThat(DirectIndexTable.bytes(LAYOUT, KeyRange.scan(LAYOUT, wide), false))
                    .isEqualTo(-1);
            RowArena sparse = arena(memory, List.of(new Long[] {0L, 1L}, new Long[] {1L, 1L}, new Long[] {192L, 2L}));
            assertThat(DirectIndexTable.bytes(LAYOUT, KeyRange.scan(LAYOUT, sparse), false))
                    .as("193 values for 3 rows").isEqualTo(-1);
            RowArena dense = arena(memory, List.of(new Long[] {0L, 1L}, new Long[] {1L, 1L}, new Long[] {191L, 2L}));
            assertThat(DirectIndexTable.bytes(LAYOUT, KeyRange.scan(LAYOUT, dense), false))
                    .as("192 values for 3 rows").isPositive();
            RowArena strided = arena(memory, List.of(new Long[] {0L, 1L}, new Long[] {1L << 31, 2L}));
            assertThat(KeyRange.scan(LAYOUT, strided).range())
                    .as("two values on a stride of 2^31").isEqualTo(2);
            extremes.close();
            wide.close();
            sparse.close();
            dense.close();
            strided.close();
        }
    }

    /**
     * Keys a common stride apart (negative and positive, in two arenas whose statistics are added, plus NULL keys):
     * the table spans {@code (max - min) / stride + 1} values, a key's row lies at its quotient, and gathering the key
     * field gives the keys back; a key off the stride (in one arena only) brings the stride down to the common one.
     */
    @Test
    void keysOnAStrideTakeATableOverTheirQuotients() {
        long stride = 86_400_000_000L; // a day in microseconds
        long first = -40 * stride + 17;
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            List<Long[]> even = new ArrayList<>();
            List<Long[]> odd = new ArrayList<>();
            for (long i = 0; i < 100; i++) {
                (i % 2 == 0 ? even : odd).add(new Long[] {i % 7 == 3 ? null : first + i * stride, i});
            }
            RowArena a = arena(memory, even);
            RowArena b = arena(memory, odd);
            KeyRange keys = KeyRange.scan(LAYOUT, a);
            assertThat(keys.stride().stride()).as("one arena's keys: every other day").isEqualTo(2 * stride);
            keys.add(KeyRange.scan(LAYOUT, b));
            assertThat(keys.stride().stride()).isEqualTo(stride);
            assertThat(keys.range()).isEqualTo(100); // days 0 and 99 are keys (3, 10, ... are NULL keys)
            DirectIndexTable table = DirectIndexTable.tryBuild(memory, LAYOUT, keys, false, new RowArena[] {a, b},
                    Long.MAX_VALUE, tasks(2));
            assertThat(table).isNotNull();
            long[] refs = new long[100];
            for (int i = 0; i < 100; i++) {
                refs[i] = table.refOf(i);
            }
            ColumnVector keyValues = new ColumnVector(ColumnType.BIGINT, refs.length);
            ColumnVector values = new ColumnVector(ColumnType.BIGINT, refs.length);
            table.gather(0, refs, refs.length, new GatherScratch(refs.length), keyValues, 0);
            table.gather(1, refs, refs.length, new GatherScratch(refs.length), values, 0);
            for (int i = 0; i < 100; i++) {
                if (i % 7 != 3) {
                    assertThat(keyValues.getLong(i)).as("key at %d", i).isEqualTo(first + i * stride);
                    assertThat(values.getLong(i)).as("value at %d", i).isEqualTo(i);
                }
            }
            table.close();
            RowArena offStride = arena(memory, List.<Long[]>of(new Long[] {first + 3 * stride + 6, 0L}));
            keys.add(KeyRange.scan(LAYOUT, offStride));
            assertThat(keys.stride().stride()).as("gcd(day, 6)").isEqualTo(6);
            a.close();
            b.close();
            offStride.close();
        }
    }

    @Test
    void filledOnFourThreadsPageByPageItHoldsWhatOneThreadBuilds() {
        try (MemoryReservation memory = MemoryReservation.root("test", 8 << 20)) {
            List<Long[]> rows = new ArrayList<>();
            for (long k = 0; k < 20_000; k++) { // many 4 kB pages; keys permuted, every 7th value and 11th key NULL
                long key = (k * 7919) % 20_000;
                rows.add(new Long[] {k % 11 == 0 ? null : key, k % 7 == 0 ? null : 3 * key});
            }
            RowArena arena = arena(memory, rows);
            assertThat(arena.pageCount()).isGreaterThan(8);
            KeyRange keys = KeyRange.scan(LAYOUT, arena);
            DirectIndexTable one = DirectIndexTable.tryBuild(memory, LAYOUT, keys, false, new RowArena[] {arena},
                    Long.MAX_VALUE, tasks(1));
            DirectIndexTable four = DirectIndexTable.tryBuild(memory, LAYOUT, keys, false, new RowArena[] {arena},
                    Long.MAX_VALUE, tasks(4));
            // four threads in a reservation that holds the table and no helper bitmap: they set the bits atomically
            MemoryReservation tableOnly = memory.newChild("table only", DirectIndexTable.bytes(LAYOUT, keys, false));
            DirectIndexTable atomic = DirectIndexTable.tryBuild(tableOnly, LAYOUT, keys, false,
                    new RowArena[] {arena}, Long.MAX_VALUE, tasks(4));
            assertThat(atomic).as("built without room for the helpers' bitmaps").isNotNull();
            long nullKeyRows = rows.stream().filter(r -> r[0] == null).count();
            // every slot of the key range (empty ones read as NULL), then the NULL-key rows after the range
            long[] all = java.util.stream.LongStream.rangeClosed(1, one.range() + nullKeyRows).toArray();
            assertThat(one.rows()).isEqualTo(20_000);
            assertThat(four.rows()).isEqualTo(20_000);
            ColumnVector keysOne = new ColumnVector(ColumnType.BIGINT, all.length);
            ColumnVector valuesOne = new ColumnVector(ColumnType.BIGINT, all.length);
            one.gather(0, all, all.length, new GatherScratch(all.length), keysOne, 0);
            one.gather(1, all, all.length, new GatherScratch(all.length), valuesOne, 0);
            for (DirectIndexTable other : new DirectIndexTable[] {four, atomic}) {
                String what = other == four ? "four threads" : "four threads, bits set atomically";
                ColumnVector keysOther = new ColumnVector(ColumnType.BIGINT, all.length);
                ColumnVector valuesOther = new ColumnVector(ColumnType.BIGINT, all.length);
                other.gather(0, all, all.length, new GatherScratch(all.length), keysOther, 0);
                other.gather(1, all, all.length, new GatherScratch(all.length), valuesOther, 0);
                for (int r = 0; r < all.length; r++) {
                    assertThat(keysOther.isNull(r)).as("%s: key NULL at ref %d", what, all[r])
                            .isEqualTo(keysOne.isNull(r));
                    assertThat(valuesOther.isNull(r)).as("%s: value NULL at ref %d", what, all[r])
                            .isEqualTo(valuesOne.isNull(r));
                    if (!keysOne.isNull(r)) {
                        assertThat(keysOther.getLong(r)).as("%s: key at ref %d", what, all[r])
                                .isEqualTo(keysOne.getLong(r));
                    }
                    if (!valuesOne.isNull(r)) {
                        assertThat(valuesOther.getLong(r)).as("%s: value at ref %d", what, all[r])
                                .isEqualTo(valuesOne.getLong(r));
                    }
                }
            }
            one.close();
            four.close();
            atomic.close();
            tableOnly.close();
            rows.add(new Long[] {17L, 0L}); // a duplicate in the last page
            RowArena withDuplicate = arena(memory, rows);
            KeyRange duplicateKeys = KeyRange.scan(LAYOUT, withDuplicate);
            assertThat(DirectIndexTable.tryBuild(memory, LAYOUT, duplicateKeys, false,
                    new RowArena[] {withDuplicate}, Long.MAX_VALUE, tasks(4))).as("a duplicate on any thread").isNull();
            MemoryReservation noBitmaps = memory.newChild("no bitmaps", DirectIndexTable.bytes(LAYOUT, duplicateKeys,
                    false));
            assertThat(DirectIndexTable.tryBuild(noBitmaps, LAYOUT, duplicateKeys, false,
                    new RowArena[] {withDuplicate}, Long.MAX_VALUE, tasks(4)))
                    .as("a duplicate, bits set atomically").isNull();
            noBitmaps.close();
            withDuplicate.close();
            arena.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    /**
     * A build meeting duplicate keys records each of them once, with every extra occurrence counted, whichever thread
     * or merge of the threads' bitmaps finds it (rows over many pages, the duplicates in different pages), and the
     * table is dropped all the same, nothing left reserved; past either bound the collector says it was exceeded.
     */
    @Test
    void duplicateKeysAreRecordedOnEveryThreadUntilTheirBoundsAndTheTableIsDroppedAllTheSame() {
        try (MemoryReservation memory = MemoryReservation.root("test", 64 << 20)) {
            List<Long[]> rows = new ArrayList<>();
            int last = 100_000 - 1;
            for (long k = 0; k <= last; k++) {
                rows.add(new Long[] {k, k});
                if (k % 7000 == 5) { // key 5 16 times in all, in pages far apart (and so on different threads)
                    rows.add(new Long[] {5L, -k});
                }
            }
            rows.add(new Long[] {0L, 1L}); // key 0 three times, the last two at the end
            rows.add(new Long[] {0L, 2L});
            rows.add(new Long[] {(long) last, 3L}); // twice
            int extraRows = 15 + 2 + 1;
            RowArena arena = arena(memory, rows);
            assertThat(arena.pageCount()).as("rows over many pages").isGreaterThan(400);
            KeyRange keys = KeyRange.scan(LAYOUT, arena);
            long tableBytes = DirectIndexTable.bytes(LAYOUT, keys, false);
            long before = memory.reserved();
            MemoryReservation noBitmaps = memory.newChild("no bitmaps", tableBytes);
            for (int threads : new int[] {1, 4, -4}) {
                MemoryReservation reservation = threads < 0 ? noBitmaps : memory;
                String what = threads < 0 ? "4 threads setting the table's bits atomically" : threads + " threads";
                long reservedBefore = reservation.reserved();
                DuplicateKeys found = new DuplicateKeys(3, extraRows);
                assertThat(DirectIndexTable.tryBuild(reservation, LAYOUT, keys, false, new RowArena[] {arena},
                        Long.MAX_VALUE, tasks(Math.abs(threads)), found)).as(what).isNull();
                assertThat(found.keys()).as(what).containsExactly(0L, 5L, last);
                assertThat(found.exceeded()).as(what).isFalse();
                DuplicateKeys fewerKeys = new DuplicateKeys(2, extraRows);
                assertThat(DirectIndexTable.tryBuild(reservation, LAYOUT, keys, false, new RowArena[] {arena},
                        Long.MAX_VALUE, tasks(Math.abs(threads)), fewerKeys)).as(what).isNull();
                assertThat(fewerKeys.exceeded()).as(what + ": 3 keys, 2 allowed").isTrue();
                DuplicateKeys fewerRows = new DuplicateKeys(3, extraRows - 1);
                assertThat(DirectIndexTable.tryBuild(reservation, LAYOUT, keys, false, new RowArena[] {arena},
                        Long.MAX_VALUE, tasks(Math.abs(threads)), fewerRows)).as(what).isNull();
                assertThat(fewerRows.exceeded()).as(what + ": one extra row more than allowed").isTrue();
                assertThat(reservation.reserved()).as(what).isEqualTo(reservedBefore);
            }
            noBitmaps.close();
            // more keyed rows than range values beyond the bound: refused before any memory is asked for
            MemoryReservation tiny = memory.newChild("tiny", 1);
            DuplicateKeys surelyTooMany = new DuplicateKeys(3, extraRows - 1);
            assertThat(DirectIndexTable.tryBuild(tiny, LAYOUT, keys, false, new RowArena[] {arena}, Long.MAX_VALUE,
                    ParallelTasks.CALLER,
                    surelyTooMany)).isNull();
            assertThat(surelyTooMany.exceeded()).as("refused by the count of keyed rows alone").isTrue();
            tiny.close();
            assertThat(memory.reserved()).isEqualTo(before);
            arena.close();
        }
    }

    /** Up to {@code threads} threads, each pass starting its helpers (the join keeps its own between passes). */
    private static ParallelTasks tasks(int threads) {
        return ParallelTasks.startingHelpers(threads);
    }
}
