package dev.spilljoin.operator;

import dev.spilljoin.estimator.EstimatesVsActuals;
import dev.spilljoin.operator.table.BuildKeyFilter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a join did, for EXPLAIN ANALYZE-style reporting: the build side chosen, rows in and out, the memory plan
 * (fanout planned and used per level, resident partitions planned and kept, spill buffer and read window sizes), what
 * spilled (partitions per level, bytes per side), the recursion depth
 * reached, the nested-loop path (heavy-hitter keys and rows), the peak memory reserved and the time per phase.
 * Rendered as JSON by {@link #toJson()} with the CLI's field names (snake case).
 *
 * <p>A report, not live state: no phase writes it and no loop reads it. Each phase counts in its own plain fields
 * and the join folds them in here when the phase ends ({@link #recordPlan}, {@link #recordBuild},
 * {@link #recordProbe}, {@link #recordPairs}) and its own totals whenever the stats are asked for
 * ({@link #recordRun}). Every method holds this object's lock, so it may be read from any thread while the join runs
 * ({@link #toJson()} as one consistent document): what the phases folded in so far, the running phase not yet
 * ({@link HashJoin#spillProgress()} is the live reading of the spill).
 */
public final class JoinStats {
    private Side buildSide;
    private String joinType;
    private long leftRows;
    private long rightRows;
    private long buildRowsStored;
    private long outputRows;
    private long outputBatches;
    private long rowBytes;
    private long tableBuckets;
    private long tableBytes;
    /** Tables that held build rows and were direct-index tables (level 0's and the spilled pairs'). */
    private long directTables;
    private long directTablesStrided;
    /** Tables that held build rows and were hash tables (level 0's, the spilled pairs', the nested-loop chunks'). */
    private long hashTables;
    private long peakReservedBytes;
    private long budgetBytes;
    private int fanout;
    private int spillBufferBytes;
    private int spillWindowBytes;
    private int residentPartitions;
    private int readmittedPartitions;
    private long readmittedBuildRows;
    private List<Integer> plannedFanoutLog2PerLevel = List.of();
    private int plannedResidentPartitions;
    private final List<Integer> fanoutPerLevel = new ArrayList<>();
    private long spilledBytesBuild;
    private long spilledBytesProbe;
    private final List<Long> partitionsPerLevel = new ArrayList<>();
    private int maxRecursionDepth;
    private long heavyHitterKeys;
    private long heavyHitterRows;
    private long nestedLoopChunks;
    private long roleReversals;
    private long heavyHitterKeysFromSketch;
    private long heavyHitterKeysFromCache;
    private long heavyHitterKeysFromDuplicates;
    private long statisticsCacheHits;
    private long statisticsCacheMisses;
    private long heavyHitterRowsFromSketch;
    private long heavyHitterKeysFromRepartitioning;
    private long sharedPairBlocks;
    private long spillWorkerBuffers;
    private long spillWorkerBuffersRefused;
    private String sketchNote = "off";
    private long sketchBytes;
    private String keyFilterNote = "off";
    private long keyFilterBytes;
    private long probeRowsFilterChecked;
    private long probeRowsExcludedByRange;
    private long probeRowsExcludedByBloom;
    private long probeSampleRows;
    private long probeSampleDistinctKeys;
    private EstimatesVsActuals estimates;
    private long buildNanos;
    private long probeNanos;
    private long spilledPairsNanos;
    private long buildCpuNanos;
    private long probeCpuNanos;
    private long spilledPairsCpuNanos;
    private int threads = 1;
    private int buildThreads = 1;
    private int probeThreads = 1;
    private int finishThreads = 1;
    private int spilledPairsThreads = 1;

    public synchronized Side buildSide() {
        return buildSide;
    }

    public synchronized long rows(Side side) {
        return side == Side.LEFT ? leftRows : rightRows;
    }

    /** Build rows held in memory at the end of the build pass (resident partitions). */
    public synchronized long buildRowsStored() {
        return buildRowsStored;
    }

    public synchronized long outputRows() {
        return outputRows;
    }

    public synchronized long outputBatches() {
        return outputBatches;
    }

    /** Bytes reserved for the resident build rows (whole pages). */
    public synchronized long rowBytes() {
        return rowBytes;
    }

    public synchronized long tableBuckets() {
        return tableBuckets;
    }

    /**
     * Which tables held the join's build rows: "direct" (direct-index tables only), "hash" (hash tables only),
     * "mixed", or "none" (no build row was held in a table).
     */
    public synchronized String tableKind() {
        return directTables == 0 ? (hashTables == 0 ? "none" : "hash") : hashTables == 0 ? "direct" : "mixed";
    }

    /** Direct-index tables built: level 0's (when it held rows) and the spilled pairs'. */
    public synchronized long directTables() {
        return directTables;
    }

    /**
     * Of the {@link #directTables}, those indexed by a key stride above 1 (keys all a multiple of some step apart:
     * timestamps at day precision, ids in steps), whose table spans {@code (max - min) / stride + 1} values.
     */
    public synchronized long directTablesStrided() {
        return directTablesStrided;
    }

    /** Hash tables that held build rows: level 0's, the spilled pairs' and the nested-loop chunks'. */
    public synchronized long hashTables() {
        return hashTables;
    }

    public synchronized long tableBytes() {
        return tableBytes;
    }

    /**
     * The resident table's bytes per build row it holds ({@link #tableBytes()} over {@link #buildRowsStored()}: the
     * hash table's directory and compact rows, or the direct-index table's bitmaps and payload columns), NaN when no
     * build row stayed resident.
     */
    public synchronized double tableBytesPerRow() {
        return buildRowsStored == 0 ? Double.NaN : (double) tableBytes / buildRowsStored;
    }

    public synchronized long peakReservedBytes() {
        return peakReservedBytes;
    }

    /** The build phase's time (reading the build side, partitioning, spilling), in nanoseconds. */
    public synchronized long buildNanos() {
        return buildNanos;
    }

    /**
     * The probe phase's time (reading the probe side, probing, spilling, the finish scan), in nanoseconds: wall time
     * spent inside the join's calls. Pulled ({@link HashJoin#iterator}), the time the caller holds a result batch
     * between calls is not the join's: where the consumer is the slower stage (the CLI writing CSV), the phase lasts
     * longer than this.
     */
    public synchronized long probeNanos() {
        return probeNanos;
    }

    /** The spilled-pairs phase's time (every pair, re-partitioning and the nested loop included), in nanoseconds. */
    public synchronized long spilledPairsNanos() {
        return spilledPairsNanos;
    }

    /**
     * CPU time of every thread that worked on the build phase, in nanoseconds (pulled, the calling thread's share is
     * its CPU time from the start of the phase to its end, so it includes what the caller did between calls).
     */
    public synchronized long buildCpuNanos() {
        return buildCpuNanos;
    }

    /** CPU time of every thread that worked on the probe phase (the finish scan included), in nanoseconds. */
    public synchronized long probeCpuNanos() {
        return probeCpuNanos;
    }

    /** CPU time of every thread that worked on the spilled-pairs phase, in nanoseconds. */
    public synchronized long spilledPairsCpuNanos() {
        return spilledPairsCpuNanos;
    }

    /** The workers the join was configured with ({@link JoinConfig#threads()}). */
    public synchronized int threads() {
        return threads;
    }

    /** The most workers that ran at once in any phase (fewer than {@link #threads()} when the budget held fewer). */
    public synchronized int threadsUsed() {
        return Math.max(Math.max(buildThreads, probeThreads), Math.max(finishThreads, spilledPairsThreads));
    }

    /** The build pass's workers. */
    public synchronized int buildThreads() {
        return buildThreads;
    }

    /** The probe pass's workers. */
    public synchronized int probeThreads() {
        return probeThreads;
    }

    /**
     * The FINISH scan's workers (over the resident table, after the probe pass): up to {@link #threads()}, no more
     * than the scan has ranges; 1 when the join type's finish emits no build row.
     */
    public synchronized int finishThreads() {
        return finishThreads;
    }

    /** The spilled-pairs phase's workers (1 when nothing spilled). */
    public synchronized int spilledPairsThreads() {
        return spilledPairsThreads;
    }

    public synchronized long budgetBytes() {
        return budgetBytes;
    }

    /** Partitions of level 0. */
    public synchronized int fanout() {
        return fanout;
    }

    /** Level-0 partitions that stayed in memory through the probe pass. */
    public synchronized int residentPartitions() {
        return residentPartitions;
    }

    /**
     * Level-0 partitions that spilled during the build pass but whose rows went into the resident direct-index table
     * after all, read back from their files: the table over every build row fits where the rows did not.
     */
    public synchronized int readmittedPartitions() {
        return readmittedPartitions;
    }

    /** The build rows of the readmitted partitions. */
    public synchronized long readmittedBuildRows() {
        return readmittedBuildRows;
    }

    /**
     * The fanout the partition planner planned for level 0 and for each further level it expected a spilled
     * partition to need (one entry when one partitioning pass was expected).
     */
    public synchronized List<Integer> plannedFanoutPerLevel() {
        return plannedFanoutLog2PerLevel.stream().map(log2 -> 1 << log2).toList();
    }

    /** Level-0 partitions the planner expected to stay resident (all of them when it expected the input to fit). */
    public synchronized int plannedResidentPartitions() {
        return plannedResidentPartitions;
    }

    /** The fanout used at each level (index = level; the largest re-partitioning fanout at levels below 0). */
    public synchronized List<Integer> fanoutPerLevel() {
        return List.copyOf(fanoutPerLevel);
    }

    /** Spilled partitions created, all levels (level 0's spilled partitions and every re-partitioned child). */
    public synchronized long partitions() {
        long sum = 0;
        for (long p : partitionsPerLevel) {
            sum += p;
        }
        return sum;
    }

    /** Spilled partitions created at each level (index = level). */
    public synchronized List<Long> partitionsPerLevel() {
        return List.copyOf(partitionsPerLevel);
    }

    /** The deepest re-partitioning level reached (0 when no spilled pair was re-partitioned). */
    public synchronized int maxRecursionDepth() {
        return maxRecursionDepth;
    }

    /** Bytes written to spill files for build rows, as on disk, all levels. */
    public synchronized long spilledBytesBuild() {
        return spilledBytesBuild;
    }

    /** Bytes written to spill files for probe rows, as on disk, all levels (nested-loop rewrites included). */
    public synchronized long spilledBytesProbe() {
        return spilledBytesProbe;
    }

    /** Keys found hot (at least a tenth of their pair's build rows) in pairs that took the nested-loop path. */
    public synchronized long heavyHitterKeys() {
        return heavyHitterKeys;
    }

    /** Build and probe rows of the pairs that took the nested-loop path. */
    public synchronized long heavyHitterRows() {
        return heavyHitterRows;
    }

    /** Spilled pairs joined with their sides' roles reversed (the probe file was the smaller). */
    public synchronized long roleReversals() {
        return roleReversals;
    }

    public synchronized long nestedLoopChunks() {
        return nestedLoopChunks;
    }

    /** Heavy keys the build's sketch found while partitioning and routed to their own pair (no re-partitioning). */
    public synchronized long heavyHitterKeysFromSketch() {
        return heavyHitterKeysFromSketch;
    }

    /** Heavy keys known from the statistics cache and routed to the heavy pair from the first row. */
    public synchronized long heavyHitterKeysFromCache() {
        return heavyHitterKeysFromCache;
    }

    /**
     * Heavy keys routed to their own pair because the resident direct-index table met them more than once (the
     * table is then kept for the other keys instead of the hash table).
     */
    public synchronized long heavyHitterKeysFromDuplicates() {
        return heavyHitterKeysFromDuplicates;
    }

    /** Inputs whose statistics this join found in its statistics cache. */
    public synchronized long statisticsCacheHits() {
        return statisticsCacheHits;
    }

    public synchronized long statisticsCacheMisses() {
        return statisticsCacheMisses;
    }

    /** Build rows routed to the heavy pair (keys from the sketch or the cache). */
    public synchronized long heavyHitterRowsFromSketch() {
        return heavyHitterRowsFromSketch;
    }

    /** Heavy keys found on the nested-loop path of pairs other than the sketch's heavy pair (after re-partitioning). */
    public synchronized long heavyHitterKeysFromRepartitioning() {
        return heavyHitterKeysFromRepartitioning;
    }

    /**
     * Probe blocks of spilled pairs joined by a worker other than the pair's own, which joined in when it found no
     * pair left to take (0 on one worker).
     */
    public synchronized long sharedPairBlocks() {
        return sharedPairBlocks;
    }

    /**
     * Spill write buffers the workers of the build and probe passes took of their own (a worker's side writer of a
     * spilled partition's file, its buffer in the partition writer's share); 0 on one worker.
     */
    public synchronized long spillWorkerBuffers() {
        return spillWorkerBuffers;
    }

    /** Times a worker found a spilled partition's writer share too full for a buffer of its own, and shared it. */
    public synchronized long spillWorkerBuffersRefused() {
        return spillWorkerBuffersRefused;
    }

    /** "on", or why the join ran without sketches. */
    public synchronized String sketchNote() {
        return sketchNote;
    }

    /** Bytes reserved for the key sketches (0 without them). */
    public synchronized long sketchBytes() {
        return sketchBytes;
    }

    /** "on", or why the join ran without its build-key filter ({@link BuildKeyFilter}). */
    public synchronized String keyFilterNote() {
        return keyFilterNote;
    }

    /** Bytes reserved for the build-key Bloom filter (0 without it). */
    public synchronized long keyFilterBytes() {
        return keyFilterBytes;
    }

    /** Probe rows checked against the build-key filter (until it switched itself off, if it did). */
    public synchronized long probeRowsFilterChecked() {
        return probeRowsFilterChecked;
    }

    /** Probe rows joined as misses at once (no table lookup, no spill) because their key lies outside the build keys' min/max range. */
    public synchronized long probeRowsExcludedByRange() {
        return probeRowsExcludedByRange;
    }

    /** Probe rows joined as misses at once (no table lookup, no spill) because the build keys' Bloom filter ruled their key out. */
    public synchronized long probeRowsExcludedByBloom() {
        return probeRowsExcludedByBloom;
    }

    /** The build side's estimates beside its actuals, or null without sketches. */
    public synchronized EstimatesVsActuals estimates() {
        return estimates;
    }

    /** Spill buffer bytes per partition writer (for tests that re-plan). */
    synchronized int spillBufferBytes() {
        return spillBufferBytes;
    }

    /** The spill readers' smallest mapped window. */
    synchronized int spillWindowBytes() {
        return spillWindowBytes;
    }

    /** The join's type and budget, known at its creation. */
    synchronized void recordStart(String type, long budget) {
        this.joinType = type;
        this.budgetBytes = budget;
    }

    /**
     * The plan made before the first row: the build side, the statistics-cache lookups, the sketches and the key
     * filter (on, or why not, and their bytes) and the memory layout with the planner's level-0 plan.
     */
    synchronized void recordPlan(Side side, long cacheHits, long cacheMisses, Reserved<JoinSketches> sketches,
                    Reserved<BuildKeyFilter> keyFilter, SpillSizing sizing) {
        this.buildSide = side;
        this.statisticsCacheHits = cacheHits;
        this.statisticsCacheMisses = cacheMisses;
        this.sketchNote = sketches.note();
        this.sketchBytes = sketches.bytes();
        this.keyFilterNote = keyFilter.note();
        this.keyFilterBytes = keyFilter.bytes();
        this.spillBufferBytes = sizing.bufferBytes();
        this.spillWindowBytes = sizing.windowBytes();
        this.fanout = sizing.fanout();
        this.plannedFanoutLog2PerLevel = sizing.plan().fanoutLog2PerLevel();
        this.plannedResidentPartitions = sizing.plan().residentPartitions();
    }

    /** The build pass's report (level 0). */
    synchronized void recordBuild(BuildReport r) {
        if (buildSide == Side.LEFT) {
            leftRows = r.rows();
        } else {
            rightRows = r.rows();
        }
        heavyHitterRowsFromSketch = r.heavyRowsFromSketch();
        heavyHitterKeysFromSketch = r.heavyKeysFromSketch();
        heavyHitterKeysFromCache = r.heavyKeysFromCache();
        heavyHitterKeysFromDuplicates = r.heavyKeysFromDuplicates();
        spilledBytesBuild += r.spilledBytes();
        spillWorkerBuffers += r.workerSpillBuffers();
        spillWorkerBuffersRefused += r.workerSpillBuffersRefused();
        PairCounters.addAt(partitionsPerLevel, 0, r.spilledPartitions());
        residentPartitions = r.residentPartitions();
        readmittedPartitions = r.readmittedPartitions();
        readmittedBuildRows = r.readmittedRows();
        fanout = r.fanout();
        PairCounters.maxAt(fanoutPerLevel, 0, r.fanout());
        buildRowsStored = r.residentRows();
        rowBytes = r.residentBytes();
        tableBuckets = r.tableBuckets();
        tableBytes = r.tableBytes();
        if (r.residentRows() > 0) {
            if (r.tableKind().equals("direct")) {
                directTables++;
                directTablesStrided += r.tableKeyStride() > 1 ? 1 : 0;
            } else {
                hashTables++;
            }
        }
    }

    /** The probe pass's report (level 0). */
    synchronized void recordProbe(ProbeReport r) {
        if (buildSide == Side.LEFT) {
            rightRows = r.rows();
        } else {
            leftRows = r.rows();
        }
        spilledBytesProbe += r.spilledBytes();
        spillWorkerBuffers += r.workerSpillBuffers();
        spillWorkerBuffersRefused += r.workerSpillBuffersRefused();
        probeRowsFilterChecked = r.filterChecked();
        probeRowsExcludedByRange = r.excludedByRange();
        probeRowsExcludedByBloom = r.excludedByBloom();
        estimates = r.estimates();
        probeSampleRows = r.sampleRows();
        probeSampleDistinctKeys = r.sampleDistinctKeys();
    }

    /** The spilled-pairs phase's counters (every level below 0); fold once, when the phase ends. */
    synchronized void recordPairs(PairCounters c) {
        spilledBytesBuild += c.spilledBytesBuild;
        spilledBytesProbe += c.spilledBytesProbe;
        for (int level = 0; level < c.partitionsPerLevel.size(); level++) {
            PairCounters.addAt(partitionsPerLevel, level, c.partitionsPerLevel.get(level));
        }
        for (int level = 0; level < c.fanoutPerLevel.size(); level++) {
            PairCounters.maxAt(fanoutPerLevel, level, c.fanoutPerLevel.get(level));
        }
        maxRecursionDepth = Math.max(maxRecursionDepth, c.maxRecursionDepth);
        heavyHitterKeys += c.heavyHitterKeys;
        heavyHitterRows += c.heavyHitterRows;
        nestedLoopChunks += c.nestedLoopChunks;
        roleReversals += c.roleReversals;
        directTables += c.directTables;
        directTablesStrided += c.directTablesStrided;
        hashTables += c.hashTables + c.nestedLoopChunks;
        heavyHitterKeysFromRepartitioning += c.heavyHitterKeysFromRepartitioning;
        sharedPairBlocks += c.sharedPairBlocks;
    }

    /** The join's own running totals: result rows and batches, the time per phase and the peak reserved. */
    synchronized void recordRun(long rowsOut, long batchesOut, PhaseTimes times, long peakReserved) {
        this.outputRows = rowsOut;
        this.outputBatches = batchesOut;
        this.buildNanos = times.build.wallNanos();
        this.probeNanos = times.probe.wallNanos();
        this.spilledPairsNanos = times.pairs.wallNanos();
        this.buildCpuNanos = times.build.cpuNanos();
        this.probeCpuNanos = times.probe.cpuNanos();
        this.spilledPairsCpuNanos = times.pairs.cpuNanos();
        this.peakReservedBytes = peakReserved;
    }

    /**
     * The workers configured, and those the build pass, the probe pass, the FINISH scan and the spilled-pairs phase
     * ran with.
     */
    synchronized void recordThreads(int configured, int build, int probe, int finish, int pairs) {
        this.threads = configured;
        this.buildThreads = build;
        this.probeThreads = probe;
        this.finishThreads = finish;
        this.spilledPairsThreads = pairs;
    }

    /** The time of the build, probe and spilled-pairs phases together, in nanoseconds. */
    synchronized long phaseNanos() {
        return buildNanos + probeNanos + spilledPairsNanos;
    }

    public synchronized String toJson() {
        return "{\"join_type\":\"" + joinType + "\""
                + ",\"build_side\":" + (buildSide == null ? "null" : "\"" + buildSide.name().toLowerCase(Locale.ROOT) + "\"")
                + ",\"budget_bytes\":" + budgetBytes
                + ",\"peak_reserved_bytes\":" + peakReservedBytes
                + ",\"rows_left\":" + leftRows
                + ",\"rows_right\":" + rightRows
                + ",\"rows_out\":" + outputRows
                + ",\"output_batches\":" + outputBatches
                + ",\"fanout\":" + fanout
                + ",\"spill_buffer_bytes\":" + spillBufferBytes
                + ",\"spill_window_bytes\":" + spillWindowBytes
                + ",\"planned_fanout_per_level\":" + jsonArray(plannedFanoutPerLevel())
                + ",\"fanout_per_level\":" + jsonArray(fanoutPerLevel)
                + ",\"resident_partitions\":" + residentPartitions
                + ",\"planned_resident_partitions\":" + plannedResidentPartitions
                + ",\"readmitted_partitions\":" + readmittedPartitions
                + ",\"readmitted_build_rows\":" + readmittedBuildRows
                + ",\"resident_build_rows\":" + buildRowsStored
                + ",\"resident_row_bytes\":" + rowBytes
                + ",\"table_kind\":\"" + tableKind() + "\""
                + ",\"direct_tables\":" + directTables
                + ",\"direct_tables_strided\":" + directTablesStrided
                + ",\"hash_tables\":" + hashTables
                + ",\"table_buckets\":" + tableBuckets
                + ",\"table_bytes\":" + tableBytes
                + ",\"table_bytes_per_row\":" + (buildRowsStored == 0 ? "null"
                        : String.format(Locale.ROOT, "%.2f", tableBytesPerRow()))
                + ",\"spilled_bytes_build\":" + spilledBytesBuild
                + ",\"spilled_bytes_probe\":" + spilledBytesProbe
                + ",\"partitions\":" + partitions()
                + ",\"partitions_per_level\":" + jsonArray(partitionsPerLevel)
                + ",\"max_recursion_depth\":" + maxRecursionDepth
                + ",\"heavy_hitter_keys\":" + heavyHitterKeys
                + ",\"heavy_hitter_rows\":" + heavyHitterRows
                + ",\"nested_loop_chunks\":" + nestedLoopChunks
                + ",\"role_reversals\":" + roleReversals
                + ",\"heavy_hitter_keys_from_sketch\":" + heavyHitterKeysFromSketch
                + ",\"heavy_hitter_keys_from_cache\":" + heavyHitterKeysFromCache
                + ",\"heavy_hitter_keys_from_duplicates\":" + heavyHitterKeysFromDuplicates
                + ",\"heavy_hitter_rows_from_sketch\":" + heavyHitterRowsFromSketch
                + ",\"statistics_cache_hits\":" + statisticsCacheHits
                + ",\"statistics_cache_misses\":" + statisticsCacheMisses
                + ",\"heavy_hitter_keys_from_repartitioning\":" + heavyHitterKeysFromRepartitioning
                + ",\"shared_pair_blocks\":" + sharedPairBlocks
                + ",\"spill_worker_buffers\":" + spillWorkerBuffers
                + ",\"spill_worker_buffers_refused\":" + spillWorkerBuffersRefused
                + ",\"sketches\":\"" + sketchNote.replace("\"", "'") + "\""
                + ",\"sketch_bytes\":" + sketchBytes
                + ",\"key_filter\":\"" + keyFilterNote.replace("\"", "'") + "\""
                + ",\"key_filter_bytes\":" + keyFilterBytes
                + ",\"probe_rows_filter_checked\":" + probeRowsFilterChecked
                + ",\"probe_rows_excluded_by_range\":" + probeRowsExcludedByRange
                + ",\"probe_rows_excluded_by_bloom\":" + probeRowsExcludedByBloom
                + ",\"probe_sample_rows\":" + probeSampleRows
                + ",\"probe_sample_distinct_keys\":" + probeSampleDistinctKeys
                + ",\"estimates\":" + (estimates == null ? "null" : estimates.toJson())
                + ",\"build_ms\":" + nanosToMillis(buildNanos)
                + ",\"probe_ms\":" + nanosToMillis(probeNanos)
                + ",\"spilled_pairs_ms\":" + nanosToMillis(spilledPairsNanos)
                + ",\"build_cpu_ms\":" + nanosToMillis(buildCpuNanos)
                + ",\"probe_cpu_ms\":" + nanosToMillis(probeCpuNanos)
                + ",\"spilled_pairs_cpu_ms\":" + nanosToMillis(spilledPairsCpuNanos)
                + ",\"threads\":" + threads
                + ",\"threads_used\":" + threadsUsed()
                + ",\"build_threads\":" + buildThreads
                + ",\"probe_threads\":" + probeThreads
                + ",\"finish_threads\":" + finishThreads
                + ",\"spilled_pairs_threads\":" + spilledPairsThreads
                + "}";
    }

    private static String jsonArray(List<? extends Number> values) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            json.append(i == 0 ? "" : ",").append(values.get(i));
        }
        return json.append(']').toString();
    }

    private static long nanosToMillis(long nanos) {
        return nanos / 1_000_000;
    }

    @Override
    public synchronized String toString() {
        return toJson();
    }
}
