package dev.spilljoin.workloads;

/**
 * The rows of workload W1 of docs/WORKLOADS.md (foreign key, uniform), row by row: R has the keys
 * {@code perm(i, nR)} (each of {@code [0, nR)} once), S draws its keys uniformly from {@code [0, nR)}, so every S
 * row matches exactly one R row. Pure functions of the row index {@code i} (from 0) and the sizes.
 */
public final class W1Rows {

    /** The seed of {@code R.p(i) = payload(0x11, i)}, the build payload of every workload. */
    public static final long BUILD_PAYLOAD_SEED = 0x11;
    /** The seed of {@code S.k(i) = uniform(0x21, i, nR)}. */
    public static final long PROBE_KEY_SEED = 0x21;
    /** The seed of {@code S.p(i) = payload(0x22, i)}. */
    public static final long PROBE_PAYLOAD_SEED = 0x22;

    private W1Rows() {
    }

    /** {@code R.k(i) = perm(i, nR)}. */
    public static long buildKey(long i, long nR) {
        return WorkloadMath.perm(i, nR);
    }

    /** {@code R.p(i) = payload(0x11, i)}. */
    public static long buildPayload(long i) {
        return WorkloadMath.payload(BUILD_PAYLOAD_SEED, i);
    }

    /** {@code S.k(i) = uniform(0x21, i, nR)}. */
    public static long probeKey(long i, long nR) {
        return WorkloadMath.uniform(PROBE_KEY_SEED, i, nR);
    }

    /** {@code S.p(i) = payload(0x22, i)}. */
    public static long probePayload(long i) {
        return WorkloadMath.payload(PROBE_PAYLOAD_SEED, i);
    }
}
