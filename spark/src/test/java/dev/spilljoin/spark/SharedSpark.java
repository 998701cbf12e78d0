package dev.spilljoin.spark;

import org.apache.spark.SparkEnv;
import org.apache.spark.SparkStatusTracker;
import org.apache.spark.sql.SparkSession;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The one local[2] SparkSession of a test JVM (a session takes seconds to start), with the quiet, loopback-only
 * settings of SPARK.md; memory leaks by a task fail the task ({@code spark.unsafe.exceptionOnMemoryLeak}).
 * Execution memory is a small off-heap pool ({@value #OFF_HEAP_BYTES}), so a test can make one task's hash table
 * outgrow it with little data. {@link SpillJoinExtensions} is installed but off ({@code spark.spilljoin.joins=off}); tests of the extension turn it
 * on per query.
 */
final class SharedSpark {
    static final String OFF_HEAP_BYTES = "32m";
    private static SparkSession session;

    private SharedSpark() {
    }

    static synchronized SparkSession session() {
        if (session == null) {
            session = SparkSession.builder()
                    .master("local[2]")
                    .appName("spilljoin-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.ui.showConsoleProgress", "false")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.sql.shuffle.partitions", "4")
                    .config("spark.unsafe.exceptionOnMemoryLeak", "true")
                    .config("spark.memory.offHeap.enabled", "true")
                    .config("spark.memory.offHeap.size", OFF_HEAP_BYTES)
                    .config("spark.sql.extensions", SpillJoinExtensions.class.getName())
                    .config(SpillJoinRule.JOINS_SETTING, "off")
                    .getOrCreate();
            Runtime.getRuntime().addShutdownHook(new Thread(session::stop));
        }
        return session;
    }

    /** Temp local blocks (files or directories) in Spark's local directories: where the join's spill roots live. */
    static List<Path> tempLocalBlocks() {
        File[] dirs = SparkEnv.get().blockManager().diskBlockManager().localDirs();
        return Stream.of(dirs).flatMap(d -> pathsUnder(d.toPath()).stream()
                .filter(p -> p.getFileName().toString().startsWith("temp_local_"))).toList();
    }

    /** Regular files under the temp local blocks: the join's spill files. */
    static long spillFiles() {
        return tempLocalBlocks().stream().mapToLong(root -> pathsUnder(root).stream().filter(Files::isRegularFile).count())
                .sum();
    }

    /**
     * Every path under {@code root} (itself included); none when it is deleted meanwhile: another task's join may
     * delete its spill root while this walks it, so a root that vanishes counts as gone.
     */
    private static List<Path> pathsUnder(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return pathsUnder(root);
            }
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits (polling) until no stage and no task runs: after a job fails, Spark ends its stages at once but the
     * job's other tasks are killed asynchronously and clean up after that.
     */
    static void awaitIdle() throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (busy()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Spark still runs stages or tasks 60 s after the job ended");
            }
            Thread.sleep(20);
        }
    }

    private static boolean busy() {
        try {
            session().sparkContext().listenerBus().waitUntilEmpty();
        } catch (TimeoutException e) {
            throw new AssertionError("Spark's listener bus did not drain", e);
        }
        SparkStatusTracker tracker = session().sparkContext().statusTracker();
        return tracker.getActiveStageIds().length > 0
                || Stream.of(tracker.getExecutorInfos()).anyMatch(e -> e.numRunningTasks() > 0);
    }
}
