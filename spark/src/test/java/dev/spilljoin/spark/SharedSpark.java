package dev.spilljoin.spark;

import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSession;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one local[2] SparkSession of a test JVM (a session takes seconds to start), with the quiet, loopback-only
 * settings of SPARK.md; memory leaks by a task fail the task ({@code spark.unsafe.exceptionOnMemoryLeak}).
 */
final class SharedSpark {
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
                    .getOrCreate();
            Runtime.getRuntime().addShutdownHook(new Thread(session::stop));
        }
        return session;
    }

    /** Temp local blocks (files or directories) in Spark's local directories: where the join's spill roots live. */
    static List<Path> tempLocalBlocks() {
        File[] dirs = SparkEnv.get().blockManager().diskBlockManager().localDirs();
        return Stream.of(dirs).flatMap(d -> {
            try (Stream<Path> paths = Files.walk(d.toPath())) {
                return paths.filter(p -> p.getFileName().toString().startsWith("temp_local_")).toList().stream();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).toList();
    }

    /** Waits (polling) until no stage runs, so tasks cancelled after a job failure have finished their cleanup. */
    static void awaitIdle() throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (session().sparkContext().statusTracker().getActiveStageIds().length > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Spark still runs stages 60 s after the job ended");
            }
            Thread.sleep(20);
        }
    }
}
