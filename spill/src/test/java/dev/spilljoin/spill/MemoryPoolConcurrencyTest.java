package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryPoolConcurrencyTest {
    private static final long CAPACITY = 1 << 20;

    @Test
    void eightThreadsOnOnePoolNeverExceedIt() throws Exception {
        SplittableRandom seeds = SeededRandom.create("eightThreadsOnOnePoolNeverExceedIt");
        MemoryPool pool = new MemoryPool(CAPACITY);
        AtomicLong overruns = new AtomicLong();
        AtomicLong refusals = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Long>> peaks = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                SplittableRandom random = seeds.split();
                MemoryReservation opened = pool.openJoin("join" + t, 16 * 1024, CAPACITY / 2);
                peaks.add(threads.submit(() -> {
                    start.await();
                    try (MemoryReservation join = opened) {
                        List<NativeMemory.NativePage> pages = new ArrayList<>();
                        for (int step = 0; step < 2000; step++) {
                            if (pool.used() > CAPACITY) {
                                overruns.incrementAndGet();
                            }
                            if (!pages.isEmpty() && random.nextInt(3) == 0) {
                                NativeMemory.NativePage page = pages.remove(random.nextInt(pages.size()));
                                page.close();
                                join.shrink(page.size());
                            } else {
                                long bytes = 1 + random.nextInt(32 * 1024);
                                if (join.tryGrow(bytes)) {
                                    pages.add(NativeMemory.allocate(join, bytes));
                                } else {
                                    refusals.incrementAndGet();
                                }
                            }
                            assertThat(join.allocated()).isLessThanOrEqualTo(join.reserved());
                        }
                        return join.peakReserved();
                    }
                }));
            }
            start.countDown();
            for (Future<Long> peak : peaks) {
                assertThat(peak.get(60, TimeUnit.SECONDS)).isLessThanOrEqualTo(CAPACITY / 2);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overruns.get()).isZero();
        assertThat(refusals.get()).as("the pool was contended enough to refuse").isPositive();
        assertThat(pool.peakUsed()).isLessThanOrEqualTo(CAPACITY).isGreaterThan(CAPACITY / 2);
        assertThat(pool.used()).isZero();
    }

    @Test
    void failureMidwayLeavesNothingReservedOnceClosed() {
        MemoryPool pool = new MemoryPool(CAPACITY);
        MemoryReservation join = pool.openJoin("join", 4096, CAPACITY);
        MemoryReservation build = join.newChild("build");
        assertThat(build.tryGrow(100_000)).isTrue();
        NativeMemory.allocate(build, 60_000);
        assertThatThrownBy(() -> NativeMemory.allocate(build, 50_000))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reserve before allocating");
        join.close();
        assertThat(join.reserved()).isZero();
        assertThat(pool.used()).isZero();
    }

    @Test
    void aParentCannotShrinkAwayItsChildrensBytes() {
        try (MemoryReservation root = MemoryReservation.root("join", 10_000)) {
            MemoryReservation child = root.newChild("probe");
            assertThat(child.tryGrow(6_000)).isTrue();
            assertThatThrownBy(() -> root.shrink(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("reserved by its children");
            assertThat(root.tryGrow(1_000)).isTrue();
            root.shrink(1_000);
            assertThat(root.reserved()).isEqualTo(6_000);
        }
    }
}
