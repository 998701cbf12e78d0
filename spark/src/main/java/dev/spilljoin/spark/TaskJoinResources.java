package dev.spilljoin.spark;

import dev.spilljoin.operator.HashJoin;
import org.apache.spark.SparkEnv;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Everything one task's join holds: the join (native memory, spill files), the execution memory taken from Spark
 * ({@link TaskMemory}, absent when the caller fixed the budget) and the task's spill root, a directory made in
 * Spark's local directories where Spark's own spills go ({@code DiskBlockManager.createTempLocalBlock()}).
 *
 * <p>Invariant: after {@link #close()} the join is closed, every byte is returned to Spark and the spill root with
 * everything under it is deleted. {@code close()} is idempotent and is the single cleanup path: the task's output
 * iterator calls it when the join's output is exhausted, and a task-completion listener calls it on success, failure
 * and kill alike.
 */
final class TaskJoinResources implements AutoCloseable {
    private final TaskMemory memory;
    private final Path spillRoot;
    private volatile HashJoin join;
    private boolean closed;

    private TaskJoinResources(TaskMemory memory, Path spillRoot) {
        this.memory = memory;
        this.spillRoot = spillRoot;
    }

    /** Makes the task's spill root in Spark's local directories; {@code memory} may be null (fixed budget). */
    static TaskJoinResources open(TaskMemory memory) {
        File dir = SparkEnv.get().blockManager().diskBlockManager().createTempLocalBlock()._2();
        try {
            Files.createDirectories(dir.toPath());
        } catch (IOException e) {
            if (memory != null) {
                memory.releaseAll();
            }
            throw new UncheckedIOException("cannot create the join's spill directory " + dir
                    + " in Spark's local directories (spark.local.dir); check that it is writable", e);
        }
        return new TaskJoinResources(memory, dir.toPath());
    }

    Path spillRoot() {
        return spillRoot;
    }

    /** Hands the join to this holder, which closes it with everything else. */
    void attach(HashJoin hashJoin) {
        this.join = hashJoin;
    }

    HashJoin join() {
        return join;
    }

    /** Asks the join to stop (any thread, e.g. Spark's task killer); close still runs on the task's thread. */
    void cancel() {
        HashJoin j = join;
        if (j != null) {
            j.cancel();
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (join != null) {
                join.close();
            }
        } finally {
            try {
                if (memory != null) {
                    memory.releaseAll();
                }
            } finally {
                deleteRecursively(spillRoot);
            }
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the join's spill directory " + root, e);
        }
    }
}
