package dev.spilljoin.bench;

import dev.spilljoin.workloads.WorkloadMath;
import dev.spilljoin.workloads.ZipfDistribution;

/**
 * Generates the rows of one {@link Workload} at one {@link Scale} with the exact formulas of docs/WORKLOADS.md.
 * Any range of rows can be produced independently ({@code fillBuild}/{@code fillProbe} of rows
 * {@code [first, first + n)}), so tables stream in chunks ({@link #buildTable()}, {@link #probeTable()}) or
 * materialize whole.
 *
 * <p>The key rule is chosen once per call, outside the row loop; the loops are plain arithmetic over arrays.
 * W2's Zipf table ({@code 8 nR} bytes) is built once per generator.
 */
public final class WorkloadGenerator {

    private final Workload workload;
    private final Scale scale;
    private final ZipfDistribution zipf;

    public WorkloadGenerator(Workload workload, Scale scale) {
        this.workload = workload;
        this.scale = scale;
        this.zipf = workload.probeKeys() == Workload.ProbeKeys.ZIPF ? ZipfDistribution.integerWeights(scale.nR()) : null;
    }

    public Workload workload() {
        return workload;
    }

    public Scale scale() {
        return scale;
    }

    public TableSource buildTable() {
        return new TableSource(this, TableSource.Role.BUILD);
    }

    public TableSource probeTable() {
        return new TableSource(this, TableSource.Role.PROBE);
    }

    /** Every build key is in {@code [0, buildKeyBound())}. */
    public long buildKeyBound() {
        long nR = scale.nR();
        return workload.buildKeys() == Workload.BuildKeys.SPREAD_PERMUTATION ? 10 * (nR - 1) + 1 : nR;
    }

    /** Writes R's rows {@code [first, first + n)} into {@code keys[0, n)} and {@code payloads[0, n)}. */
    public void fillBuild(long first, long[] keys, long[] payloads, int n) {
        checkRange(first, n, scale.nR());
        long nR = scale.nR();
        switch (workload.buildKeys()) {
            case PERMUTATION -> {
                for (int j = 0; j < n; j++) {
                    keys[j] = WorkloadMath.perm(first + j, nR);
                }
            }
            case SPREAD_PERMUTATION -> {
                for (int j = 0; j < n; j++) {
                    keys[j] = 10 * WorkloadMath.perm(first + j, nR);
                }
            }
            case SKEWED -> {
                for (int j = 0; j < n; j++) {
                    keys[j] = skewedBuildKey(first + j, nR);
                }
            }
        }
        for (int j = 0; j < n; j++) {
            payloads[j] = WorkloadMath.payload(Workload.BUILD_PAYLOAD_SEED, first + j);
        }
    }

    /** Writes S's rows {@code [first, first + n)} into {@code keys[0, n)} and {@code payloads[0, n)}. */
    public void fillProbe(long first, long[] keys, long[] payloads, int n) {
        checkRange(first, n, scale.nS());
        long nR = scale.nR();
        long keySeed = workload.probeKeySeed();
        switch (workload.probeKeys()) {
            case UNIFORM_IN_RANGE -> {
                for (int j = 0; j < n; j++) {
                    keys[j] = WorkloadMath.uniform(keySeed, first + j, nR);
                }
            }
            case UNIFORM_TEN_RANGES -> {
                long m = 10 * nR;
                for (int j = 0; j < n; j++) {
                    keys[j] = WorkloadMath.uniform(keySeed, first + j, m);
                }
            }
            case ZIPF -> {
                long total = (long) zipf.totalWeight(); // T, an integer below 2^45: exact in a double
                for (int j = 0; j < n; j++) {
                    keys[j] = nR - zipf.rank(WorkloadMath.uniform(keySeed, first + j, total));
                }
            }
        }
        long payloadSeed = workload.probePayloadSeed();
        for (int j = 0; j < n; j++) {
            payloads[j] = WorkloadMath.payload(payloadSeed, first + j);
        }
    }

    /** W2's build key: heavy keys 0..3 hold 1%, 0.5%, 0.2% and 0.1% of R, the rest is {@code perm(i, nR)}. */
    static long skewedBuildKey(long i, long nR) {
        long j = i % 1000;
        if (j < 10) {
            return 0;
        } else if (j < 15) {
            return 1;
        } else if (j < 17) {
            return 2;
        } else if (j == 17) {
            return 3;
        }
        return WorkloadMath.perm(i, nR);
    }

    private static void checkRange(long first, int n, long rows) {
        if (first < 0 || n < 0 || first + n > rows) {
            throw new IndexOutOfBoundsException("rows [" + first + ", " + (first + n) + ") outside the table's [0, " + rows + ")");
        }
    }
}
