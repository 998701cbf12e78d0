package dev.spilljoin.operator.table;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.table.JoinStrategy.FinishAction;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The finish pass cut into ranges ({@link FinishRanges}) over both table kinds: for 1 to 8 workers and every finish
 * action, the ranges, scanned interleaved (each range's scan resumed after every small result batch, as workers
 * handing out batches do), emit every row the whole-table scan emits exactly once: a range scanned twice, or a row
 * in two ranges, shows as a duplicate; a range skipped, or a gap between ranges, as a missing row. Tables of a few
 * thousand rows with NULL-key rows and random MATCHED marks; BIGINT and VARCHAR rows for the unchained table.
 * Seeded; replay with {@code -Dseed=<seed>}.
 */
class FinishRangesTest {
    private static final Schema KV = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    private static final Schema TEXT =
            Schema.of(Column.of("k", ColumnType.VARCHAR), Column.of("v", ColumnType.VARCHAR));
    private static final int[] WORKERS = {1, 2, 3, 4, 8};

    private final MemoryReservation memory = MemoryReservation.root("finish ranges test", 256L << 20);

    @AfterEach
    void everyByteReturned() {
        assertThat(memory.reserved()).as("bytes still reserved after the test").isZero();
        memory.close();
    }

    private static long seed(String test) {
        return Seeds.logged("FinishRangesTest." + test);
    }

    /**
     * {@code rows} rows of unique keys (row i: 2i or 2i + 1, a dense range), the first and one in ten of the
     * others a NULL key.
     */
    private static List<Object[]> rows(SplittableRandom r, int rows, boolean text) {
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            long key = 2L * i + r.nextInt(2);
            boolean nullKey = i == 0 || r.nextInt(10) == 0;
            out.add(text ? new Object[] {nullKey ? null : "k" + key, "v" + i}
                    : new Object[] {nullKey ? null : key, (long) i});
        }
        return out;
    }

    private static RowLayout layoutOf(Schema schema) {
        return new RowLayout(schema, new int[] {0}, new int[] {0, 1});
    }

    @Test
    void unchainedTableRangesEmitEveryRowOnce() {
        SplittableRandom r = new SplittableRandom(seed("unchainedTableRangesEmitEveryRowOnce"));
        for (Schema schema : List.of(KV, TEXT)) {
            for (int rows : new int[] {0, 40, 5000}) {
                RowLayout layout = layoutOf(schema);
                try (RowArena arena = UnchainedTableTest.arenaOf(memory, schema, rows(r, rows, schema == TEXT));
                     UnchainedTable table = UnchainedTable.tryBuild(memory, layout, true, true, arena)) {
                    CompactRows format = table.format();
                    for (long row = table.firstRow(); row < table.endOfRows(); row += format.rowLength(row)) {
                        if (r.nextInt(3) == 0) {
                            format.setMatched(row);
                        }
                    }
                    String what = schema + " rows=" + rows;
                    assertThat(table.endOfRows() > table.nullKeyRowsStart()).as(what).isEqualTo(rows > 0);
                    checkRanges(layout, what, r, (action, workers) ->
                            FinishRanges.of(table, action, false, false, workers));
                }
            }
        }
    }

    @Test
    void directIndexTableRangesEmitEveryRowOnce() {
        SplittableRandom r = new SplittableRandom(seed("directIndexTableRangesEmitEveryRowOnce"));
        for (int rows : new int[] {40, 5000}) {
            RowLayout layout = layoutOf(KV);
            try (RowArena arena = UnchainedTableTest.arenaOf(memory, KV, rows(r, rows, false));
                 DirectIndexTable table = DirectIndexTable.tryBuild(memory, layout,
                         KeyRange.scan(layout, arena), true, new RowArena[] {arena},
                         Long.MAX_VALUE)) {
                assertThat(table).as("a direct-index table over unique dense keys").isNotNull();
                long occupancy = table.occupancy();
                for (long block = 0; block < table.blockCount(); block++) {
                    long bits = NativeMemory.getLong(occupancy + (block << 3));
                    for (; bits != 0; bits &= bits - 1) {
                        if (r.nextInt(3) == 0) {
                            table.setMatched(table.refOf((block << 6) + Long.numberOfTrailingZeros(bits)));
                        }
                    }
                }
                assertThat(table.nullKeyRows()).isPositive();
                checkRanges(layout, "direct rows=" + rows, r, (action, workers) ->
                        FinishRanges.of(table, action, false, false, workers));
            }
        }
    }

    /** How a test cuts its table: the ranges for a finish action and a number of workers. */
    private interface Cut {
        FinishRanges of(FinishAction action, int workers);
    }

    /**
     * For every finish action that emits rows and every worker count: the ranges' rows, scanned interleaved, equal
     * the whole-table scan's (one worker), each row once; with more than one worker, a table of thousands of rows is
     * cut into more ranges than workers.
     */
    private static void checkRanges(RowLayout layout, String what, SplittableRandom r, Cut cut) {
        for (FinishAction action : List.of(FinishAction.UNMATCHED_PADDED, FinishAction.MATCHED,
                FinishAction.UNMATCHED, FinishAction.NULL_AWARE_UNMATCHED)) {
            Map<Long, Integer> whole = emitted(layout, cut.of(action, 1), r);
            assertThat(whole.values()).as("%s %s: the whole-table scan emits each row once", what, action)
                    .allMatch(n -> n == 1);
            for (int workers : WORKERS) {
                FinishRanges ranges = cut.of(action, workers);
                String where = what + " " + action + " workers=" + workers + " ranges=" + ranges.count();
                if (workers == 1) {
                    assertThat(ranges.count()).as(where).isEqualTo(1);
                } else if (whole.size() > 1000) {
                    assertThat(ranges.count()).as(where).isGreaterThan(workers);
                }
                Map<Long, Integer> got = emitted(layout, ranges, r);
                assertThat(got.entrySet().stream().filter(e -> e.getValue() > 1).count())
                        .as("%s: rows emitted more than once", where).isZero();
                assertThat(whole.keySet().stream().filter(row -> !got.containsKey(row)).count())
                        .as("%s: rows of the whole-table scan not emitted", where).isZero();
                assertThat(got.keySet().stream().filter(row -> !whole.containsKey(row)).count())
                        .as("%s: rows the whole-table scan does not emit", where).isZero();
            }
            assertThat(cut.of(FinishAction.NONE, 4).count()).as("%s: no range without a finish action", what)
                    .isZero();
        }
    }

    /**
     * Each build row the ranges emit, with how often: every range's scan is started, then all are resumed in random
     * order, one small result batch at a time, until every one is done.
     */
    private static Map<Long, Integer> emitted(RowLayout layout, FinishRanges ranges, SplittableRandom r) {
        Schema out = Schema.of(new Column("k", layout.fieldType(0), true));
        IntFunction<OutputWriter> writer = n -> {
            OutputWriter w = new OutputWriter(out, List.of(new ColumnRef(Side.RIGHT, 0)), Side.RIGHT, layout, n,
                    Long.MAX_VALUE);
            w.keepPairs();
            return w;
        };
        List<FinishScan> open = new ArrayList<>();
        List<OutputWriter> writers = new ArrayList<>();
        for (int i = 0; i < ranges.count(); i++) {
            open.add(ranges.scan(i));
            writers.add(writer.apply(1 + r.nextInt(50)));
        }
        Map<Long, Integer> rows = new HashMap<>();
        while (!open.isEmpty()) {
            int i = r.nextInt(open.size());
            OutputWriter w = writers.get(i);
            boolean done = open.get(i).fill(w);
            w.materialize(null);
            for (int row = 0; row < w.rowCount(); row++) {
                rows.merge(w.buildRowOf(row), 1, Integer::sum);
            }
            w.clear();
            if (done) {
                open.remove(i);
                writers.remove(i);
            }
        }
        return rows;
    }
}
