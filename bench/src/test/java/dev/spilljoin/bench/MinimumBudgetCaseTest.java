package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The smallest-budget case at a size CI can run (W1, 50K x 50K): the real {@code bin/spilljoin} at the minimum
 * budget and at 1 MB, both outputs right, the peak resident set read, the stats read (the minimum budget
 * re-partitions and never takes the nested loop), and the work directory gone afterwards. Speed is not asserted
 * (the full case is a benchmark).
 */
class MinimumBudgetCaseTest {

    @Test
    void theSpilljoinCommandRunsAtTheMinimumBudgetAndAtOneMegabyteWithRightResults() throws Exception {
        Path launcher = CsvCaseTest.builtLauncher();
        CsvCaseTest.inBenchTmpdir(base -> {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            Scale scale = new Scale("50Kx50K", 50_000, 50_000);
            MinimumBudgetCase minimumCase = new MinimumBudgetCase(scale,
                    new PrintStream(log, true, StandardCharsets.UTF_8));
            List<MinimumBudgetCase.Outcome> outcomes = minimumCase.run(launcher);
            System.out.print(log.toString(StandardCharsets.UTF_8));
            JoinResult expected = ReferenceJoin.compute(new WorkloadGenerator(Workload.W1, scale));
            assertThat(outcomes).extracting(MinimumBudgetCase.Outcome::memoryLimitBytes)
                    .containsExactly(HashJoin.minimumBudget(JoinConfig.DEFAULT), MinimumBudgetCase.ONE_MB);
            for (MinimumBudgetCase.Outcome outcome : outcomes) {
                assertThat(outcome.result()).isEqualTo(expected);
                assertThat(outcome.agrees()).isTrue();
                assertThat(outcome.seconds()).isPositive();
                assertThat(outcome.peakRssBytes()).as("VmHWM read while it ran").isPositive();
                assertThat(outcome.nestedLoopChunks()).isZero();
            }
            assertThat(outcomes.get(0).maxRecursionDepth()).as("the minimum budget re-partitions").isPositive();
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("spilljoin at  57.0KB", "depth ");
        });
    }
}
