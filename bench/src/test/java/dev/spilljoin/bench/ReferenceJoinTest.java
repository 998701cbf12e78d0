package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReferenceJoinTest {

    /** The generator and the reference at the small scale give exactly what docs/WORKLOADS.md lists. */
    @ParameterizedTest
    @EnumSource(Workload.class)
    void smallScaleGivesTheListedCountAndSum(Workload workload) {
        JoinResult listed = ExpectedResults.listed(workload, Scale.SMALL).orElseThrow();
        assertThat(ReferenceJoin.compute(new WorkloadGenerator(workload, Scale.SMALL))).isEqualTo(listed);
    }

    /** The reference agrees with a plain hash join over materialized rows (a second, independent oracle). */
    @ParameterizedTest
    @EnumSource(Workload.class)
    void agreesWithAMaterializedHashJoinAtATinyScale(Workload workload) {
        WorkloadGenerator generator = new WorkloadGenerator(workload, new Scale("tiny", 2_000, 30_000));
        assertThat(ReferenceJoin.compute(generator)).isEqualTo(materializedJoin(generator));
    }

    @ParameterizedTest
    @EnumSource(Workload.class)
    void chunkedGenerationEqualsMaterializedGeneration(Workload workload) {
        WorkloadGenerator generator = new WorkloadGenerator(workload, new Scale("tiny", 1_000, 10_007));
        TableSource.Columns whole = generator.probeTable().materialize();
        long[] keys = new long[whole.keys().length];
        long[] payloads = new long[keys.length];
        int[] next = {0};
        generator.probeTable().forEachChunk(333, (k, p, rows) -> {
            System.arraycopy(k, 0, keys, next[0], rows);
            System.arraycopy(p, 0, payloads, next[0], rows);
            next[0] += rows;
        });
        assertThat(next[0]).isEqualTo(10_007);
        assertThat(keys).isEqualTo(whole.keys());
        assertThat(payloads).isEqualTo(whole.payloads());
    }

    private static JoinResult materializedJoin(WorkloadGenerator generator) {
        TableSource.Columns r = generator.buildTable().materialize();
        TableSource.Columns s = generator.probeTable().materialize();
        Map<Long, long[]> rowsByKey = new HashMap<>();
        for (int i = 0; i < r.keys().length; i++) {
            long[] old = rowsByKey.getOrDefault(r.keys()[i], new long[0]);
            long[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = r.payloads()[i];
            rowsByKey.put(r.keys()[i], grown);
        }
        long count = 0;
        long sum = 0;
        for (int i = 0; i < s.keys().length; i++) {
            long[] matches = rowsByKey.get(s.keys()[i]);
            if (matches == null) {
                count += generator.workload().joinKind() == Workload.JoinKind.PROBE_OUTER ? 1 : 0;
                continue;
            }
            for (long rp : matches) {
                count++;
                sum += rp + s.payloads()[i];
            }
        }
        return new JoinResult(count, sum);
    }
}
