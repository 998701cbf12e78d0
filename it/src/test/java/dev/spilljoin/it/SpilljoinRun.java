package dev.spilljoin.it;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.data.BatchSink;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.spill.MemoryReservation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs spilljoin's join on a {@link JoinCase} (or any two sources) under a budget, with the accounting checks every
 * integration test wants: the join spills under a fresh spill root of its own; after it is closed, nothing is
 * reserved or allocated, the peak reserved stayed within the budget, and the spill root is empty. The one place in
 * the module that creates the operator.
 */
final class SpilljoinRun {
    /** The result's digest and the join's stats. */
    record Outcome(ResultDigest digest, JoinStats stats) {
    }

    private SpilljoinRun() {
    }

    /** Joins the case's inputs and digests every result row. */
    static Outcome digest(JoinCase c, JoinType type, List<ColumnRef> projection, long budgetBytes, JoinConfig config,
                          Function<JoinSpec, HashJoin> create) {
        ResultDigest[] digest = new ResultDigest[1];
        BatchRowView view = new BatchRowView();
        JoinStats stats = run(memory -> c.spec(type, projection, memory, config), budgetBytes,
                BatchSources.of(c.left()), BatchSources.of(c.right()), spec -> {
                    digest[0] = new ResultDigest(spec.outputSchema());
                    return batch -> {
                        for (int r = 0; r < batch.rowCount(); r++) {
                            view.moveTo(batch, r);
                            digest[0].add(view);
                        }
                    };
                }, create);
        assertThat(stats.outputRows()).as("stats' output rows").isEqualTo(digest[0].rowCount());
        return new Outcome(digest[0], stats);
    }

    /**
     * Runs the join {@code specFor} describes (given the memory it must draw from) over the sources, handing result
     * batches to the sink {@code sinkFor} makes for the spec; checks the memory accounting and returns the stats.
     */
    static JoinStats run(Function<MemoryReservation, JoinSpec> specFor, long budgetBytes, BatchSource left,
                         BatchSource right, Function<JoinSpec, BatchSink> sinkFor) {
        return run(specFor, budgetBytes, left, right, sinkFor, HashJoin::create);
    }

    /** As above, with the join made by {@code create} (e.g. with a test-only fault bound). */
    static JoinStats run(Function<MemoryReservation, JoinSpec> specFor, long budgetBytes, BatchSource left,
                         BatchSource right, Function<JoinSpec, BatchSink> sinkFor, Function<JoinSpec, HashJoin> create) {
        JoinStats stats;
        Path spillRoot = createSpillRoot();
        try (MemoryReservation root = MemoryReservation.root("it-join", budgetBytes)) {
            JoinSpec spec = withSpillDirectory(specFor.apply(root), spillRoot);
            BatchSink sink = sinkFor.apply(spec);
            try (HashJoin join = create.apply(spec)) {
                join.run(left, right, sink);
                stats = join.stats();
            }
            assertThat(root.reserved()).as("bytes still reserved after the join closed").isZero();
            assertThat(root.allocated()).as("bytes still allocated after the join closed").isZero();
            assertThat(root.peakReserved()).as("peak reserved vs budget").isLessThanOrEqualTo(budgetBytes);
            assertEmptyAndDelete(spillRoot);
        }
        assertThat(stats.peakReservedBytes()).as("stats' peak reserved vs budget").isLessThanOrEqualTo(budgetBytes);
        return stats;
    }

    private static JoinSpec withSpillDirectory(JoinSpec s, Path directory) {
        return s.withConfig(s.config().toBuilder().spillDirectory(directory).build());
    }

    private static Path createSpillRoot() {
        try {
            return Files.createTempDirectory("spilljoin-it-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a spill root under java.io.tmpdir", e);
        }
    }

    private static void assertEmptyAndDelete(Path spillRoot) {
        try (Stream<Path> files = Files.list(spillRoot)) {
            assertThat(files.toList()).as("files left in the spill root after the join closed").isEmpty();
            Files.delete(spillRoot);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
