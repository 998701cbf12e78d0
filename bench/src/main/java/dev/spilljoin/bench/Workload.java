package dev.spilljoin.bench;

import dev.spilljoin.workloads.W1Rows;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark workloads W1, W2, W3, W3L and W4 of docs/WORKLOADS.md: how R's and S's keys are drawn, the
 * seeds of S, and the query. {@link WorkloadGenerator} turns a workload and a {@link Scale} into rows.
 *
 * <p>R's payload seed is {@link #BUILD_PAYLOAD_SEED} in every workload, so workloads with the same
 * {@link BuildKeys} share one R table ({@link #buildTableId()}); W3 and W3L share S as well ({@link #probeTableId()}).
 */
public enum Workload {
    W1(BuildKeys.PERMUTATION, ProbeKeys.UNIFORM_IN_RANGE, W1Rows.PROBE_KEY_SEED, W1Rows.PROBE_PAYLOAD_SEED, JoinKind.INNER,
            "foreign key, uniform"),
    W2(BuildKeys.SKEWED, ProbeKeys.ZIPF, 0x31, 0x32, JoinKind.INNER, "skewed build keys, Zipf probe keys"),
    W3(BuildKeys.PERMUTATION, ProbeKeys.UNIFORM_TEN_RANGES, 0x41, 0x42, JoinKind.INNER, "selective, misses above R's key range"),
    W3L(BuildKeys.PERMUTATION, ProbeKeys.UNIFORM_TEN_RANGES, 0x41, 0x42, JoinKind.PROBE_OUTER, "W3 with the probe side outer"),
    W4(BuildKeys.SPREAD_PERMUTATION, ProbeKeys.UNIFORM_TEN_RANGES, 0x51, 0x52, JoinKind.INNER, "selective, misses inside R's key range");

    /** The seed of {@code R.p(i) = payload(0x11, i)}, the same in every workload. */
    public static final long BUILD_PAYLOAD_SEED = W1Rows.BUILD_PAYLOAD_SEED;

    /** How {@code R.k(i)} is drawn for {@code i} in {@code [0, nR)}. */
    public enum BuildKeys {
        /** {@code perm(i, nR)}: every key of {@code [0, nR)} once. */
        PERMUTATION,
        /** {@code j = i % 1000}: {@code j < 10 -> 0}, {@code j < 15 -> 1}, {@code j < 17 -> 2}, {@code j == 17 -> 3}, else {@code perm(i, nR)}. */
        SKEWED,
        /** {@code 10 * perm(i, nR)}: keys spread over {@code [0, 10 nR)} with gaps of 10. */
        SPREAD_PERMUTATION
    }

    /** How {@code S.k(i)} is drawn for {@code i} in {@code [0, nS)}, with the workload's probe key seed. */
    public enum ProbeKeys {
        /** {@code uniform(seed, i, nR)}. */
        UNIFORM_IN_RANGE,
        /** {@code nR - zipfRank(uniform(seed, i, T))}. */
        ZIPF,
        /** {@code uniform(seed, i, 10 nR)}. */
        UNIFORM_TEN_RANGES
    }

    /** Inner join, or S LEFT JOIN R (every probe row counted once when it has no match). */
    public enum JoinKind {
        INNER,
        PROBE_OUTER
    }

    private final BuildKeys buildKeys;
    private final ProbeKeys probeKeys;
    private final long probeKeySeed;
    private final long probePayloadSeed;
    private final JoinKind joinKind;
    private final String description;

    Workload(BuildKeys buildKeys, ProbeKeys probeKeys, long probeKeySeed, long probePayloadSeed, JoinKind joinKind,
             String description) {
        this.buildKeys = buildKeys;
        this.probeKeys = probeKeys;
        this.probeKeySeed = probeKeySeed;
        this.probePayloadSeed = probePayloadSeed;
        this.joinKind = joinKind;
        this.description = description;
    }

    public BuildKeys buildKeys() {
        return buildKeys;
    }

    public ProbeKeys probeKeys() {
        return probeKeys;
    }

    public long probeKeySeed() {
        return probeKeySeed;
    }

    public long probePayloadSeed() {
        return probePayloadSeed;
    }

    public JoinKind joinKind() {
        return joinKind;
    }

    public String description() {
        return description;
    }

    /** The query of docs/WORKLOADS.md over tables named {@code r} and {@code s}. */
    public String sql() {
        return switch (joinKind) {
            case INNER -> "SELECT count(*), sum(r.p + s.p) FROM r JOIN s ON r.k = s.k";
            case PROBE_OUTER -> "SELECT count(*), sum(r.p + s.p) FROM s LEFT JOIN r ON r.k = s.k";
        };
    }

    /** Names R's rows (independent of the scale): workloads with equal ids have identical R tables. */
    public String buildTableId() {
        return "R/" + buildKeys;
    }

    /** Names S's rows (independent of the scale): workloads with equal ids have identical S tables. */
    public String probeTableId() {
        return String.format(Locale.ROOT, "S/%s/0x%x/0x%x", probeKeys, probeKeySeed, probePayloadSeed);
    }

    /** Parses a comma-separated list such as {@code W1,W3L}; names are case-insensitive. */
    public static List<Workload> parseList(String names) {
        List<Workload> result = new ArrayList<>();
        for (String name : names.split(",")) {
            String trimmed = name.trim().toUpperCase(Locale.ROOT);
            try {
                result.add(valueOf(trimmed));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown workload '" + name.trim() + "': use any of W1, W2, W3, W3L, W4", e);
            }
        }
        return result;
    }
}
