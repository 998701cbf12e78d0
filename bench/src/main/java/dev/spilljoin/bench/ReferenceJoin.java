package dev.spilljoin.bench;

/**
 * Computes a workload's expected {@code count(*)} and {@code sum(r.p + s.p)} without a join engine, to check
 * every engine against.
 *
 * <p>Algorithm: every build key lies in {@code [0, buildKeyBound)} (at most {@code 10 nR}), so one pass over R
 * fills two arrays indexed by key: the number of R rows with that key and the sum of their payloads. One pass
 * over S then adds, for a probe row with key k and payload p, {@code count[k]} rows and
 * {@code sum[k] + count[k] * p} to the result (a probe key outside the bound matches nothing). In the probe-outer
 * join an unmatched probe row adds one row and nothing to the sum (its {@code r.p + s.p} is NULL).
 * Both tables stream in chunks: memory is {@code 12 * buildKeyBound} bytes, whatever nS is.
 */
public final class ReferenceJoin {

    private static final int CHUNK_ROWS = 1 << 16;

    private ReferenceJoin() {
    }

    public static JoinResult compute(WorkloadGenerator generator) {
        int bound = Math.toIntExact(generator.buildKeyBound());
        int[] matchesByKey = new int[bound];
        long[] payloadSumByKey = new long[bound];
        generator.buildTable().forEachChunk(CHUNK_ROWS, (keys, payloads, rows) -> {
            for (int j = 0; j < rows; j++) {
                int key = (int) keys[j];
                matchesByKey[key]++;
                payloadSumByKey[key] += payloads[j];
            }
        });
        boolean probeOuter = generator.workload().joinKind() == Workload.JoinKind.PROBE_OUTER;
        long[] totals = new long[2];
        generator.probeTable().forEachChunk(CHUNK_ROWS, (keys, payloads, rows) -> {
            long count = 0;
            long sum = 0;
            for (int j = 0; j < rows; j++) {
                long key = keys[j];
                int matches = key < bound ? matchesByKey[(int) key] : 0;
                if (matches > 0) {
                    count += matches;
                    sum += payloadSumByKey[(int) key] + matches * payloads[j];
                } else if (probeOuter) {
                    count++;
                }
            }
            totals[0] += count;
            totals[1] += sum;
        });
        return new JoinResult(totals[0], totals[1]);
    }
}
