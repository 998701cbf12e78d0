package dev.spilljoin.bench;

import java.util.Optional;

/**
 * The results docs/WORKLOADS.md lists for the small scale (1M x 10M): the generator and the reference join are
 * checked against them before any engine is timed.
 */
public final class ExpectedResults {

    private ExpectedResults() {
    }

    /** The listed result of {@code workload} at {@code scale}, or empty where the spec lists none. */
    public static Optional<JoinResult> listed(Workload workload, Scale scale) {
        if (scale.nR() != Scale.SMALL.nR() || scale.nS() != Scale.SMALL.nS()) {
            return Optional.empty();
        }
        return Optional.of(switch (workload) {
            case W1 -> new JoinResult(10_000_000L, 21481313584743985L);
            case W2 -> new JoinResult(9_876_921L, 21360344069618383L);
            case W3 -> new JoinResult(999_367L, 2146783427470298L);
            case W3L -> new JoinResult(10_000_000L, 2146783427470298L);
            case W4 -> new JoinResult(999_400L, 2147294479470724L);
        });
    }
}
