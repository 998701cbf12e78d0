package dev.spilljoin.bench;

/** What every workload query returns: {@code count(*)} and {@code sum(r.p + s.p)} (0 when no row matched). */
public record JoinResult(long count, long sum) {

    @Override
    public String toString() {
        return "count " + count + ", sum " + sum;
    }
}
