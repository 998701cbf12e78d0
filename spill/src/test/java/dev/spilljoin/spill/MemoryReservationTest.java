package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryReservationTest {

    @Test
    void refusesGrowthPastTheLimitAndChangesNothing() {
        try (MemoryReservation root = MemoryReservation.root("join", 1000)) {
            MemoryReservation build = root.newChild("build");
            assertThat(build.tryGrow(600)).isTrue();
            assertThat(build.tryGrow(401)).isFalse();
            assertThat(build.reserved()).isEqualTo(600);
            assertThat(root.reserved()).isEqualTo(600);
            assertThat(build.tryGrow(400)).isTrue();
            assertThat(root.peakReserved()).isEqualTo(1000);
            build.shrink(300);
            assertThat(root.reserved()).isEqualTo(700);
            build.close();
            assertThat(root.reserved()).isZero();
            assertThat(root.peakReserved()).isEqualTo(1000);
        }
    }

    @Test
    void allocationMustBeCoveredByAReservation() {
        try (MemoryReservation root = MemoryReservation.root("join", 1 << 20)) {
            MemoryReservation pages = root.newChild("pages");
            assertThatThrownBy(() -> NativeMemory.allocate(pages, 4096))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("reserve before allocating");
            assertThat(pages.tryGrow(8192)).isTrue();
            NativeMemory.NativePage page = NativeMemory.allocate(pages, 8192);
            NativeMemory.putLong(page.address() + 8184, 42L);
            assertThat(NativeMemory.getLong(page.address() + 8184)).isEqualTo(42L);
            assertThat(NativeMemory.getLong(page.address())).isZero();
            assertThat(pages.allocated()).isEqualTo(8192);
            assertThatThrownBy(() -> pages.shrink(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("allocated");
            page.close();
            page.close();
            assertThat(pages.allocated()).isZero();
            pages.shrink(8192);
            assertThat(root.reserved()).isZero();
        }
    }

    @Test
    void closingFreesPagesStillAllocated() {
        MemoryReservation root = MemoryReservation.root("join", 1 << 20);
        MemoryReservation child = root.newChild("table");
        assertThat(child.tryGrow(65536)).isTrue();
        NativeMemory.NativePage page = NativeMemory.allocate(child, 65536);
        root.close();
        assertThat(page.isClosed()).isTrue();
        assertThat(child.isClosed()).isTrue();
        assertThat(root.reserved()).isZero();
        assertThatThrownBy(() -> child.tryGrow(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pooledJoinsShareOneCap() {
        MemoryPool pool = new MemoryPool(1000);
        MemoryReservation a = pool.openJoin("a", 300, 800);
        MemoryReservation b = pool.openJoin("b", 300, 800);
        assertThat(pool.used()).isEqualTo(600);
        assertThat(a.tryGrow(300)).isTrue();
        assertThat(a.tryGrow(200)).isTrue();
        assertThat(pool.used()).isEqualTo(800);
        assertThat(b.tryGrow(300)).isTrue();
        assertThat(b.tryGrow(201)).isFalse();
        assertThat(b.tryGrow(200)).isTrue();
        assertThat(pool.used()).isEqualTo(1000);
        assertThatThrownBy(() -> pool.openJoin("c", 1, 10))
                .isInstanceOf(MemoryExhaustedException.class)
                .hasMessageContaining("needs at least 1B");
        a.close();
        b.close();
        assertThat(pool.used()).isZero();
        assertThat(pool.peakUsed()).isEqualTo(1000);
    }

    @Test
    void aChildWithALimitHoldsNoMoreThanItAndItsHeadroomSaysSo() {
        try (MemoryReservation root = MemoryReservation.root("join", 1000)) {
            MemoryReservation worker = root.newChild("worker-0", 300);
            MemoryReservation task = worker.newChild("task");
            assertThat(task.headroom()).as("the worker's limit bounds its children").isEqualTo(300);
            assertThat(task.tryGrow(200)).isTrue();
            assertThat(task.tryGrow(101)).as("past the worker's limit").isFalse();
            assertThat(worker.reserved()).isEqualTo(200);
            assertThat(root.newChild("other").tryGrow(700)).isTrue();
            assertThat(task.headroom()).as("the root's room is the tighter bound now").isEqualTo(100);
            assertThat(task.tryGrow(100)).isTrue();
            assertThat(root.headroom()).isZero();
            task.close();
            assertThat(worker.headroom()).isEqualTo(300);
        }
    }

    @Test
    void transferMovesUnusedBytesWithoutFreeingThemForOthers() {
        try (MemoryReservation root = MemoryReservation.root("join", 1000)) {
            MemoryReservation share = root.newChild("share");
            MemoryReservation writer = root.newChild("writer");
            MemoryReservation pages = root.newChild("pages");
            assertThat(share.tryGrow(300)).isTrue();
            assertThat(pages.tryGrow(700)).isTrue();
            share.transferTo(writer, 200);
            assertThat(share.reserved()).isEqualTo(100);
            assertThat(writer.reserved()).isEqualTo(200);
            assertThat(root.reserved()).as("the root's total does not change").isEqualTo(1000);
            assertThat(pages.tryGrow(1)).as("nothing came free in between").isFalse();
            assertThatThrownBy(() -> share.transferTo(writer, 101)).isInstanceOf(IllegalStateException.class);
        }
    }
}
