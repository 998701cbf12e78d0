package dev.spilljoin.estimator;

/**
 * What is known of one join input: its rows, its bytes in the join's row format, an estimate of its distinct keys
 * and its heavy keys. Taken from {@link KeySketches#statistics} while the input streams in, kept in the
 * {@link StatisticsCache} for the next join over the same input, and handed to the {@link PartitionPlanner}.
 */
public record InputStatistics(long rows, long bytes, long distinctKeys, HeavyHitters heavyHitters) {

    public InputStatistics {
        if (rows < 0 || bytes < 0 || distinctKeys < 0) {
            throw new IllegalArgumentException("input statistics must be >= 0, got rows " + rows + ", bytes " + bytes
                    + ", distinctKeys " + distinctKeys);
        }
        if (heavyHitters == null) {
            throw new IllegalArgumentException("heavyHitters must not be null; use HeavyHitters.none()");
        }
    }

    /** Statistics with no heavy keys known. */
    public static InputStatistics of(long rows, long bytes, long distinctKeys) {
        return new InputStatistics(rows, bytes, distinctKeys, HeavyHitters.none());
    }

    /** The bytes this object takes on the heap, about: the statistics cache's weight. */
    public long heapBytes() {
        return 48 + heavyHitters.heapBytes();
    }
}
