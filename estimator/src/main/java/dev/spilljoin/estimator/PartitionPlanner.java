package dev.spilljoin.estimator;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Chooses, from what is known of the build input before or while it streams in, how a hybrid hash join partitions
 * it: the fanout of each pass, which partitions stay resident, and which heavy keys bypass the partitions for the
 * nested-loop path. The aim: most inputs finish in one partitioning pass, no partition is expected to overflow, and
 * the partition buffers never crowd out the resident partitions. Stateless and thread-safe.
 *
 * <p>It is the join's one model of these decisions (the operator's {@code SpillSizing} asks it and adds only the
 * memory layout): the level-0 fanout before the first row, from the input as {@link #projectWholeInput} expects it
 * (a statistics-cache hit, else the size hints, else the unknown-size assumption); the keys sent to the nested loop,
 * before the first row from cached heavy keys and every few batches from the keys sketched so far, projected to the
 * whole input; and the fanout of each re-partitioning pass, from the spilled partition's actual rows and bytes
 * ({@link #planRepartition}). The join gives its real costs: O is what one spilled partition's writer reserves (its
 * buffer and mapped window), F the hash table's directory bytes per row, and bytes are in its row format.
 *
 * <p>Arithmetic, with B the budget (the join's budget less what it reserved for sketches and the like), O
 * {@link PlannerConfig#partitionBufferBytes()}, F {@link PlannerConfig#tableBytesPerRow()}, f
 * {@link PlannerConfig#partitionFill()} and s {@link PlannerConfig#bufferShare()}:
 * <ul>
 *   <li>footprint(rows, bytes) = bytes + F × rows: what rows take in memory as a hash table; M = the input's
 *       footprint less the footprints of the keys routed to the nested loop.</li>
 *   <li>Fits: when the whole input's footprint ≤ B − x·O (x = 1 at levels ≥ 1 for the buffer reading the partition
 *       being split, else 0), every partition stays resident and the fanout is the smallest allowed (partitioning then
 *       only prepares for a spill the estimate did not foresee). Nothing is routed to the nested loop.</li>
 *   <li>Capacity: in the pair pass one spilled partition is built while its own and its probe partner's read
 *       buffers are held, so a partition may take C = f × (B − 2·O).</li>
 *   <li>Fanout: P = 2^p with p = ceil(log2(ceil(M / C))), raised to 2^minFanoutLog2 and lowered to 2^maxFanoutLog2
 *       and to the largest power of two with (P + x)·O ≤ s·B, where x counts the extra buffers (the heavy-key stream
 *       when keys are routed, the read buffer at levels ≥ 1). The buffer bound wins over the minimum fanout: a small
 *       budget gets fewer partitions, never more buffers than it can hold. With D the distinct keys left (unknown
 *       when the statistics say 0), only min(P, D) partitions receive rows, so the expected footprint of a partition
 *       is S = ceil(M / min(P, D)).</li>
 *   <li>Heavy keys: a key with footprint h is routed to the nested loop when h + S > C (its partition would overflow
 *       with an average share of the other keys; with h > C it overflows alone). Routing shrinks M and may change P,
 *       so the rule is applied again until no further key is routed (at most one round per candidate). A key that
 *       stays is expected to fit beside its partition's share.</li>
 *   <li>Resident partitions: the largest R in 0..P with R·S + (P − R + x)·O ≤ B (partitions 0..R−1 stay, each other
 *       partition holds a buffer). R = 0 when even partition 0 does not fit beside the buffers.</li>
 *   <li>Recursion: while an expected partition footprint S exceeds C and its d = ceil(D / P) keys can still be split
 *       (d > 1), a further level with fanout P' chosen as above (x = 1) is listed, S becomes ceil(S / min(P', d)) and
 *       d becomes ceil(d / P'); so {@link PartitionPlan#fanoutLog2PerLevel()} has one entry when one pass is expected
 *       to do. If S still exceeds C when no split is left, {@link PartitionPlan#overflowExpected()} says so: the keys
 *       are too few and too heavy, and only the nested-loop path can take them. The list stops at 16 passes (a
 *       fanout of 2 splitting 2^16 times over: a budget hopelessly small for the input), overflow expected too.</li>
 * </ul>
 *
 * <p>Invariants of every plan: fanout × O + the extra buffers ≤ s·B; the resident partitions and the buffers of the
 * others fit B (in expectation); no kept heavy key is expected to overflow its partition. The minimum budget
 * {@link #minimumBudget()} = ceil(4·O / s) guarantees a fanout of at least 2 with both extra buffers.
 */
public final class PartitionPlanner {
    /** More planned levels than this would mean a fanout of 2 splitting a partition 2^16 times its capacity. */
    private static final int MAX_PLANNED_LEVELS = 16;

    private final PlannerConfig config;

    public PartitionPlanner(PlannerConfig config) {
        this.config = config;
    }

    public PlannerConfig config() {
        return config;
    }

    /** The smallest budget the planner accepts: a fanout of 2 plus two extra buffers within the buffer share. */
    public long minimumBudget() {
        return (long) Math.ceil(4.0 * config.partitionBufferBytes() / config.bufferShare());
    }

    /** Rows as a hash table: their bytes plus the table's bytes per row. */
    public long footprint(long rows, long bytes) {
        return bytes + config.tableBytesPerRow() * rows;
    }

    /** The footprint one partition may have and still be joined in memory in the pair pass. */
    public long partitionCapacity(long budget) {
        checkBudget(budget);
        return (long) (config.partitionFill() * (budget - 2 * config.partitionBufferBytes()));
    }

    /**
     * The whole build input as plans see it, from what was known before its first row ({@code expected}: size hints
     * or a statistics-cache hit; null when nothing is known) and what was measured of the rows read so far
     * ({@code soFar}: rows, bytes, distinct keys and heavy keys sketched; zero rows before the first):
     * <ul>
     *   <li>rows: the larger of the two; with nothing known, the largest input the smallest fanout takes in one pass
     *       ({@link #unknownInputFootprint}) at the average row size below, or the rows so far if more.</li>
     *   <li>bytes: rows × the average row bytes so far ({@code expected}'s before the first row, else
     *       {@code rowBytesGuess}, the smallest row the join can write).</li>
     *   <li>distinct keys: the larger of the two (0 = unknown).</li>
     *   <li>heavy keys: those sketched so far, scaled to the whole input (their frequencies assumed to hold on);
     *       before the first row, {@code expected}'s.</li>
     * </ul>
     */
    public InputStatistics projectWholeInput(InputStatistics expected, InputStatistics soFar, long rowBytesGuess,
            long budget) {
        double rowBytes = soFar.rows() > 0 ? (double) soFar.bytes() / soFar.rows()
                : expected != null && expected.rows() > 0 ? (double) expected.bytes() / expected.rows()
                : Math.max(1, rowBytesGuess);
        long rows = expected != null ? expected.rows()
                : (long) (unknownInputFootprint(budget) / (rowBytes + config.tableBytesPerRow()));
        rows = Math.max(rows, soFar.rows());
        long distinct = Math.max(soFar.distinctKeys(), expected == null ? 0 : expected.distinctKeys());
        HeavyHitters heavy = soFar.rows() > 0 ? soFar.heavyHitters().scaled((double) rows / soFar.rows())
                : expected == null ? HeavyHitters.none() : expected.heavyHitters();
        return new InputStatistics(rows, (long) Math.ceil(rows * rowBytes), distinct, heavy);
    }

    /**
     * The footprint an input of unknown size is planned with: the largest the smallest fanout takes in one pass,
     * 2^minFanoutLog2 × {@link #partitionCapacity}. So it gets the smallest fanout, and a key is routed to the nested
     * loop when it would overflow its partition in such an input (when it holds more than about a partition's fair
     * share of the rows).
     */
    public long unknownInputFootprint(long budget) {
        return (1L << config.minFanoutLog2()) * partitionCapacity(budget);
    }

    /** The plan of the first partitioning pass (level 0) over a build input described by {@code build}. */
    public PartitionPlan plan(InputStatistics build, long budget) {
        return planLevel(0, build, budget);
    }

    /**
     * The plan for re-partitioning a spilled partition that did not fit: the pass at {@code level} (≥ 1), from the
     * partition's actual rows and bytes and what is known of its keys (distinct keys 0 = unknown; heavy keys found in
     * it, if it was sketched).
     */
    public PartitionPlan planRepartition(int level, InputStatistics partition, long budget) {
        if (level < 1) {
            throw new IllegalArgumentException("a re-partitioning pass has level >= 1, got " + level);
        }
        return planLevel(level, partition, budget);
    }

    private PartitionPlan planLevel(int level, InputStatistics input, long budget) {
        checkBudget(budget);
        long rows = input.rows();
        long bytes = input.bytes();
        HeavyHitters heavy = input.heavyHitters();
        long buffer = config.partitionBufferBytes();
        int readBuffers = level == 0 ? 0 : 1;
        long total = footprint(rows, bytes);
        if (total <= budget - readBuffers * buffer) {
            int log2 = Math.min(config.minFanoutLog2(), maxFanoutLog2ByBuffers(budget, readBuffers));
            int fanout = 1 << log2;
            return new PartitionPlan(level, List.of(log2), fanout, ceilDiv(rows, fanout), ceilDiv(bytes, fanout),
                    ceilDiv(total, fanout), partitionCapacity(budget), false, HeavyHitters.none(), 0);
        }

        long capacity = partitionCapacity(budget);
        boolean distinctKnown = input.distinctKeys() > 0;
        boolean[] routed = new boolean[heavy.size()];
        int log2;
        long restRows;
        long restBytes;
        long restKeys;
        long spread;
        int extraBuffers;
        boolean changed;
        do {
            long routedRows = 0;
            long routedBytes = 0;
            int routedKeys = 0;
            for (int i = 0; i < routed.length; i++) {
                if (routed[i]) {
                    routedRows += heavy.estimatedRows(i);
                    routedBytes += heavy.estimatedBytes(i);
                    routedKeys++;
                }
            }
            restRows = Math.max(0, rows - routedRows);
            restBytes = Math.max(0, bytes - routedBytes);
            restKeys = distinctKnown ? Math.max(1, input.distinctKeys() - routedKeys) : Long.MAX_VALUE;
            extraBuffers = readBuffers + (routedKeys > 0 ? 1 : 0);
            log2 = fanoutLog2(footprint(restRows, restBytes), capacity, budget, extraBuffers);
            spread = Math.min(1L << log2, restKeys);
            long share = ceilDiv(footprint(restRows, restBytes), spread);
            changed = false;
            for (int i = 0; i < routed.length; i++) {
                if (!routed[i] && footprint(heavy.estimatedRows(i), heavy.estimatedBytes(i)) + share > capacity) {
                    routed[i] = true;
                    changed = true;
                }
            }
        } while (changed);

        int fanout = 1 << log2;
        long partitionFootprint = ceilDiv(footprint(restRows, restBytes), spread);
        int resident = residentPartitions(fanout, partitionFootprint, extraBuffers, budget);
        List<Integer> levels = new ArrayList<>();
        levels.add(log2);
        long size = partitionFootprint;
        long keys = ceilDiv(restKeys, fanout);
        while (size > capacity && keys > 1 && levels.size() < MAX_PLANNED_LEVELS) {
            int next = fanoutLog2(size, capacity, budget, 1);
            levels.add(next);
            size = ceilDiv(size, Math.min(1L << next, keys));
            keys = ceilDiv(keys, 1L << next);
        }
        int[] routedIndices = IntStream.range(0, routed.length).filter(i -> routed[i]).toArray();
        return new PartitionPlan(level, levels, resident, ceilDiv(restRows, spread), ceilDiv(restBytes, spread),
                partitionFootprint, capacity, size > capacity, heavy.subset(routedIndices),
                (long) (fanout - resident + extraBuffers) * buffer);
    }

    /** p = ceil(log2(ceil(M / C))) within the configured bounds and the buffer bound (see the class comment). */
    private int fanoutLog2(long footprint, long capacity, long budget, int extraBuffers) {
        long needed = Math.max(1, ceilDiv(footprint, capacity));
        int log2 = 64 - Long.numberOfLeadingZeros(needed - 1);
        log2 = Math.max(log2, config.minFanoutLog2());
        log2 = Math.min(log2, config.maxFanoutLog2());
        return Math.min(log2, maxFanoutLog2ByBuffers(budget, extraBuffers));
    }

    /** The largest p with (2^p + extraBuffers)·O ≤ s·B; at least 1 for budgets ≥ the minimum. */
    private int maxFanoutLog2ByBuffers(long budget, int extraBuffers) {
        long buffers = (long) (config.bufferShare() * budget) / config.partitionBufferBytes() - extraBuffers;
        return 63 - Long.numberOfLeadingZeros(buffers);
    }

    /** The largest R in 0..P with R·S + (P − R + x)·O ≤ B. */
    private int residentPartitions(int fanout, long partitionFootprint, int extraBuffers, long budget) {
        long buffer = config.partitionBufferBytes();
        for (int r = fanout; r > 0; r--) {
            if (r * partitionFootprint + (fanout - r + extraBuffers) * buffer <= budget) {
                return r;
            }
        }
        return 0;
    }

    private void checkBudget(long budget) {
        long minimum = minimumBudget();
        if (budget < minimum) {
            throw new IllegalArgumentException("memory budget of " + budget + " bytes is below the join's minimum of "
                    + minimum + " bytes (two partitions, a heavy-key stream and a read buffer of "
                    + config.partitionBufferBytes() + " bytes each, within " + Math.round(100 * config.bufferShare())
                    + " % of the budget); raise the budget or use smaller partition buffers");
        }
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
