package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DuckDbEngineTest {

    private static final Scale TINY = new Scale("tiny", 1_000, 10_000);
    private static final long BUDGET = 64L << 20;

    @Test
    void everyWorkloadGivesTheReferenceResultAndTheDirectoryIsGoneAfterClose() throws Exception {
        Path directory;
        try (DuckDbEngine engine = new DuckDbEngine()) {
            directory = engine.directory();
            for (Workload workload : Workload.values()) {
                WorkloadGenerator generator = new WorkloadGenerator(workload, TINY);
                engine.load(generator.buildTable());
                engine.load(generator.probeTable());
                JoinResult expected = ReferenceJoin.compute(generator);
                assertThat(expected.count()).isPositive();

                Engine.TimedRun run = engine.run(workload, BUDGET);
                assertThat(run.result()).as("%s", workload).isEqualTo(expected);
                assertThat(run.nanos()).isPositive();

                EngineProfile profile = engine.profile(workload, BUDGET);
                assertThat(profile.result()).as("%s profiled", workload).isEqualTo(expected);
                assertThat(profile.peakMemoryBytes()).isPresent();
                assertThat(profile.spilledBytes()).isPresent();
            }
            assertThat(directory).isDirectory();
        }
        assertThat(directory).doesNotExist();
    }
}
