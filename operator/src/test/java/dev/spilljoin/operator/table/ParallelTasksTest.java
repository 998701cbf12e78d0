package dev.spilljoin.operator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;

/**
 * {@link ParallelTasks}: every task runs once on one of the threads; kept helpers are the same threads from pass to
 * pass, named for the pass while they run it, and end at close; a pass asking for a busy helper, or one after close,
 * still runs; the first failure is rethrown once every thread stopped.
 */
class ParallelTasksTest {

    @Test
    void everyTaskRunsOnceOnOneOfTheThreads() {
        for (ParallelTasks tasks : new ParallelTasks[] {ParallelTasks.CALLER, ParallelTasks.startingHelpers(3),
                ParallelTasks.keepingHelpers(3)}) {
            try (tasks) {
                int count = 1000;
                AtomicInteger[] runs = new AtomicInteger[count];
                for (int i = 0; i < count; i++) {
                    runs[i] = new AtomicInteger();
                }
                Set<Integer> threadsSeen = ConcurrentHashMap.newKeySet();
                tasks.run(count, (thread, index) -> {
                    threadsSeen.add(thread);
                    runs[index].incrementAndGet();
                });
                for (int i = 0; i < count; i++) {
                    assertThat(runs[i].get()).as("task %d on %d threads", i, tasks.threads()).isEqualTo(1);
                }
                assertThat(threadsSeen).allMatch(t -> t >= 0 && t < tasks.threads());
            }
        }
    }

    @Test
    void keptHelpersAreTheSameThreadsFromPassToPassAndEndAtClose() {
        ParallelTasks tasks = ParallelTasks.keepingHelpers(3);
        AtomicReferenceArray<Thread> first = new AtomicReferenceArray<>(3);
        ParallelTasks.Helpers pass = tasks.start("build", 2, w -> first.set(w, Thread.currentThread()));
        pass.await();
        Thread one = first.get(1);
        Thread two = first.get(2);
        assertThat(one).isNotNull().isNotSameAs(two).isNotSameAs(Thread.currentThread());
        for (String name : new String[] {"probe", "finish"}) {
            AtomicReferenceArray<Thread> seen = new AtomicReferenceArray<>(3);
            AtomicReferenceArray<String> names = new AtomicReferenceArray<>(3);
            tasks.start(name, 2, w -> {
                seen.set(w, Thread.currentThread());
                names.set(w, Thread.currentThread().getName());
            }).await();
            assertThat(seen.get(1)).as(name).isSameAs(one);
            assertThat(seen.get(2)).as(name).isSameAs(two);
            assertThat(names.get(1)).isEqualTo("spilljoin-" + name + "-1");
            assertThat(names.get(2)).isEqualTo("spilljoin-" + name + "-2");
        }
        // a table pass on a view of fewer threads takes the same first helper
        AtomicReferenceArray<Thread> table = new AtomicReferenceArray<>(3);
        tasks.limitedTo(2).run(10, (thread, index) -> table.set(thread, Thread.currentThread()));
        assertThat(table.get(1)).isIn(null, one);
        tasks.limitedTo(2).close();
        assertThat(one.isAlive()).as("kept, parked between passes, a view's close ending nothing").isTrue();
        assertThat(one.getName()).as("renamed before its pass counted it done").isEqualTo("spilljoin-helper-1");

        tasks.close();
        assertThat(one.isAlive()).as("ended by close").isFalse();
        assertThat(two.isAlive()).as("ended by close").isFalse();
        // after close a pass still runs, on a started thread
        AtomicReferenceArray<Thread> after = new AtomicReferenceArray<>(2);
        tasks.start("late", 1, w -> after.set(w, Thread.currentThread())).await();
        assertThat(after.get(1)).isNotNull().isNotSameAs(one);
        tasks.close();
    }

    @Test
    void theHelpersCpuTimeInARunIsCountedUntilTaken() {
        try (ParallelTasks tasks = ParallelTasks.keepingHelpers(2)) {
            AtomicInteger onHelper = new AtomicInteger();
            tasks.limitedTo(2).run(2, (thread, index) -> {
                if (thread == 1) {
                    onHelper.incrementAndGet();
                    long until = ThreadCpu.now() + 20_000_000; // 20 ms of the helper's CPU
                    while (ThreadCpu.now() < until) {
                        Thread.onSpinWait();
                    }
                } else {
                    long until = System.nanoTime() + 10_000_000_000L; // the caller waits for the helper's task
                    while (onHelper.get() == 0 && System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                }
            });
            assertThat(onHelper.get()).as("the helper took a task").isEqualTo(1);
            assertThat(tasks.takeHelperCpuNanos()).isGreaterThanOrEqualTo(20_000_000);
            assertThat(tasks.takeHelperCpuNanos()).as("taken").isZero();
        }
    }

    @Test
    void aKeptHelperStartsEachPassUninterrupted() {
        try (ParallelTasks tasks = ParallelTasks.keepingHelpers(2)) {
            AtomicReferenceArray<Thread> helper = new AtomicReferenceArray<>(2);
            tasks.start("probe", 1, w -> helper.set(w, Thread.currentThread())).await();
            helper.get(1).interrupt(); // meant for the pass that ended (a writer stopped at Ctrl-C)
            AtomicReferenceArray<Boolean> interrupted = new AtomicReferenceArray<>(2);
            AtomicReferenceArray<Thread> next = new AtomicReferenceArray<>(2);
            tasks.start("finish", 1, w -> {
                next.set(w, Thread.currentThread());
                interrupted.set(w, Thread.currentThread().isInterrupted());
            }).await();
            assertThat(next.get(1)).isSameAs(helper.get(1));
            assertThat(interrupted.get(1)).isFalse();
        }
    }

    @Test
    void aPassStartedWhileItsHelperIsBusyRunsOnAThreadOfItsOwn() {
        try (ParallelTasks tasks = ParallelTasks.keepingHelpers(2)) {
            CountDownLatch innerDone = new CountDownLatch(1);
            AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(2);
            tasks.start("outer", 1, w -> {
                threads.set(0, Thread.currentThread());
                tasks.start("inner", 1, v -> {
                    threads.set(1, Thread.currentThread());
                    innerDone.countDown();
                }).await();
            }).await();
            assertThat(innerDone.getCount()).isZero();
            assertThat(threads.get(1)).isNotNull().isNotSameAs(threads.get(0));
        }
    }

    @Test
    void theFirstFailureIsRethrownOnceEveryThreadStopped() {
        try (ParallelTasks tasks = ParallelTasks.keepingHelpers(2)) {
            AtomicInteger running = new AtomicInteger();
            assertThatThrownBy(() -> tasks.run(100, (thread, index) -> {
                running.incrementAndGet();
                try {
                    if (index == 7) {
                        throw new IllegalArgumentException("task 7");
                    }
                } finally {
                    running.decrementAndGet();
                }
            })).isInstanceOf(IllegalArgumentException.class).hasMessage("task 7");
            assertThat(running.get()).as("no task still running").isZero();
            // the helper is free again for the next pass
            AtomicInteger ran = new AtomicInteger();
            tasks.run(10, (thread, index) -> ran.incrementAndGet());
            assertThat(ran.get()).isEqualTo(10);
        }
    }

    @Test
    void whatEscapesAHelpersBodyIsRethrownByAwait() {
        try (ParallelTasks tasks = ParallelTasks.keepingHelpers(2)) {
            ParallelTasks.Helpers helpers = tasks.start("build", 1, w -> {
                throw new IllegalStateException("escaped");
            });
            assertThatThrownBy(helpers::await).isInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("escaped");
        }
    }
}
