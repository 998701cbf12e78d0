package dev.spilljoin.operator;

import dev.spilljoin.estimator.HeavyHitters;
import dev.spilljoin.estimator.InputStatistics;
import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.operator.table.BuildKeyFilter;
import dev.spilljoin.operator.table.DirectIndexTable;
import dev.spilljoin.operator.table.KeyRange;
import dev.spilljoin.operator.table.DuplicateKeys;
import dev.spilljoin.operator.table.ParallelTasks;
import dev.spilljoin.operator.table.SpilledRowPages;
import dev.spilljoin.operator.table.UnchainedTable;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.NativeMemory;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * The build pass of the hybrid hash join (Grace/hybrid hash join: DeWitt et al., "Implementation techniques for
 * main memory database systems", SIGMOD 1984): routes every build row by h1 at level 0
 * ({@link HashFunctions#partitionOf}) into its partition's resident {@link RowArena}, or, once the partition has
 * spilled, to its spill file.
 *
 * <p>Algorithm, per batch: hash once ({@link KeyHasher}), pick each row's partition, serialize the rows with one
 * {@link RowWriter} call straight into their partitions' arenas; rows of spilled partitions go into a small staging
 * arena and from there, encoded ({@link dev.spilljoin.operator.row.SpillRowFormat}), to their
 * partition's write-combining buffer. When a page is refused (the budget is full)
 * and no progress was made, the largest resident partition is spilled (its rows encoded out, its pages freed), and
 * the batch continues where it stopped. At the end, the resident partitions' rows are copied into the table, and
 * their pages freed; while the table (beside the rows it is copied from, plus the probe pass's staging pages) does
 * not fit, more partitions spill. The table is the direct-index table ({@link DirectIndexTable}) when the resident
 * rows allow it (one integer key, a dense enough range: their key statistics are taken by one
 * pass over each resident partition, kept while it stays resident), it fits, and it costs no more than the hash
 * table; else the unchained hash table ({@link UnchainedTable#tryBuild}). Readmission comes first
 * ({@link #readmitSpilled}): when partitions spilled, a direct-index table may hold more build rows than their rows'
 * form let stay (a row of W1 takes 28 bytes, the table 8 and a bit), so every partition's key statistics are taken
 * (a spilled one's counted as its rows went to its file: {@link #spilledKeys}), the table's partitions chosen while
 * it fits (the resident ones first; with narrow entries for short texts when those let in more rows), and, when
 * they hold more rows than the resident ones and no key occurs twice among them (a pass whose occupancy bitmap the
 * table then takes), the table is built over the rows in memory and the chosen spilled files read back block by
 * block; the partitions left out spill. Duplicate
 * keys abandon the direct-index table; when they are few (at most the heavy keys left of
 * {@value #MAX_HEAVY_KEYS}, repeating in at most one keyed row in {@value #DUPLICATE_ROWS_ONE_IN}: a dense key with a
 * few heavy values, W2's build side) their rows are
 * routed to the heavy partition as a heavy key's are (below) and the table is built again without them; more, and
 * the hash table is built over the same rows.
 *
 * <p>Heavy keys: every build batch's hashes also feed the join's {@link KeySketches} (a worker's own, or the one
 * shared). Every {@value #HEAVY_CHECK_EVERY_BATCHES} batches, before routing the next batch, the frequent-items
 * sketches are asked together for the candidates (under {@link #structure} held for writing, so no worker updates its
 * sketch meanwhile; the rows so far are the sketches' sum, the distinct keys so far the largest worker's estimate, a
 * lower bound of the union's that matters to the planner only when it is below the fanout): keys above their
 * partition's fair share of the rows so far ({@link #heavyCandidateRows()}; a key at or below it cannot be what makes
 * its partition overflow, and re-partitioning splits such partitions). With a sketch per worker, each worker first
 * asks its own sketch, every {@value #HEAVY_CHECK_EVERY_BATCHES} batches of its own, for keys above that share
 * divided among the workers, and takes the structure lock only when it finds one: a key above the share has more than
 * its part of it in some worker's sketch, whose worker finds it (the lock, taken every few batches, made every worker
 * wait for the others' batches: a fifth of W1's build on two workers at the tight budget). Which of
 * them go to the nested loop is the {@link dev.spilljoin.estimator.PartitionPlanner}'s rule
 * ({@link SpillSizing#nestedLoopKeys}): those whose rows, projected to the whole input, would overflow their
 * partition beside its share of the other keys. A routed key whose partition is still resident is accepted: its rows
 * already in that partition's arena are moved out (the arena's pages are compacted in place) to the extra partition
 * {@link BuildOutput#heavyPartition()}, which is always spilled, and every later build row of it goes there too; the probe pass
 * sends all probe rows with that hash there as well, so the heavy pair holds every row of its keys; it is a stuck
 * pair (joined in memory if it fits, else straight on the nested-loop path, never re-partitioned). Keys the level-0
 * plan already routes (a statistics-cache hit) go there from the first row (given to the constructor). A routed
 * key whose partition has already spilled is not accepted (its early rows are on disk; splitting them from its later
 * rows would part build rows of one key): re-partitioning remains the fallback for it and for keys the sketch
 * missed. Periodic detection, not a pre-pass: the input streams once. NULL-key rows are sketched with the rest (their
 * hash is a constant), but never routed as heavy.
 *
 * <p>Workers: with more than one ({@link JoinConfig#threads()}), each {@link BuildWorker} routes whole batches into
 * arenas of its own per partition (merged at the end: {@link RowArena#absorb}) and feeds a build sketch of its own
 * when the budget holds one per worker ({@link JoinSketches#splitBuild}; merged at the end), and adds its keys to a
 * key filter part of its own under the same condition ({@link BuildKeyFilter#splitAdds}); the row counts are updated
 * under this object's lock once per batch, the filter (when the workers share it) under its own, the spill writer
 * under its own per chunk; which partitions spilled and which keys are heavy change under {@link #structure} held
 * for writing (a spill or a heavy key moves every worker's rows of a partition), which each worker holds for reading
 * while it writes a batch.
 *
 * <p>The key filter is fed only once it can matter: a build that ends without a spill has every probe row meet its
 * partition in the table, and (with a direct-index table) drops the filter unread. So while nothing has spilled, no
 * heavy key's rows have moved out and no statistics-cache key or forced spill sends rows to a spilled partition
 * from the first row, the workers add nothing to it; the first of those events (or a hash table that the filter
 * will stand beside) feeds it every row the workers hold, all of which are in their resident arenas then, under
 * {@link #structure} held for writing, and from then on every worker adds each batch while holding it for reading,
 * checking again after a spill of its own, whose feeding may have come after part of its batch was written
 * ({@link #addToKeyFilter}). Invariant: the filter the probe pass gets holds every non-NULL build key. (Adding every
 * build row to the filter costs a build in memory about a quarter of its time.)
 *
 * <p>Ownership: this phase owns the workers' arenas and staging arenas, the build spill writer with its writer share,
 * and the key filter and sketches it was given; {@link #finish} hands all that outlives the build to the probe pass
 * in one {@link BuildOutput} (the writer share moved to the probe's writer) and owns nothing afterwards.
 *
 * <p>Invariants: partition 0 spills last, and only when a reservation is refused (or {@link JoinConfig#forceSpill});
 * memory for every spilled partition's writer was set aside before the first row (the share its
 * {@link ReservedSpillWriter} owns), so spilling
 * never needs memory it cannot get; NULL-key build rows never match and never enter a table: they are kept only when
 * the finish pass may emit them, and travel with partition 0 so that the pass holding partition 0 emits them.
 */
final class PartitionedBuild implements JoinPhase {
    static final int HEAVY_CHECK_EVERY_BATCHES = 4;
    static final int MAX_HEAVY_KEYS = 64;
    /**
     * The least read window of a readmission's passes over spilled files: small, so that a pass fits the little a
     * full budget has left before anything is freed; a pass with more room reads through larger ones, up to the
     * sizing's read window ({@link SpilledRowPages#passWindow}).
     */
    private static final int READMISSION_WINDOW = 64 << 10;
    /** A readmission pass's scratch page: at least this, at most what the largest spilled block expands to. */
    private static final int READMISSION_MIN_PAGE = 4096;
    /**
     * The direct-index table is kept, its duplicate keys' rows routed to the heavy partition, while those keys repeat
     * in at most one keyed row in this many: moving such rows out costs a spill write and read each, the hash table
     * instead would cost every probe row about twice the direct-index table's probe.
     */
    static final long DUPLICATE_ROWS_ONE_IN = 8;
    private final JoinContext ctx;
    private final int bits;
    private final int fanout;
    /** Owned: the workers, each with its own arenas per partition (merged into worker 0's at the end). */
    private final BuildWorker[] workers;
    /** Worker 0's arenas: every resident row once {@link #finish} merged the workers' arenas. */
    private final RowArena[] resident;
    private final boolean[] spilled;
    /** Per partition: a heavy key turned up after it spilled, so its file holds that key's rows more than once. */
    private final boolean[] repeatsOnDisk;
    /**
     * Held for reading by a worker while it writes a batch; for writing while the spilled partitions or the heavy
     * keys change (no worker writes then).
     */
    final StructureLock structure;
    /** Partitions spilled so far (under the structure lock): a worker refused a page spills only if none spilled since. */
    private volatile long spills;
    /** The level-0 build spill writer and the writer share it owns (set aside before the first row); locked per chunk. */
    private final ReservedSpillWriter spill;
    private final boolean keepNullKeys;
    /** The join's key sketches (null without them): fed here, handed to the probe pass. */
    private final JoinSketches sketches;
    /** The build keys' filter (null when off or dropped): fed here, handed to the probe pass. */
    private BuildKeyFilter keyFilter;
    /**
     * Whether the key filter holds the key of every build row so far (see {@link #feedKeyFilter}): set before the
     * first spill, under {@link #structure} held for writing; read by workers holding it for reading.
     */
    private volatile boolean keyFilterFed;
    /** Set when {@link #finish} handed everything on: this phase then owns nothing. */
    private boolean handedOver;
    private long rowsIn;
    private long nullKeyRows;
    /** Partitions spilled during the build pass whose rows went into the table after all ({@link #readmitSpilled}). */
    private int readmittedPartitions;
    private long readmittedRows;
    /** Bytes of the files they were read back from (deleted since). */
    private long readmittedBytes;
    /** The resident hash table, once {@link #finish} created it (null when the direct-index table was). */
    private UnchainedTable table;
    /** The resident direct-index table, once {@link #finish} created it (null when the hash table was). */
    private DirectIndexTable direct;
    private final SpillFile[] files;
    /** The distinct build sketches the workers feed (one when shared), null without sketches. */
    private final KeySketches[] buildSketches;
    private long[] heavyKeys = new long[0];
    private int heavyKeyCount;
    /** The heavy keys' hashes, asked before {@link #heavyKeys} is searched (changed as they are). */
    private final HeavyKeyFilter heavyFilter = new HeavyKeyFilter();
    private boolean heavyRoutingOff;
    /** Heavy keys routed from the first row because the statistics cache knew them. */
    private long heavyKeysFromCache;
    /** Heavy keys routed because the resident direct-index table met them more than once ({@link DuplicateKeys}). */
    private long heavyKeysFromDuplicates;
    private long batches;
    /** Each worker's batches so far (for its own checks for heavy keys, with a sketch per worker). */
    private final long[] workerBatches;
    /**
     * Per worker and partition below the fanout: the key statistics of the rows it sent to the partition's spill
     * file, taken as they go there (a spilled partition's arena rows, counted under {@link #structure} held for
     * writing, and the worker's staged rows after each of its {@link #spillStaged}), so that readmission knows a
     * spilled partition's keys without reading its file. Null when no direct-index table can be built.
     */
    private final KeyRange[][] spilledKeys;

    /**
     * The build pass of {@code ctx}'s join; it takes over {@code sketches} and {@code keyFilter} (either may be null;
     * closed here if this constructor fails) and routes {@code knownHeavyKeys} (the level-0 plan's nested-loop keys,
     * known from an earlier join over this input) to the heavy partition from the first row.
     */
    PartitionedBuild(JoinContext ctx, JoinSketches sketches, BuildKeyFilter keyFilter, HeavyHitters knownHeavyKeys,
                     int workerCount) {
        this.ctx = ctx;
        this.bits = ctx.sizing.fanoutLog2();
        this.fanout = 1 << bits;
        this.spilled = new boolean[fanout + 1];
        this.repeatsOnDisk = new boolean[fanout];
        this.files = new SpillFile[fanout + 1];
        this.sketches = sketches;
        this.keyFilter = keyFilter;
        if (sketches != null) {
            // beyond the join's minimum, so the extra sketches never take what partitioning needs to run at all
            sketches.splitBuild(workerCount, ctx.memory.headroom() - ctx.sizing.minimumBudget());
        }
        this.buildSketches = sketches == null ? null : sketches.buildParts();
        if (keyFilter != null) {
            keyFilter.splitAdds(workerCount, ctx.memory.headroom() - ctx.sizing.minimumBudget());
        }
        try {
            this.spill = ReservedSpillWriter.setAside(ctx, "build-L0", fanout + 1, fanout, ctx.buildFormat);
        } catch (RuntimeException e) {
            closeAll(sketches, keyFilter);
            throw e;
        }
        this.workers = new BuildWorker[workerCount];
        this.structure = new StructureLock(workerCount);
        this.workerBatches = new long[workerCount];
        this.spilledKeys = directIndexPossible(ctx) && !ctx.config.forceSpill()
                ? new KeyRange[workerCount][fanout] : null;
        for (int w = 0; spilledKeys != null && w < workerCount; w++) {
            for (int p = 0; p < fanout; p++) {
                spilledKeys[w][p] = KeyRange.empty(ctx.buildLayout);
            }
        }
        int pageSize = ctx.sizing.workerPageBytes(workerCount);
        for (int w = 0; w < workerCount; w++) {
            workers[w] = new BuildWorker(this, w, ctx, fanout + 1, pageSize,
                    sketches == null ? null : sketches.buildPart(w));
        }
        this.resident = workers[0].arenas;
        markSpilled(fanout);
        this.keepNullKeys = ctx.strategy.keepsNullKeyBuildRows();
        if (ctx.config.forceSpill()) {
            for (int p = 0; p < fanout; p++) {
                markSpilled(p);
            }
        }
        routeKnownHeavyKeys(knownHeavyKeys);
        // rows go to spilled partitions from the first one: the filter must hold their keys from the first one too
        keyFilterFed = keyFilter == null || heavyKeyCount > 0 || ctx.config.forceSpill();
    }

    /** Closes the sketches and the key filter (either may be null). */
    static void closeAll(JoinSketches sketches, BuildKeyFilter keyFilter) {
        try {
            if (sketches != null) {
                sketches.close();
            }
        } finally {
            if (keyFilter != null) {
                keyFilter.close();
            }
        }
    }

    /** The workers: each routes one batch at a time, on one thread at a time. */
    BuildWorker worker(int index) {
        return workers[index];
    }

    int workerCount() {
        return workers.length;
    }

    /** The join's threads for the table's passes, as many as the build pass's workers (its input's size sets them). */
    private ParallelTasks workerTasks() {
        return ctx.tasks.limitedTo(workers.length);
    }

    int bits() {
        return bits;
    }

    boolean keepsNullKeys() {
        return keepNullKeys;
    }

    /**
     * Worker {@code worker}'s batch is hashed: counts its rows and, every {@value #HEAVY_CHECK_EVERY_BATCHES} batches
     * (of its own, with a sketch of its own, and then only if that sketch holds a candidate), accepts the heavy keys
     * the sketches find (under the structure lock held for writing, since their resident rows move). Called without
     * the structure lock.
     */
    void beforeBatch(int worker, Batch batch, long[] nullKeys, boolean anyNull) throws IOException {
        boolean sketchPerWorker = buildSketches != null && buildSketches.length > 1;
        boolean checkHeavy;
        long ownShare = 0;
        synchronized (this) {
            int n = batch.rowCount();
            long counted = sketchPerWorker ? workerBatches[worker]++ : batches; // the batches before this one
            checkHeavy = buildSketches != null && !heavyRoutingOff && counted > 0
                    && counted % HEAVY_CHECK_EVERY_BATCHES == 0;
            if (checkHeavy && sketchPerWorker) {
                ownShare = Math.max(1, heavyCandidateRows() / buildSketches.length);
            }
            batches++;
            rowsIn += n;
            if (anyNull) {
                for (int w = 0, words = (n + 63) >>> 6; w < words; w++) {
                    nullKeyRows += Long.bitCount(nullKeys[w]);
                }
            }
        }
        if (checkHeavy && sketchPerWorker) {
            KeySketches own = buildSketches[worker];
            synchronized (own) { // its worker's: updated only on this thread, read by others only under the lock
                checkHeavy = !HeavyHitters.find(own, ownShare).isEmpty();
            }
        }
        if (checkHeavy) {
            structure.lockWrite();
            try {
                acceptHeavyKeys();
            } finally {
                structure.unlockWrite();
            }
        }
    }

    /**
     * Adds worker {@code worker}'s batch (hashed: {@code hashes}, {@code nullKeys}) to the key filter once the filter
     * is fed, to the worker's own part or, without one, one worker at a time; false (nothing added) while it is not
     * fed. Called under {@link #structure} held for reading, at the start of the batch and again after the worker let
     * go of it to spill, since the first spill feeds the filter ({@link #feedKeyFilter}) with the rows held then,
     * and the batch's other rows are written after it: adding a key twice changes nothing.
     */
    boolean addToKeyFilter(int worker, Batch batch, long[] hashes, long[] nullKeys, boolean anyNull) {
        if (keyFilter == null) {
            return true;
        }
        if (!keyFilterFed) {
            return false;
        }
        if (keyFilter.addsConcurrently()) {
            keyFilter.add(worker, batch, hashes, nullKeys, anyNull);
        } else {
            synchronized (keyFilter) {
                keyFilter.add(worker, batch, hashes, nullKeys, anyNull);
            }
        }
        return true;
    }

    /**
     * Feeds the key filter, unless it is fed already, with the keys of every row the workers hold, and has the
     * workers add every batch from now on. A build that has not spilled needs no filter (the probe meets every row's
     * partition in the table), so the filter's adds wait for the first spill, a heavy key's rows moved out, or a hash
     * table kept beside the filter at the end; until then every build row is in some worker's resident arena. Called
     * under {@link #structure} held for writing, or by the caller alone once the workers stopped.
     */
    private void feedKeyFilter() {
        if (keyFilterFed || keyFilter == null) {
            return;
        }
        for (BuildWorker worker : workers) {
            for (RowArena arena : worker.arenas) {
                keyFilter.addRows(ctx.buildLayout, arena);
            }
        }
        keyFilterFed = true;
    }

    /** Sends the rows of heavy keys to the heavy partition (under the structure lock held for reading). */
    void routeHeavyKeys(long[] hashes, long[] nullKeys, int[] partitionOfRow, int n) {
        if (heavyKeyCount > 0) {
            long[] keys = heavyKeys;
            int count = heavyKeyCount;
            for (int i = 0; i < n; i++) {
                if (!Bitmaps.isSet(nullKeys, i) && heavyFilter.contains(hashes[i], keys, count)) {
                    partitionOfRow[i] = fanout;
                }
            }
        }
    }

    /** Partitions spilled so far (see {@link #spillLargestResident(String, long, long)}). */
    long spills() {
        return spills;
    }

    /**
     * Encodes a worker's staged rows ({@code m}: batch rows {@code rows} at {@code addresses}) into their spilled
     * partitions' files ({@code partitionOfRow} by batch row) in the worker's {@code order}
     * ({@link ReservedSpillWriter#spillStaged}). Called under {@link #structure} held for reading, so that no
     * partition spills meanwhile.
     */
    void spillStaged(StagedSpillOrder order, int[] partitionOfRow, int[] rows, long[] addresses, int m)
            throws IOException {
        spill.spillStaged(order, partitionOfRow, rows, addresses, m, spilled);
        if (spilledKeys != null) {
            KeyRange[] keys = spilledKeys[order.worker()];
            for (int p = 0; p < fanout; p++) {
                for (int i = order.from(p), to = order.to(p); i < to; i++) {
                    keys[p].add(addresses[order.stagedRow(i)]);
                }
            }
        }
    }

    /** A new build worker's order of its staged rows: worker {@code index} of the pass's workers. */
    StagedSpillOrder spillOrder(int index) {
        return spill.orderFor(index, workers.length);
    }

    /**
     * Asks the sketches for heavy-key candidates and the planner which of them go to the nested loop, and accepts those
     * whose partition is still resident (see the class comment): their resident rows move to the heavy partition.
     * Called under {@link #structure} held for writing: no worker updates its sketch meanwhile.
     * The heavy partition's writer share is taken from the budget at the first accepted key; if refused, heavy
     * routing stays off.
     */
    private void acceptHeavyKeys() throws IOException {
        HeavyHitters routed;
        synchronized (this) {
            HeavyHitters candidates = HeavyHitters.find(buildSketches, heavyCandidateRows());
            if (candidates.isEmpty()) {
                return;
            }
            long rows = 0;
            long bytes = 0;
            long distinct = 0;
            for (KeySketches part : buildSketches) {
                rows += part.rows();
                bytes += part.bytes();
                distinct = Math.max(distinct, part.distinctEstimate());
            }
            routed = ctx.sizing.nestedLoopKeys(ctx.config, new InputStatistics(rows, bytes, distinct, candidates));
        }
        for (int i = 0; i < routed.size() && heavyKeyCount < MAX_HEAVY_KEYS && !heavyRoutingOff; i++) {
            long h = routed.hash(i);
            int p = HashFunctions.partitionOf(h, 0, bits);
            if (!spilled[p] && addHeavyKey(h)) {
                feedKeyFilter();
                moveResidentRowsOf(new long[] {h}, p);
            } else if (spilled[p]) {
                repeatsOnDisk[p] = true;
            }
        }
    }

    /** Routes the keys of {@code planned} to the heavy partition from the first row. */
    private void routeKnownHeavyKeys(HeavyHitters planned) {
        for (int i = 0; i < planned.size() && heavyKeyCount < MAX_HEAVY_KEYS && !heavyRoutingOff; i++) {
            if (addHeavyKey(planned.hash(i))) {
                heavyKeysFromCache++;
            }
        }
    }

    /**
     * Routes {@code keys} (a resident direct-index table's duplicate key values, ascending) to the heavy partition,
     * their resident rows moved out, one pass per partition holding any; false (nothing moved) when the heavy
     * partition's writer share is refused. A key filter not yet fed is dropped first: the build has not spilled, so
     * the probe pass would ask it only for rows of these keys, which it sends to the heavy partition by their hash.
     */
    private boolean routeDuplicateKeys(long[] keys, KeyRange[] keyRanges) throws IOException {
        if (keyFilter != null && !keyFilterFed) {
            keyFilter.close();
            keyFilter = null;
        }
        long[] hashes = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            hashes[i] = HashFunctions.singleKeyHash(keys[i]);
            if (!addHeavyKey(hashes[i])) {
                return false;
            }
            heavyKeysFromDuplicates++;
        }
        Arrays.sort(hashes);
        for (int p = 0; p < fanout; p++) {
            for (long h : hashes) {
                if (HashFunctions.partitionOf(h, 0, bits) == p) {
                    moveResidentRowsOf(hashes, p);
                    keyRanges[p] = null;
                    break;
                }
            }
        }
        return true;
    }

    /** Rows above a partition's fair share of the build so far: the heavy-key candidates' threshold. */
    private long heavyCandidateRows() {
        return Math.max(1, rowsIn / fanout);
    }

    /**
     * Adds {@code h} to the heavy keys (sorted); false if it is one already, or if the heavy partition's writer share
     * (taken at the first key) was refused, which turns heavy routing off.
     */
    private boolean addHeavyKey(long h) {
        int at = Arrays.binarySearch(heavyKeys, 0, heavyKeyCount, h);
        if (at >= 0) {
            return false;
        }
        if (heavyKeyCount == 0 && !spill.setAsideOneMore()) {
            heavyRoutingOff = true;
            return false;
        }
        at = -at - 1;
        if (heavyKeyCount == heavyKeys.length) {
            heavyKeys = Arrays.copyOf(heavyKeys, Math.max(4, 2 * heavyKeyCount));
        }
        System.arraycopy(heavyKeys, at, heavyKeys, at + 1, heavyKeyCount - at);
        heavyKeys[at] = h;
        heavyKeyCount++;
        heavyFilter.add(h);
        return true;
    }

    /**
     * Moves the rows (not NULL-key) of resident partition {@code p} whose hash is one of {@code hashes} (ascending) to
     * the heavy partition's spill file, compacting each page in place (a row only moves towards its page's start;
     * the table does not exist yet, so no pointer refers to a row).
     */
    private void moveResidentRowsOf(long[] hashes, int p) throws IOException {
        for (BuildWorker worker : workers) {
            moveRowsOf(hashes, worker.arenas[p]);
        }
    }

    private void moveRowsOf(long[] hashes, RowArena arena) throws IOException {
        for (int page = 0; page < arena.pageCount(); page++) {
            long start = arena.pageAddress(page);
            long end = start + arena.pageUsed(page);
            long to = start;
            long removed = 0;
            for (long row = start; row < end; ) {
                int length = ctx.buildLayout.rowLength(row);
                if (!ctx.buildLayout.hasNullKey(row) && Arrays.binarySearch(hashes, ctx.buildLayout.hash(row)) >= 0) {
                    spill.spill(fanout, row);
                    removed++;
                } else {
                    if (to != row) {
                        NativeMemory.copy(row, to, length);
                    }
                    to += length;
                }
                row += length;
            }
            if (removed > 0) {
                arena.shrinkPage(page, to - start, removed);
            }
        }
    }

    /**
     * For a worker refused a page of {@code pageBytes}, which saw {@code seenSpills} partitions spilled before it
     * wrote: spills the largest resident partition, unless another worker spilled one since (its memory may serve)
     * or the page fits now (the worker then tries again). The latter happens when the refusal came while other
     * workers held rows in their staging arenas: under this lock held for writing no worker is inside
     * {@link BuildWorker#add}, so every staging arena has been flushed and emptied, and the bytes they held are free.
     */
    void spillLargestResident(String why, long seenSpills, long pageBytes) throws IOException {
        structure.lockWrite();
        try {
            if (spills == seenSpills && !pageFitsNow(pageBytes)) {
                spillLargestResident(why);
            }
        } finally {
            structure.unlockWrite();
        }
    }

    /** Whether a page of {@code bytes} can be reserved now (a pooled budget's pool asked too); reserves nothing. */
    private boolean pageFitsNow(long bytes) {
        if (!ctx.memory.tryGrow(bytes)) {
            return false;
        }
        ctx.memory.shrink(bytes);
        return true;
    }

    /**
     * Spills the resident partition holding the most memory over all workers (partition 0 only when it is the
     * last): every worker's rows of it are encoded out and its pages freed.
     */
    private void spillLargestResident(String why) throws IOException {
        structure.lockWrite();
        try {
            feedKeyFilter();
            int victim = -1;
            long most = 0;
            for (int p = fanout - 1; p >= 1; p--) {
                long bytes = residentBytes(p);
                if (!spilled[p] && bytes > 0 && (victim < 0 || bytes > most)) {
                    victim = p;
                    most = bytes;
                }
            }
            if (victim < 0 && !spilled[0] && residentBytes(0) > 0) {
                victim = 0;
            }
            if (victim < 0) {
                throw new MemoryExhaustedException("hash join: " + why + " but the budget of "
                        + ByteSize.format(ctx.memory.limit()) + " is full and every partition has spilled already ("
                        + ctx.sizing.describe() + "); give it a larger budget");
            }
            spillPartition(victim);
        } finally {
            structure.unlockWrite();
        }
    }

    /** Spills resident partition {@code victim}: every worker's rows of it are encoded out and its pages freed. */
    private void spillPartition(int victim) throws IOException {
        structure.lockWrite();
        try {
            feedKeyFilter();
            for (int w = 0; w < workers.length; w++) { // no worker writes meanwhile: the structure lock is held
                RowArena arena = workers[w].arenas[victim];
                KeyRange keys = spilledKeys == null ? null : spilledKeys[w][victim];
                for (int page = 0; page < arena.pageCount(); page++) {
                    long row = arena.pageAddress(page);
                    long end = row + arena.pageUsed(page);
                    while (row < end) {
                        int length = ctx.buildLayout.rowLength(row);
                        spill.spill(victim, row);
                        if (keys != null) {
                            keys.add(row);
                        }
                        row += length;
                    }
                }
                arena.clear();
            }
            markSpilled(victim);
        } finally {
            structure.unlockWrite();
        }
    }

    /** Bytes of the resident partitions' pages. */
    private long residentRowBytes() {
        long bytes = 0;
        for (int p = 0; p < fanout; p++) {
            bytes += spilled[p] ? 0 : residentBytes(p);
        }
        return bytes;
    }

    /** Bytes of partition {@code p}'s pages over all workers. */
    private long residentBytes(int p) {
        long bytes = 0;
        for (BuildWorker worker : workers) {
            bytes += worker.arenas[p].reservedBytes();
        }
        return bytes;
    }

    private void markSpilled(int p) {
        spilled[p] = true;
        spills++;
        for (BuildWorker worker : workers) {
            worker.target[p] = worker.staging;
        }
    }

    /**
     * Merges every worker's arena of each partition into worker 0's, frees the other workers' staging pages, and
     * merges the workers' build sketches and key filter parts.
     */
    private void mergeWorkers() {
        if (sketches != null) {
            sketches.mergeBuildParts();
        }
        if (keyFilter != null) {
            keyFilter.endAdds();
        }
        for (int w = 1; w < workers.length; w++) {
            for (int p = 0; p <= fanout; p++) {
                resident[p].absorb(workers[w].arenas[p]);
            }
            workers[w].close();
        }
    }

    /**
     * Ends the build pass: reserves the resident partitions' table (spilling more partitions while it and
     * {@code probeStagingBytes} do not fit; the direct-index table when possible and no dearer, see the class
     * comment), fills it, seals the spilled partitions' files, and hands everything that
     * outlives the build to the probe pass it returns: the table and the resident rows, the spilled files, the heavy
     * keys, the key filter, the sketches and the writer share (now covering the probe pass's writers, one per spilled
     * partition). This phase owns nothing afterwards.
     */
    PartitionedProbe finish(long probeStagingBytes, int probeWorkers) throws IOException {
        mergeWorkers();
        // The partitions still resident need no writer share unless the table makes them spill: keep one for that.
        spill.releaseUnopened(1);
        boolean marks = ctx.strategy.marksBuildRows();
        boolean directPossible = directIndexPossible(ctx);
        KeyRange[] keyRanges = new KeyRange[fanout];
        long residentRows = 0;
        long residentBytes = 0;
        if (directPossible) {
            residentBytes = residentRowBytes();
            try {
                residentRows = readmitSpilled(probeStagingBytes, marks, keyRanges);
            } catch (MemoryExhaustedException e) {
                // a pass's reader or page refused (a budget shared with other joins, or the workers' pages): the
                // table was not built, the readers are released, and the build ends as it would have without it
                residentRows = 0;
            }
        }
        while (direct == null) {
            long rows = 0;
            long rowBytes = 0;
            long pageBytes = 0;
            for (int p = 0; p < fanout; p++) {
                if (!spilled[p]) {
                    rows += resident[p].rowCount();
                    rowBytes += resident[p].usedBytes();
                    pageBytes += resident[p].reservedBytes();
                }
            }
            residentRows = rows;
            residentBytes = pageBytes;
            long tableBytes = UnchainedTable.bytesFor(ctx.buildLayout, rows, rowBytes, residentPartitions());
            if (directPossible && rows > 0) {
                KeyRange keys = residentKeys(keyRanges);
                long directBytes = DirectIndexTable.bytes(ctx.buildLayout, keys, marks);
                // narrow entries (their gather costs more per value) only when the wide ones leave no room
                long probeRoom = probeRoom(probeStagingBytes);
                boolean narrow = directBytes + probeRoom > ctx.memory.headroom();
                if (narrow) {
                    directBytes = DirectIndexTable.bytes(ctx.buildLayout, keys, marks, true);
                }
                if (directBytes >= 0 && directBytes + probeRoom <= ctx.memory.headroom()) {
                    RowArena[] arenas = arenasOf(p -> true);
                    DuplicateKeys duplicates = heavyRoutingOff ? null : new DuplicateKeys(
                            MAX_HEAVY_KEYS - heavyKeyCount, keys.keyedRows() / DUPLICATE_ROWS_ONE_IN);
                    direct = DirectIndexTable.tryBuild(ctx.memory, ctx.buildLayout, keys, marks, narrow, arenas,
                            null, tableBytes, workerTasks(), duplicates);
                    if (direct != null) {
                        for (RowArena arena : arenas) {
                            if (arena != null) {
                                arena.clear();
                            }
                        }
                        break;
                    }
                    // A few duplicate keys: their rows go to the heavy partition and the table is tried again;
                    // more, or dearer than the hash table: the hash table.
                    directPossible = duplicates != null && !duplicates.exceeded() && !duplicates.isEmpty()
                            && routeDuplicateKeys(duplicates.keys(), keyRanges);
                    continue;
                }
            }
            long need = tableBytes + probeRoom(probeStagingBytes);
            if (need <= ctx.memory.headroom() || rows == 0) {
                int[] partitions = residentPartitionIndexes();
                RowArena[] arenas = new RowArena[partitions.length];
                for (int k = 0; k < partitions.length; k++) {
                    arenas[k] = resident[partitions[k]];
                }
                feedKeyFilter(); // the probe asks it beside the hash table; the rows go once they are copied
                table = UnchainedTable.tryBuild(ctx.memory, ctx.buildLayout, marks, keepNullKeys, bits, partitions,
                        arenas, workerTasks());
                if (table == null) {
                    throw new MemoryExhaustedException("hash join: its resident table of "
                            + ByteSize.format(tableBytes) + " does not fit the budget of "
                            + ByteSize.format(ctx.memory.limit()) + " (" + ctx.sizing.describe() + ")");
                }
                break;
            }
            if (keyFilter != null && residentPartitions() == fanout && heavyKeyCount == 0) {
                // Nothing spilled yet: the filter would only speed up misses, keeping every partition is worth more.
                keyFilter.close();
                keyFilter = null;
                continue;
            }
            if (!spill.hasShareForOneMore() && !spill.setAsideOneMore()) {
                throw new MemoryExhaustedException("hash join: the resident table of " + ByteSize.format(tableBytes)
                        + " does not fit the budget of " + ByteSize.format(ctx.memory.limit())
                        + " and a partition to spill for it cannot get a writer (" + ctx.sizing.describe() + ")");
            }
            spillLargestResident("the resident table needs " + ByteSize.format(need));
        }
        spill.releaseUnopened(0);
        int spilledCount = 0;
        for (int p = 0; p < fanout; p++) {
            if (spilled[p]) {
                spilledCount++;
            }
        }
        spill.finish();
        long spilledBytes = 0;
        long heavyRows = 0;
        if (spill.started()) {
            for (int p = 0; p < fanout; p++) {
                if (spilled[p]) {
                    files[p] = spill.file(p);
                    spilledBytes += files[p].length();
                }
            }
            if (spill.used(fanout)) {
                files[fanout] = spill.file(fanout);
                spilledBytes += files[fanout].length();
                heavyRows = files[fanout].rowCount();
            }
        }
        if (heavyKeyCount > 0) {
            spilledCount++;
        }
        if (keyFilter != null && direct != null && spilledCount == 0) {
            // Every probe row meets the direct-index table, whose occupancy bitmap is an exact filter that costs
            // one load, as the key filter does: asking both would pay twice for each miss.
            keyFilter.close();
            keyFilter = null;
        }
        if (keyFilter != null && !keyFilterFed) {
            throw new IllegalStateException("the build would hand the probe a key filter it never fed");
        }
        ReservedSpillWriter probeWriter = spill.handOver("probe-L0", fanout + 1, spilledCount, ctx.probeFormat);
        spill.close();
        BuildReport report = new BuildReport(rowsIn, fanout, residentPartitions(), spilledCount, residentRows,
                residentBytes, readmittedPartitions, readmittedRows, direct == null ? "hash" : "direct",
                table == null ? 0 : table.slotCount(), table == null ? direct.bytes() : table.reservedBytes(),
                direct == null ? 1 : direct.keyStride(), spilledBytes + readmittedBytes,
                heavyKeyCount - heavyKeysFromCache - heavyKeysFromDuplicates, heavyKeysFromCache,
                heavyKeysFromDuplicates, heavyRows, spill.workerBuffers(),
                spill.workerBuffersRefused());
        long rowBytes = 0;
        for (BuildWorker worker : workers) {
            rowBytes += worker.rowBytes();
            worker.close();
        }
        BuildOutput out = new BuildOutput(bits, table, direct, spilled, files, heavyKeys, heavyKeyCount, heavyFilter,
                rowsIn, rowBytes, nullKeyRows, heavyCandidateRows(), probeWriter, keyFilter, sketches, report);
        PartitionedProbe probe;
        try {
            probe = new PartitionedProbe(ctx, out, probeWorkers);
        } catch (RuntimeException e) {
            probeWriter.close();
            throw e;
        }
        handedOver = true;
        return probe;
    }

    /**
     * Readmission: when partitions spilled during the build pass, the direct-index table may hold more build rows than
     * the rows' in-memory form left room for (its columns take less: a BIGINT key and payload, 28 bytes as a row, 8
     * and a few bits in the table). Takes every partition's key statistics (the spilled ones' as counted while their
     * rows spilled), chooses the partitions of the table (the resident ones first, then the spilled ones, each while
     * the table still fits the budget beside the probe's staging and a pass's reader; with narrow entries when the
     * wide ones leave out partitions and the narrow ones let in more rows), and when they hold more rows than the
     * resident partitions, checks in one pass that no key occurs twice (its occupancy bitmap kept for the table),
     * spills the resident partitions left out and
     * as many of the chosen ones (largest first) as the table needs room beside their rows for, and builds it over
     * the rows still in memory and the chosen partitions' files, read back block by block
     * ({@link SpilledRowPages}). The chosen partitions are then resident (their files deleted), the others stay
     * spilled. Returns the rows in the table, or 0 (no table, nothing spilled beyond what had) when the keys allow
     * no such table or it would not hold more rows, and when {@link JoinConfig#forceSpill} asks for every partition
     * to spill; the spilled partitions' files are sealed either way (and more
     * partitions may have spilled when the table was refused at the last moment: a budget shared with other joins).
     */
    private long readmitSpilled(long probeStagingBytes, boolean marks, KeyRange[] keyRanges)
            throws IOException {
        if (!spill.started() || residentPartitions() == fanout || ctx.config.forceSpill()) {
            return 0;
        }
        spill.finishPartitions(spilled); // their writers' memory goes back to the budget
        residentKeys(keyRanges);
        long residentBytes = residentRowBytes();
        addSpilledKeys(keyRanges);
        long passBytes = readmissionPassBytes();
        if (passBytes < 0) {
            return 0;
        }
        long probeRoom = probeRoom(probeStagingBytes);
        // spilling a partition takes a writer share until its file is sealed
        long room = ctx.memory.headroom() + residentBytes - probeRoom - passBytes - ctx.sizing.writerShare();
        boolean[] chosen = new boolean[fanout];
        KeyRange keys = chooseTablePartitions(keyRanges, room, marks, false, chosen);
        boolean allChosen = true;
        for (boolean c : chosen) {
            allChosen &= c;
        }
        boolean narrow = false;
        if (!allChosen) { // narrow entries (their gather costs more per value) only when they let in more rows
            boolean[] chosenNarrow = new boolean[fanout];
            KeyRange narrowKeys = chooseTablePartitions(keyRanges, room, marks, true, chosenNarrow);
            if (narrowKeys.keyedRows() + narrowKeys.nullKeyRows() > keys.keyedRows() + keys.nullKeyRows()) {
                keys = narrowKeys;
                narrow = true;
                System.arraycopy(chosenNarrow, 0, chosen, 0, fanout);
            }
        }
        long tableBytes = DirectIndexTable.bytes(ctx.buildLayout, keys, marks, narrow);
        long rows = keys.keyedRows() + keys.nullKeyRows();
        long residentRows = 0;
        for (int p = 0; p < fanout; p++) {
            residentRows += spilled[p] ? 0 : resident[p].rowCount();
        }
        if (rows <= residentRows) {
            return 0;
        }
        DirectIndexTable.UniqueKeys unique;
        try (SpilledRowPages pages = spilledPages(p -> chosen[p] && spilled[p])) {
            unique = DirectIndexTable.uniqueKeys(ctx.memory, ctx.buildLayout, keys, arenasOf(p -> chosen[p]), pages,
                    workerTasks());
        }
        if (unique == null) {
            return 0;
        }
        boolean[] wasSpilled = spilled.clone();
        try (unique) { // the table takes its occupancy: the fill reads every row once less
            for (int p = 0; p < fanout; p++) {
                if (!spilled[p] && !chosen[p]) {
                    if (!spill.hasShareForOneMore() && !spill.setAsideOneMore()) {
                        return 0;
                    }
                    spillPartition(p);
                    spill.finishPartitions(spilled);
                }
            }
            while (tableBytes + probeRoom(probeStagingBytes) + passBytes > ctx.memory.headroom()
                    && residentRowBytes() > 0) {
                if (!spill.hasShareForOneMore() && !spill.setAsideOneMore()) {
                    return 0;
                }
                spillLargestResident("the direct-index table needs " + ByteSize.format(tableBytes));
                spill.finishPartitions(spilled);
            }
            try (SpilledRowPages pages = spilledPages(p -> chosen[p] && spilled[p])) {
                direct = DirectIndexTable.tryBuild(ctx.memory, ctx.buildLayout, unique, marks, narrow,
                        arenasOf(p -> chosen[p]), pages, workerTasks());
                if (direct == null) {
                    return 0;
                }
                pages.deleteFiles();
            }
        }
        for (int p = 0; p < fanout; p++) {
            if (chosen[p]) {
                resident[p].clear();
                if (spilled[p]) {
                    spilled[p] = false;
                    readmittedBytes += spill.file(p).length();
                    if (wasSpilled[p] && spill.used(p)) {
                        readmittedPartitions++;
                        readmittedRows += keyRanges[p].keyedRows() + keyRanges[p].nullKeyRows();
                    }
                }
            }
        }
        return rows;
    }

    /**
     * What the probe pass takes once the table exists: {@code probeStagingBytes} and what the probe's spill writers'
     * shares need beyond the build's share (one per partition spilled now, and the heavy one): partitions sealed
     * early gave their writers' memory back to the budget, and a table taking it would leave the hand-over to take
     * the probe's staging (a probe row larger than its pages then failed the join).
     */
    private long probeRoom(long probeStagingBytes) {
        int shares = fanout - residentPartitions() + (heavyKeyCount > 0 ? 1 : 0);
        return probeStagingBytes + spill.handOverShortfall(shares);
    }

    /**
     * Marks in {@code chosen} the partitions of a readmission's table ({@code narrow}: with narrow entries) and returns
     * their keys: each partition, the resident ones first (no read, and maybe no write), while the table over it and
     * those before, with the uniqueness pass's bitmap (held until the table takes it), still fits {@code room} and
     * surely repeats no key; the empty ones always (they cost the table nothing, and need no spilling); none whose
     * file repeats a heavy key.
     */
    private KeyRange chooseTablePartitions(KeyRange[] keyRanges, long room, boolean marks, boolean narrow,
                                           boolean[] chosen) {
        KeyRange keys = KeyRange.empty(ctx.buildLayout);
        for (int pass = 0; pass < 2; pass++) {
            for (int p = 0; p < fanout; p++) {
                if (keyRanges[p].keyedRows() + keyRanges[p].nullKeyRows() == 0) {
                    chosen[p] = true;
                } else if (spilled[p] == (pass == 1) && !repeatsOnDisk[p]) {
                    KeyRange with = keys.plus(keyRanges[p]);
                    long bytes = DirectIndexTable.bytes(ctx.buildLayout, with, marks, narrow);
                    if (bytes >= 0 && bytes + DirectIndexTable.uniqueKeysBytes(with) <= room
                            && !with.surelyRepeats()) {
                        chosen[p] = true;
                        keys = with;
                    }
                }
            }
        }
        return keys;
    }

    /**
     * Puts the key statistics of every spilled partition's rows (the workers' {@link #spilledKeys}) into
     * {@code keyRanges}.
     */
    private void addSpilledKeys(KeyRange[] keyRanges) {
        for (int p = 0; p < fanout; p++) {
            if (spilled[p]) {
                keyRanges[p] = KeyRange.empty(ctx.buildLayout);
                for (KeyRange[] workerKeys : spilledKeys) {
                    keyRanges[p].add(workerKeys[p]);
                }
            }
        }
    }

    /**
     * The most a pass over the spilled partitions' files on every worker's thread reserves at once, or -1 when not
     * even one thread's pass fits now.
     */
    private long readmissionPassBytes() {
        try (SpilledRowPages pages = spilledPages(p -> true)) {
            return pages.threadsFitting(workers.length, ctx.memory.headroom()) == 0 ? -1
                    : pages.passBytes(workers.length);
        }
    }

    /** Whether {@code ctx}'s join may build a direct-index table: no extra condition, a key it supports. */
    private static boolean directIndexPossible(JoinContext ctx) {
        return ctx.spec.condition() == null && DirectIndexTable.supports(ctx.buildLayout);
    }

    /** The rows of the sealed files of the spilled partitions {@code which} accepts (those that have one). */
    private SpilledRowPages spilledPages(IntPredicate which) {
        SpilledRowPages pages = new SpilledRowPages(ctx.memory, ctx.buildFormat,
                Math.min(ctx.sizing.readWindowBytes(), READMISSION_WINDOW), ctx.sizing.readWindowBytes(),
                READMISSION_MIN_PAGE);
        for (int p = 0; p < fanout; p++) {
            if (spilled[p] && spill.used(p) && which.test(p)) {
                pages.add(spill.file(p));
            }
        }
        return pages;
    }

    /** The arenas of the resident partitions {@code which} accepts, null for the others. */
    private RowArena[] arenasOf(IntPredicate which) {
        RowArena[] arenas = new RowArena[fanout];
        for (int p = 0; p < fanout; p++) {
            arenas[p] = !spilled[p] && which.test(p) ? resident[p] : null;
        }
        return arenas;
    }

    /**
     * The key statistics of the resident partitions' rows, each partition scanned once ({@code cache}), the
     * partitions not yet scanned on the build's workers' threads.
     */
    private KeyRange residentKeys(KeyRange[] cache) {
        workerTasks().run(fanout, p -> {
            if (!spilled[p] && cache[p] == null) {
                cache[p] = KeyRange.scan(ctx.buildLayout, resident[p]);
            }
        });
        KeyRange keys = KeyRange.empty(ctx.buildLayout);
        for (int p = 0; p < fanout; p++) {
            if (!spilled[p]) {
                keys.add(cache[p]);
            }
        }
        return keys;
    }

    /** The partitions still resident, ascending (their rows go into the table, one directory range each). */
    private int[] residentPartitionIndexes() {
        int[] partitions = new int[residentPartitions()];
        for (int p = 0, k = 0; p < fanout; p++) {
            if (!spilled[p]) {
                partitions[k++] = p;
            }
        }
        return partitions;
    }

    private int residentPartitions() {
        int count = 0;
        for (int p = 0; p < fanout; p++) {
            if (!spilled[p]) {
                count++;
            }
        }
        return count;
    }

    /** Releases what this phase still owns (everything, unless {@link #finish} handed it on); idempotent. */
    @Override
    public void close() {
        if (handedOver) {
            return;
        }
        handedOver = true;
        try {
            spill.close();
        } finally {
            try {
                if (table != null) {
                    table.close();
                }
                if (direct != null) {
                    direct.close();
                }
                for (BuildWorker worker : workers) {
                    worker.close();
                }
            } finally {
                closeAll(sketches, keyFilter);
            }
        }
    }
}

