package dev.spilljoin.operator;

import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.estimator.SketchConfig;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryReservation;

/**
 * The key sketches of one join (estimator's {@link KeySketches}): one over every build row, one over a sample of
 * the probe side (every {@value #PROBE_EVERY_KTH_BATCH}th batch), fed the key hashes each pass computes anyway.
 *
 * <p>Memory: both sketches' peak ({@link KeySketches#memoryBytes()}) is reserved in a child reservation of the join
 * before the first row; when the budget cannot hold that beside the join's minimum, the join runs without sketches
 * ({@link #reserve} returns none and says why). The sketches live on the heap; the reservation only
 * accounts for them. {@link #close()} returns the bytes (after the probe pass; the statistics are copied out first).
 */
final class JoinSketches implements AutoCloseable {
    static final int PROBE_EVERY_KTH_BATCH = 8;
    private static final SketchConfig BUILD = SketchConfig.BUILD;
    private static final SketchConfig PROBE = SketchConfig.BUILD.sampleEveryKthBatch(PROBE_EVERY_KTH_BATCH);

    final KeySketches build;
    final KeySketches probe;
    private final MemoryReservation reservation;

    private JoinSketches(MemoryReservation reservation) {
        this.reservation = reservation;
        this.build = new KeySketches(BUILD);
        this.probe = new KeySketches(PROBE);
    }

    /** The sketches' bytes, reserved. */
    static long memoryBytes() {
        return KeySketches.memoryBytes(BUILD) + KeySketches.memoryBytes(PROBE);
    }

    /**
     * Sketches reserved from {@code memory}, or none (with the reason) when its limit cannot hold them beside
     * {@code minimumBudget}.
     */
    static Reserved<JoinSketches> reserve(MemoryReservation memory, long minimumBudget) {
        long bytes = memoryBytes();
        if (memory.limit() - minimumBudget < bytes) {
            return Reserved.off("the budget of " + ByteSize.format(memory.limit()) + " cannot hold "
                    + ByteSize.format(bytes) + " of sketches beside the join's minimum of "
                    + ByteSize.format(minimumBudget));
        }
        MemoryReservation child = memory.newChild("key-sketches");
        if (!child.tryGrow(bytes)) {
            child.close();
            return Reserved.off(ByteSize.format(bytes) + " of sketches were refused by the budget");
        }
        return Reserved.on(new JoinSketches(child), bytes);
    }

    @Override
    public void close() {
        reservation.close();
    }
}
