package dev.spilljoin.bench.micro;

import dev.spilljoin.spill.MemoryReservation;

/**
 * The memory budget of one benchmark state: a root {@link MemoryReservation} through which every off-heap byte the
 * benchmark touches is reserved and allocated (as in the join), and a leak check when the state is torn down.
 */
final class BenchBudget {
    private BenchBudget() {
    }

    /** A root reservation limited to {@code limitBytes}. */
    static MemoryReservation open(String name, long limitBytes) {
        return MemoryReservation.root("jmh " + name, limitBytes);
    }

    /**
     * Closes {@code budget}; throws if anything was still reserved, i.e. the benchmark's tear-down did not free
     * everything it allocated.
     */
    static void close(MemoryReservation budget) {
        long left = budget.reserved();
        budget.close();
        if (left != 0) {
            throw new IllegalStateException("benchmark budget '" + budget.name() + "' still held " + left
                    + " bytes at tear-down: a benchmark leaked off-heap memory");
        }
    }
}
