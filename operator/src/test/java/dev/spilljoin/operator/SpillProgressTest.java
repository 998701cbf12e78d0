package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.operator.testing.SpillRoot;
import dev.spilljoin.spill.MemoryReservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HashJoin#spillProgress()} is live while the join runs (a progress display reads it between result
 * batches, long before the stats report the phase that spilled): nothing before anything spilled, bytes and files
 * once the build side has spilled, and at the end at least the bytes the stats report as spilled.
 */
class SpillProgressTest {
    @RegisterExtension
    final SpillRoot spillRoot = new SpillRoot();

    @Test
    void spillProgressIsReadLiveWhileTheJoinRuns() {
        List<Object[]> build = new ArrayList<>();
        for (long i = 0; i < 20_000; i++) {
            build.add(new Object[]{i, i});
        }
        List<Batch> buildBatches = Rows.toBatches(GeneratedSource.SCHEMA, build, 1024);
        try (MemoryReservation budget = MemoryReservation.root("progress", 1 << 20)) {
            JoinSpec spec = JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                    .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(budget)
                    .config(JoinConfig.builder().spillDirectory(spillRoot.path()).buildSide(Side.LEFT)
                            .forceSpill(true).build()).build();
            try (HashJoin join = HashJoin.create(spec)) {
                assertThat(join.spillProgress()).isEqualTo(new HashJoin.SpillProgress(0, 0));
                Iterator<Batch> results = join.iterator(BatchSources.of(buildBatches), BatchSources.of(buildBatches));
                long rows = 0;
                assertThat(results.hasNext()).isTrue();
                HashJoin.SpillProgress midway = join.spillProgress();
                assertThat(midway.bytesWritten()).as("the build side spilled before the first result").isPositive();
                assertThat(midway.filesCreated()).isPositive();
                while (results.hasNext()) {
                    rows += results.next().rowCount();
                }
                assertThat(rows).isEqualTo(20_000);
                HashJoin.SpillProgress end = join.spillProgress();
                JoinStats stats = join.stats();
                assertThat(end.bytesWritten()).isGreaterThanOrEqualTo(midway.bytesWritten())
                        .isGreaterThanOrEqualTo(stats.spilledBytesBuild() + stats.spilledBytesProbe());
            }
        }
    }
}
