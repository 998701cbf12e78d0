package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.RowLayout;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.SpillFile;
import dev.spilljoin.spill.SpillSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SpilledRowPagesTest {
    private static final Schema SCHEMA = Schema.of(Column.of("k", ColumnType.BIGINT), Column.of("v", ColumnType.BIGINT));
    private static final RowLayout LAYOUT = new RowLayout(SCHEMA, new int[] {0}, new int[] {0, 1});
    private static final SpillRowFormat FORMAT = new SpillRowFormat(LAYOUT);
    private static final int WINDOW = 4096;
    private static final int MAX_WINDOW = 16 * WINDOW;

    /**
     * A pass reads through windows as large as half the budget's room beyond its least allows, in steps of the least
     * window, up to the most: the whole room (the most), none to spare (the least), and a room between (half of the
     * spare, rounded down to a step); through the grown window it gives back every row, in file order, maps one window
     * of that size at a time, and reserves more than its least but at most half the spare room beyond it.
     */
    @Test
    void aPassReadsThroughTheLargestWindowHalfTheSpareRoomHolds(@TempDir Path root) throws IOException {
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 20_000; i++) {
            rows.add(new Object[] {i, i * 7});
        }
        try (MemoryReservation memory = MemoryReservation.root("test", 64 << 20);
             SpillSpace space = SpillSpace.create(root, WINDOW)) {
            SpillFile file = DirectIndexTableTest.spill(memory, space, FORMAT, LAYOUT, SCHEMA, rows);
            assertThat(file.length()).isGreaterThan(MAX_WINDOW);
            try (SpilledRowPages pages = new SpilledRowPages(memory, FORMAT, WINDOW, MAX_WINDOW, 64)) {
                pages.add(file);
                long least = pages.passBytes(1);
                assertThat(pages.passWindow(1)).isEqualTo(MAX_WINDOW);

                long filler = memory.headroom() - least;
                assertThat(memory.tryGrow(filler)).isTrue();
                assertThat(pages.passWindow(1)).isEqualTo(WINDOW);
                memory.shrink(filler);

                long spare = 7 * WINDOW + 100;
                filler = memory.headroom() - least - spare;
                assertThat(memory.tryGrow(filler)).isTrue();
                int window = pages.passWindow(1);
                assertThat(window).isEqualTo(WINDOW + spare / 2 / WINDOW * WINDOW).isEqualTo(4 * WINDOW);

                long mappedBefore = space.counters().peakMappedBytes();
                long reservedBefore = memory.reserved();
                long[] mostReserved = {0};
                List<Long> keys = new ArrayList<>();
                pages.forEachBlock(ParallelTasks.startingHelpers(1), (thread, block, page) -> {
                    mostReserved[0] = Math.max(mostReserved[0], memory.reserved());
                    for (int q = 0; q < page.pageCount(); q++) {
                        for (long row = page.pageAddress(q), end = row + page.pageUsed(q); row < end;
                             row += LAYOUT.rowLength(row)) {
                            keys.add(NativeMemory.getLong(LAYOUT.fixedAddress(row, 0)));
                        }
                    }
                });
                assertThat(keys).hasSize(rows.size());
                for (int i = 0; i < keys.size(); i++) {
                    assertThat(keys.get(i)).as("row %d", i).isEqualTo(i);
                }
                assertThat(space.counters().peakMappedBytes()).isEqualTo(Math.max(mappedBefore, window));
                assertThat(mostReserved[0] - reservedBefore).as("the pass's reader and page")
                        .isGreaterThan(least).isLessThanOrEqualTo(least + spare / 2);
                memory.shrink(filler);
                pages.deleteFiles();
            }
            assertThat(memory.reserved()).isZero();
        }
    }
}
