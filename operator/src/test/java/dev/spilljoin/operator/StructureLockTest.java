package dev.spilljoin.operator;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build's striped structure lock: workers read at once, a writer waits for every reader (of any worker) and holds
 * every reader and every other writer off, and the writing thread may take it again.
 */
class StructureLockTest {
    /** How long a thread that must be blocked is given to (wrongly) get through. */
    private static final long BLOCKED_MILLIS = 200;

    @Test
    void workersReadAtOnce() throws InterruptedException {
        StructureLock lock = new StructureLock(3);
        lock.lockRead(0);
        Thread other = start(() -> {
            lock.lockRead(2);
            lock.unlockRead(2);
        });
        other.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(other.isAlive()).as("worker 2 reads while worker 0 does").isFalse();
        lock.unlockRead(0);
    }

    @Test
    void aWriterWaitsForAReaderOfAnyWorker() throws InterruptedException {
        for (int reader = 0; reader < 3; reader++) {
            StructureLock lock = new StructureLock(3);
            lock.lockRead(reader);
            CountDownLatch written = new CountDownLatch(1);
            Thread writer = start(() -> {
                lock.lockWrite();
                written.countDown();
                lock.unlockWrite();
            });
            assertThat(written.await(BLOCKED_MILLIS, TimeUnit.MILLISECONDS))
                    .as("the writer got in while worker %d read", reader).isFalse();
            lock.unlockRead(reader);
            assertThat(written.await(10, TimeUnit.SECONDS)).as("the writer, once worker %d ended", reader).isTrue();
            writer.join();
        }
    }

    @Test
    void aWriterHoldsEveryReaderAndWriterOff() throws InterruptedException {
        StructureLock lock = new StructureLock(3);
        lock.lockWrite();
        lock.lockWrite(); // reentrant: a writer may call code that writes again
        lock.unlockWrite();
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch written = new CountDownLatch(1);
        Thread reader = start(() -> {
            lock.lockRead(2);
            read.countDown();
            lock.unlockRead(2);
        });
        Thread writer = start(() -> {
            lock.lockWrite();
            written.countDown();
            lock.unlockWrite();
        });
        assertThat(read.await(BLOCKED_MILLIS, TimeUnit.MILLISECONDS)).as("a reader got in while written").isFalse();
        assertThat(written.getCount()).as("a second writer got in while written").isEqualTo(1);
        lock.unlockWrite();
        assertThat(read.await(10, TimeUnit.SECONDS)).as("the reader, once the writer ended").isTrue();
        assertThat(written.await(10, TimeUnit.SECONDS)).as("the second writer, once the first ended").isTrue();
        reader.join();
        writer.join();
    }

    private static Thread start(Runnable body) {
        Thread t = new Thread(body, "structure-lock-test");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
