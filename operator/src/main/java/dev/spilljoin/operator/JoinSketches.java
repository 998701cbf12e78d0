package dev.spilljoin.operator;

import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.estimator.SketchConfig;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryReservation;

/**
 * The key sketches of one join (estimator's {@link KeySketches}): one over every build row, one over a sample of
 * the probe side (every {@value #PROBE_EVERY_KTH_BATCH}th batch), fed the key hashes each pass computes anyway.
 *
 * <p>Build workers: with more than one, each feeds a build sketch of its own ({@link #buildPart}; worker 0's is
 * {@link #build}), so that no lock is shared per batch; the build asks them together for heavy keys while no worker
 * updates ({@link dev.spilljoin.estimator.HeavyHitters#find(KeySketches[], long)}) and merges them into
 * {@link #build} once every worker stopped ({@link #mergeBuildParts}). Probe workers likewise feed samples of their
 * own ({@link #probePart}), merged into {@link #probe} at the end of the pass. The extra sketches cost
 * {@link KeySketches#memoryBytes()} each (about 95 KiB for the build's configuration, 33 KiB for the probe's), so
 * they are taken only when they stay within 1/{@value #PARTS_SHARE_OF_HEADROOM} of the memory spare (with two
 * workers, from budgets of about 4 MiB); otherwise every worker feeds the one sketch under its lock, as one worker
 * does.
 *
 * <p>Memory: both sketches' peak ({@link KeySketches#memoryBytes()}) is reserved in a child reservation of the join
 * before the first row; when the budget cannot hold that beside the join's minimum, the join runs without sketches
 * ({@link #reserve} returns none and says why). The workers' extra sketches are reserved in the same child
 * before they exist, and given back once merged (a merge holds nothing more). The sketches live on the heap; the
 * reservation only accounts for them. {@link #close()} returns the bytes (after the probe pass; the statistics are
 * copied out first).
 */
final class JoinSketches implements AutoCloseable {
    static final int PROBE_EVERY_KTH_BATCH = 8;
    /** The workers' extra sketches may take at most this fraction of the spare memory. */
    static final int PARTS_SHARE_OF_HEADROOM = 32;
    private static final SketchConfig BUILD = SketchConfig.BUILD;
    /**
     * The probe side's sample: its rows and distinct keys are reported, never its heavy keys, so it keeps no
     * frequent-items sketch (more than half of what the sample would cost).
     */
    private static final SketchConfig PROBE = SketchConfig.BUILD.sampleEveryKthBatch(PROBE_EVERY_KTH_BATCH)
            .withoutFrequentItems();

    final KeySketches build;
    final KeySketches probe;
    private final MemoryReservation reservation;
    /** The build sketches the build workers feed: {@link #build} alone, or one per worker (worker 0's is build). */
    private final Parts buildParts;
    /** The probe samples the probe workers feed: {@link #probe} alone, or one per worker (worker 0's is probe). */
    private final Parts probeParts;

    private JoinSketches(MemoryReservation reservation) {
        this.reservation = reservation;
        this.build = new KeySketches(BUILD);
        this.probe = new KeySketches(PROBE);
        this.buildParts = new Parts(build, BUILD);
        this.probeParts = new Parts(probe, PROBE);
    }

    /**
     * One input's sketches as its workers feed them: {@code whole} alone (shared, under its lock), or, once
     * {@link #split}, one per worker (worker 0's is {@code whole}) until {@link #merge}d into it.
     */
    private final class Parts {
        private final KeySketches whole;
        private final SketchConfig config;
        private KeySketches[] parts;
        /** Bytes reserved for the workers' extra sketches (0 without them). */
        private long bytes;

        Parts(KeySketches whole, SketchConfig config) {
            this.whole = whole;
            this.config = config;
            this.parts = new KeySketches[] {whole};
        }

        void split(int workers, long spare) {
            long extra = (workers - 1) * KeySketches.memoryBytes(config);
            if (workers < 2 || extra > spare / PARTS_SHARE_OF_HEADROOM || !reservation.tryGrow(extra)) {
                return;
            }
            bytes = extra;
            parts = new KeySketches[workers];
            parts[0] = whole;
            for (int w = 1; w < workers; w++) {
                parts[w] = new KeySketches(config);
            }
        }

        KeySketches part(int worker) {
            return parts[Math.min(worker, parts.length - 1)];
        }

        void merge() {
            for (int w = 1; w < parts.length; w++) {
                whole.merge(parts[w]);
            }
            parts = new KeySketches[] {whole};
            reservation.shrink(bytes);
            bytes = 0;
        }
    }

    /**
     * Gives each of {@code workers} build workers a build sketch of its own when their extra bytes stay within
     * 1/{@value #PARTS_SHARE_OF_HEADROOM} of {@code spare} (the memory free beyond the join's minimum) and the budget
     * grants them; else they all feed {@link #build}. Call once, before the first build row.
     */
    void splitBuild(int workers, long spare) {
        buildParts.split(workers, spare);
    }

    /** The build sketch worker {@code worker} feeds (its own, or {@link #build} shared: then under its lock). */
    KeySketches buildPart(int worker) {
        return buildParts.part(worker);
    }

    /** The distinct build sketches the workers feed (one when they share {@link #build}). */
    KeySketches[] buildParts() {
        return buildParts.parts;
    }

    /**
     * Merges the workers' build sketches into {@link #build} (every build worker stopped) and gives their bytes back;
     * idempotent.
     */
    void mergeBuildParts() {
        buildParts.merge();
    }

    /**
     * Gives each of {@code workers} probe workers a probe sample of its own, as {@link #splitBuild} does for the build
     * ({@code spare}: the memory free beyond what the probe pass's workers need). Call before the first probe row.
     */
    void splitProbe(int workers, long spare) {
        probeParts.split(workers, spare);
    }

    /**
     * The probe sample worker {@code worker} feeds: its own (no lock needed), or {@link #probe} shared (then under
     * its lock).
     */
    KeySketches probePart(int worker) {
        return probeParts.part(worker);
    }

    /** Merges the probe workers' samples into {@link #probe} (every probe worker stopped); idempotent. */
    void mergeProbeParts() {
        probeParts.merge();
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
