package dev.spilljoin.operator.row;

import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RowArena#rewind}: an arena emptied batch after batch keeps its first page, reserved and at the same address,
 * for the next rows, and gives every other page back; a first page of a single oversized row is not kept.
 */
class RowArenaTest {
    private static final int PAGE = 4096;

    @Test
    void rewindKeepsTheFirstPageForTheNextRowsAndGivesTheOthersBack() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            RowArena arena = new RowArena(memory, PAGE);
            long first = arena.tryAllocate(1000);
            for (int i = 0; i < 11; i++) {
                assertThat(arena.tryAllocate(1000)).isNotZero();
            }
            assertThat(arena.pageCount()).isEqualTo(3);
            assertThat(memory.reserved()).isEqualTo(3L * PAGE);

            arena.rewind();
            assertThat(arena.pageCount()).isEqualTo(1);
            assertThat(arena.rowCount()).isZero();
            assertThat(arena.usedBytes()).isZero();
            assertThat(arena.reservedBytes()).isEqualTo(PAGE);
            assertThat(memory.reserved()).as("the kept page stays reserved, the others are returned").isEqualTo(PAGE);

            assertThat(arena.tryAllocate(1000)).as("the next row goes to the kept page's start").isEqualTo(first);
            assertThat(arena.tryAllocate(1000)).isEqualTo(first + 1000);
            assertThat(arena.rowCount()).isEqualTo(2);
            assertThat(arena.pageUsed(0)).isEqualTo(2000);
            for (int i = 0; i < 4; i++) {
                assertThat(arena.tryAllocate(1000)).isNotZero();
            }
            assertThat(arena.pageCount()).as("rows beyond the kept page get new pages as before").isEqualTo(2);

            arena.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    @Test
    void rewindFreesAFirstPageThatHeldARowLargerThanAPage() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            RowArena arena = new RowArena(memory, PAGE);
            assertThat(arena.tryAllocate(3 * PAGE)).isNotZero();
            assertThat(arena.tryAllocate(100)).isNotZero();
            arena.rewind();
            assertThat(arena.pageCount()).isZero();
            assertThat(memory.reserved()).isZero();
            assertThat(arena.tryAllocate(100)).isNotZero();
            assertThat(memory.reserved()).isEqualTo(PAGE);
            arena.close();
            assertThat(memory.reserved()).isZero();
        }
    }

    @Test
    void rewindOfAnEmptyArenaKeepsNothing() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            RowArena arena = new RowArena(memory, PAGE);
            arena.rewind();
            assertThat(arena.pageCount()).isZero();
            assertThat(memory.reserved()).isZero();
            arena.close();
        }
    }
}
