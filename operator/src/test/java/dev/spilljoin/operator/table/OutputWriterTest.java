package dev.spilljoin.operator.table;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.GatherScratch;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A result batch's byte limit over build rows of variable width: the writer counts build rows ahead by the table's
 * longest row and sizes them one by one only near the limit, and cuts the very batches that sizing every row at its
 * append would cut (a model of that, below), from either kind of table.
 */
class OutputWriterTest {
    private static final Schema BUILD =
            Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("s", ColumnType.VARCHAR));
    private static final RowLayout LAYOUT = new RowLayout(BUILD, new int[] {0}, new int[] {0, 1});
    private static final List<ColumnRef> PROJECTION =
            List.of(new ColumnRef(Side.RIGHT, 0), new ColumnRef(Side.RIGHT, 1));
    private static final int CAPACITY = 64;
    /** A result of the build key alone: a writer that counts no bytes. */
    private static final Schema KEY_ONLY = Schema.of(Column.of("k", ColumnType.BIGINT));
    private static final List<ColumnRef> KEY = List.of(new ColumnRef(Side.RIGHT, 0));

    @Test
    void cutsTheBatchesThatSizingEveryRowAtItsAppendWouldCut() {
        SplittableRandom random = seeded("OutputWriterTest");
        withTables(random, (direct, hashed, hashedRefs) -> {
            int rows = hashedRefs.length;
            for (long byteLimit : new long[] {1, 200, 1000, 5000, 1 << 20}) {
                int[] order = random.ints(6000, 0, rows).toArray();
                long[] directRefs = new long[order.length];
                long[] refs = new long[order.length];
                for (int j = 0; j < order.length; j++) {
                    directRefs[j] = direct.refOf(order[j]);
                    refs[j] = hashedRefs[order[j]];
                }
                boolean[] materializeAfter = new boolean[order.length];
                for (int j = 0; j < order.length; j++) {
                    materializeAfter[j] = random.nextInt(50) == 0;
                }
                assertThat(batches(direct, directRefs, materializeAfter, byteLimit))
                        .as("direct table, limit %d", byteLimit)
                        .isEqualTo(modelBatches(direct, directRefs, null, null, materializeAfter, byteLimit));
                assertThat(batches(hashed, refs, materializeAfter, byteLimit))
                        .as("hash table, limit %d", byteLimit)
                        .isEqualTo(modelBatches(hashed, refs, null, null, materializeAfter, byteLimit));
            }
        });
    }

    /**
     * {@link OutputWriter#appendHits} (a probe batch's refs, 0 for a row without a match, each row with bytes of its
     * own) cuts the batches that appending each hit after asking {@link OutputWriter#room()} would cut; so does
     * {@link OutputWriter#appendHitsOrPadded}, whose rows without a match are appended too (padded, build key NULL)
     * unless their bit in its mask holds them back.
     */
    @Test
    void appendsTheHitsOfAProbeBatchIntoTheBatchesThatOneAppendAtATimeWouldMake() {
        SplittableRandom random = seeded("OutputWriterTest hits");
        withTables(random, (direct, hashed, hashedRefs) -> {
            int rows = hashedRefs.length;
            for (long byteLimit : new long[] {1, 200, 1000, 5000, 1 << 20}) {
                int n = 6000;
                long[] directRefs = new long[n];
                long[] refs = new long[n];
                int[] probeBytes = new int[n];
                double hits = random.nextDouble();
                for (int i = 0; i < n; i++) {
                    if (random.nextDouble() < hits) {
                        int row = random.nextInt(rows);
                        directRefs[i] = direct.refOf(row);
                        refs[i] = hashedRefs[row];
                    }
                    probeBytes[i] = random.nextInt(4) == 0 ? random.nextInt(400) : 0;
                }
                long[] quiet = new long[(n + 63) >>> 6];
                double quietShare = random.nextDouble();
                for (int i = 0; i < n; i++) {
                    quiet[i >>> 6] |= (random.nextDouble() < quietShare ? 1L : 0L) << i;
                }
                for (long[] padUnlessQuiet : Arrays.asList(null, quiet)) {
                    String what = (padUnlessQuiet == null ? "hits" : "hits and padded rows") + ", limit " + byteLimit;
                    assertThat(hitBatches(direct, directRefs, padUnlessQuiet, probeBytes, byteLimit))
                            .as("direct table, %s", what).isEqualTo(modelBatches(direct, directRefs, probeBytes,
                                    padUnlessQuiet, new boolean[n], byteLimit));
                    assertThat(hitBatches(hashed, refs, padUnlessQuiet, probeBytes, byteLimit))
                            .as("hash table, %s", what).isEqualTo(modelBatches(hashed, refs, probeBytes,
                                    padUnlessQuiet, new boolean[n], byteLimit));
                }
            }
        });
    }

    /**
     * A writer that counts no bytes (no variable-width column projected: here the key alone) takes a probe batch's hits
     * by its room alone: the batches one append at a time would make, cut at the capacity whatever the byte limit.
     */
    @Test
    void aWriterThatCountsNoBytesCutsItsHitsAtTheCapacityAlone() {
        SplittableRandom random = seeded("OutputWriterTest uncounted hits");
        withTables(random, (direct, hashed, hashedRefs) -> {
            int n = 6000;
            long[] directRefs = new long[n];
            long[] refs = new long[n];
            double hits = random.nextDouble();
            for (int i = 0; i < n; i++) {
                if (random.nextDouble() < hits) {
                    int row = random.nextInt(hashedRefs.length);
                    directRefs[i] = direct.refOf(row);
                    refs[i] = hashedRefs[row];
                }
            }
            for (long byteLimit : new long[] {1, 1 << 20}) {
                String what = String.format("hits %.2f, limit %d", hits, byteLimit);
                assertKeyOnlyBatches(direct, directRefs, byteLimit, false, "direct table, " + what);
                assertKeyOnlyBatches(hashed, refs, byteLimit, false, "hash table, " + what);
            }
        });
    }

    /**
     * A writer that counts no bytes pairs each hit with its own probe row, in order, from any row on: for no hits, a
     * few, a tenth, half, all but a few and all, the pairs of the batches it fills (each full but the last, the next
     * call going on from where the last stopped) are the hits' (probe row, ref) pairs exactly.
     */
    @Test
    void aWriterThatCountsNoBytesPairsEachHitWithItsOwnProbeRow() {
        SplittableRandom random = seeded("OutputWriterTest uncounted pairs");
        withTables(random, (direct, hashed, hashedRefs) -> {
            for (double share : new double[] {0, 0.01, 0.1, 0.5, 0.99, 1}) {
                int n = 1 + random.nextInt(3000);
                long[] refs = new long[n];
                for (int i = 0; i < n; i++) {
                    if (random.nextDouble() < share) {
                        refs[i] = direct.refOf(random.nextInt(hashedRefs.length));
                    }
                }
                int from = random.nextInt(n);
                List<Long> pairs = new ArrayList<>();
                OutputWriter out = new OutputWriter(KEY_ONLY, KEY, Side.RIGHT, LAYOUT, CAPACITY, Long.MAX_VALUE);
                out.keepPairs();
                int i = from;
                while (true) {
                    out.readBuildRowsFrom(direct);
                    i = out.appendHits(refs, new int[n], i, n);
                    out.materialize(null);
                    for (int row = 0; row < out.batch().rowCount(); row++) {
                        pairs.add((long) out.probeRowOf(row));
                        pairs.add(out.buildRowOf(row));
                    }
                    if (i == n) {
                        break;
                    }
                    assertThat(out.batch().rowCount()).as("a batch ended before the last row: full")
                            .isEqualTo(CAPACITY);
                    out.clear();
                }
                List<Long> expected = new ArrayList<>();
                for (int k = from; k < n; k++) {
                    if (refs[k] != 0) {
                        expected.add((long) k);
                        expected.add(refs[k]);
                    }
                }
                assertThat(pairs).as("share %.2f, %d rows from %d", share, n, from).isEqualTo(expected);
            }
        });
    }

    /**
     * When every probe row has a build row (no ref is 0), {@link OutputWriter#appendEveryRow} cuts the batches that
     * appending one row at a time would cut, for a writer that counts no bytes (refs copied as a run, cut at the
     * capacity) and for one that counts them (the hits' loop, cut by bytes too), from either table.
     */
    @Test
    void appendsARunOfRowsThatAllMatchIntoTheBatchesThatOneAppendAtATimeWouldMake() {
        SplittableRandom random = seeded("OutputWriterTest every row");
        withTables(random, (direct, hashed, hashedRefs) -> {
            int n = 1 + random.nextInt(6000);
            long[] directRefs = new long[n];
            long[] refs = new long[n];
            int[] probeBytes = new int[n];
            for (int i = 0; i < n; i++) {
                int row = random.nextInt(hashedRefs.length);
                directRefs[i] = direct.refOf(row);
                refs[i] = hashedRefs[row];
                probeBytes[i] = random.nextInt(4) == 0 ? random.nextInt(400) : 0;
            }
            int[] noBytes = new int[n];
            for (long byteLimit : new long[] {1, 1000, 1 << 20}) {
                String what = n + " rows, counting no bytes, limit " + byteLimit;
                assertKeyOnlyBatches(direct, directRefs, byteLimit, true, "direct table, " + what);
                assertKeyOnlyBatches(hashed, refs, byteLimit, true, "hash table, " + what);
                assertThat(hitBatches(direct, directRefs, null, probeBytes, byteLimit, BUILD, PROJECTION, true))
                        .as("direct table, %d rows, counting bytes, limit %d", n, byteLimit)
                        .isEqualTo(modelBatches(direct, directRefs, probeBytes, null, new boolean[n], byteLimit));
            }
            // each result row pairs its probe row with that row's ref, from any first row on
            OutputWriter out = new OutputWriter(KEY_ONLY, KEY, Side.RIGHT, LAYOUT, CAPACITY, Long.MAX_VALUE);
            out.keepPairs();
            out.readBuildRowsFrom(direct);
            int from = random.nextInt(n);
            int end = out.appendEveryRow(directRefs, noBytes, from, n);
            out.materialize(null);
            assertThat(end).isEqualTo(Math.min(n, from + CAPACITY));
            for (int row = 0; row < end - from; row++) {
                assertThat(out.probeRowOf(row)).as("result row %d from probe row %d", row, from).isEqualTo(from + row);
                assertThat(out.buildRowOf(row)).as("result row %d", row).isEqualTo(directRefs[from + row]);
            }
        });
    }

    /**
     * A writer of the build key alone (it counts no bytes) appending {@code refs} of {@code table} (by
     * {@link OutputWriter#appendEveryRow} if {@code everyRow}, else {@link OutputWriter#appendHits}) under
     * {@code byteLimit} cuts the batches of one append at a time without a byte limit.
     */
    private static void assertKeyOnlyBatches(BuildRowReader table, long[] refs, long byteLimit, boolean everyRow,
                                             String what) {
        int[] noBytes = new int[refs.length];
        assertThat(hitBatches(table, refs, null, noBytes, byteLimit, KEY_ONLY, KEY, everyRow)).as(what)
                .isEqualTo(modelBatches(table, refs, noBytes, null, new boolean[refs.length], Long.MAX_VALUE));
    }

    /**
     * Probe columns of every type, with NULLs, are copied into the result batch value for value whether the pending
     * rows are one run of consecutive probe rows (copied as a run) or not, several materializations into one batch.
     */
    @Test
    void copiesProbeValuesAlikeWhetherThePendingRowsAreARunOrNot() {
        SplittableRandom random = seeded("OutputWriterTest probe");
        Schema probeSchema = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("s", ColumnType.VARCHAR),
                Column.of("i", ColumnType.INTEGER), Column.of("d", ColumnType.DOUBLE), Column.of("b", ColumnType.BOOLEAN));
        List<ColumnRef> projection = new ArrayList<>();
        for (int c = 0; c < probeSchema.size(); c++) {
            projection.add(new ColumnRef(Side.LEFT, c));
        }
        int n = 300;
        BatchBuilder builder = new BatchBuilder(probeSchema, n);
        for (int i = 0; i < n; i++) {
            boolean nulls = random.nextInt(8) == 0;
            builder.addRow(nulls ? null : (long) i, nulls ? null : "v" + "w".repeat(random.nextInt(30)) + i,
                    nulls ? null : -i, nulls ? null : i / 4.0, nulls ? null : i % 3 == 0);
        }
        Batch probe = builder.build().get(0);
        for (int round = 0; round < 50; round++) {
            OutputWriter out = new OutputWriter(probeSchema, projection, Side.RIGHT, LAYOUT, 1024, 1 << 30);
            List<Integer> expected = new ArrayList<>();
            for (int chunk = 0; chunk < 3; chunk++) {
                int m = 1 + random.nextInt(100);
                int first = random.nextInt(n - m + 1);
                boolean run = random.nextBoolean();
                for (int j = 0; j < m; j++) {
                    int row = run ? first + j : random.nextInt(n);
                    out.append(row, 0, 0);
                    expected.add(row);
                }
                out.materialize(probe);
            }
            Batch result = out.batch();
            assertThat(result.rowCount()).isEqualTo(expected.size());
            for (int r = 0; r < expected.size(); r++) {
                int row = expected.get(r);
                for (int c = 0; c < probeSchema.size(); c++) {
                    ColumnVector from = probe.column(c);
                    ColumnVector to = result.column(c);
                    assertThat(to.isNull(r)).as("round %d row %d column %d NULL", round, r, c).isEqualTo(from.isNull(row));
                    if (!from.isNull(row)) {
                        Object value = switch (from.type()) {
                            case BIGINT -> from.getLong(row);
                            case VARCHAR -> from.getString(row);
                            case INTEGER -> from.getInt(row);
                            case DOUBLE -> from.getDouble(row);
                            default -> from.getBoolean(row);
                        };
                        Object copied = switch (to.type()) {
                            case BIGINT -> to.getLong(r);
                            case VARCHAR -> to.getString(r);
                            case INTEGER -> to.getInt(r);
                            case DOUBLE -> to.getDouble(r);
                            default -> to.getBoolean(r);
                        };
                        assertThat(copied).as("round %d row %d column %d", round, r, c).isEqualTo(value);
                    }
                }
            }
        }
    }

    /** A random sequence from {@code -Dseed} or the clock, its seed logged under {@code label} for replay. */
    private static SplittableRandom seeded(String label) {
        return new SplittableRandom(Seeds.logged(label));
    }

    /** What a test does with the two tables over the same 2,000 rows: the hash table's refs by key. */
    private interface TablesTest {
        void run(DirectIndexTable direct, UnchainedTable hashed, long[] hashedRefs);
    }

    /**
     * Builds a direct-index table and a hash table over the same rows of keys 0..1999 with text of varied length
     * (NULLs, short, and a few hundred bytes) and runs {@code test} on them.
     */
    private static void withTables(SplittableRandom random, TablesTest test) {
        int rows = 2000;
        List<Object[]> values = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            int kind = random.nextInt(20);
            String text = kind == 0 ? null
                    : kind == 1 ? "x".repeat(300 + random.nextInt(200))
                    : "v" + random.nextInt(1000);
            values.add(new Object[] {(long) i, text});
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 16 << 20)) {
            RowArena arena = DirectIndexTableTest.arena(memory, BUILD, LAYOUT, values);
            DirectIndexTable direct = DirectIndexTable.tryBuild(memory, LAYOUT, KeyRange.scan(LAYOUT,
                    arena), false, new RowArena[] {arena}, Long.MAX_VALUE);
            assertThat(direct).isNotNull();
            int longest = 0;
            for (int i = 0; i < rows; i++) {
                longest = Math.max(longest, direct.rowBytes(direct.refOf(i)));
            }
            assertThat(direct.maxRowBytes()).as("the direct table's longest row").isEqualTo(longest);
            UnchainedTable hashed = UnchainedTable.tryBuild(memory, LAYOUT, false, false, arena);
            assertThat(hashed).isNotNull();
            long[] hashedRefs = new long[rows];
            for (long row = hashed.firstRow(); row < hashed.endOfRows(); row += hashed.rowBytes(row)) {
                hashedRefs[(int) keyOf(hashed, row)] = row;
            }
            test.run(direct, hashed, hashedRefs);
            direct.close();
            hashed.close();
            arena.close();
        }
    }

    /**
     * The rows of each non-empty batch the writer hands out (keys), appending the hits of {@code refs}, and their
     * misses padded unless {@code quiet} (when not null) holds them back.
     */
    private static List<List<Long>> hitBatches(BuildRowReader table, long[] refs, long[] quiet, int[] probeBytes,
                                               long byteLimit) {
        return hitBatches(table, refs, quiet, probeBytes, byteLimit, BUILD, PROJECTION, false);
    }

    /**
     * As {@link #hitBatches(BuildRowReader, long[], long[], int[], long)}, into {@code projection}'s columns;
     * {@code everyRow}: appended by {@link OutputWriter#appendEveryRow} (every ref a row's), else by
     * {@link OutputWriter#appendHits}.
     */
    private static List<List<Long>> hitBatches(BuildRowReader table, long[] refs, long[] quiet, int[] probeBytes,
                                               long byteLimit, Schema schema, List<ColumnRef> projection,
                                               boolean everyRow) {
        OutputWriter out = new OutputWriter(schema, projection, Side.RIGHT, LAYOUT, CAPACITY, byteLimit);
        List<List<Long>> batches = new ArrayList<>();
        int i = 0;
        while (true) {
            out.readBuildRowsFrom(table);
            i = everyRow ? out.appendEveryRow(refs, probeBytes, i, refs.length)
                    : quiet == null ? out.appendHits(refs, probeBytes, i, refs.length)
                    : out.appendHitsOrPadded(refs, quiet, probeBytes, i, refs.length);
            out.materialize(null);
            if (i == refs.length) {
                break;
            }
            assertThat(out.isFull()).as("appendHits stops before the last row only at a full batch").isTrue();
            batches.add(keys(out.batch()));
            out.clear();
        }
        batches.add(keys(out.batch()));
        batches.removeIf(List::isEmpty);
        return batches;
    }

    /** The rows of each batch the writer hands out (keys), appending {@code refs} in order. */
    private static List<List<Long>> batches(BuildRowReader table, long[] refs, boolean[] materializeAfter,
                                            long byteLimit) {
        OutputWriter out = new OutputWriter(BUILD, PROJECTION, Side.RIGHT, LAYOUT, CAPACITY, byteLimit);
        List<List<Long>> batches = new ArrayList<>();
        int j = 0;
        while (j < refs.length) {
            out.readBuildRowsFrom(table);
            if (out.room() == 0) {
                out.materialize(null);
                assertThat(out.isFull()).isTrue();
                batches.add(keys(out.batch()));
                out.clear();
                continue;
            }
            out.append(refs[j]);
            if (materializeAfter[j]) {
                out.materialize(null);
                assertThat(out.room() == 0).as("room() is 0 exactly when the batch is full").isEqualTo(out.isFull());
            }
            j++;
        }
        out.materialize(null);
        batches.add(keys(out.batch()));
        return batches;
    }

    /**
     * The same batches as {@link #batches} (or {@link #hitBatches}, given {@code probeBytes}: refs of 0 add no row,
     * empty batches left out), from a model that sizes each build row when it is appended.
     */
    private static List<List<Long>> modelBatches(BuildRowReader table, long[] refs, int[] probeBytes, long[] quiet,
                                                 boolean[] materializeAfter, long byteLimit) {
        List<List<Long>> batches = new ArrayList<>();
        List<Long> batch = new ArrayList<>();
        long bytes = 0;
        int j = 0;
        while (j < refs.length) {
            boolean padded = quiet != null && (quiet[j >>> 6] >>> j & 1L) == 0;
            if (probeBytes != null && refs[j] == 0 && !padded) {
                j++;
                continue;
            }
            if (bytes >= byteLimit || batch.size() == CAPACITY) {
                batches.add(batch);
                batch = new ArrayList<>();
                bytes = 0;
                continue;
            }
            bytes += (refs[j] == 0 ? 0 : table.rowBytes(refs[j])) + (probeBytes == null ? 0 : probeBytes[j]);
            batch.add(refs[j] == 0 ? null : keyOf(table, refs[j]));
            j++;
        }
        batches.add(batch);
        if (probeBytes != null) {
            batches.removeIf(List::isEmpty);
        }
        return batches;
    }

    private static List<Long> keys(Batch batch) {
        List<Long> keys = new ArrayList<>();
        for (int r = 0; r < batch.rowCount(); r++) {
            keys.add(batch.column(0).isNull(r) ? null : batch.column(0).getLong(r));
        }
        return keys;
    }

    private static long keyOf(BuildRowReader table, long ref) {
        ColumnVector key = new ColumnVector(ColumnType.BIGINT, 1);
        table.gather(0, new long[] {ref}, 1, new GatherScratch(1), key, 0);
        return key.getLong(0);
    }
}
