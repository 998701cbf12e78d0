package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;

/**
 * The build pass of the hybrid hash join (Grace/hybrid hash join: DeWitt et al., "Implementation techniques for
 * main memory database systems", SIGMOD 1984): routes every build row by h1 at level 0
 * ({@link HashFunctions#partitionOf}) into its partition's resident {@link RowArena}, or, once the partition has
 * spilled, to its spill file.
 *
 * <p>Algorithm, per batch: hash once ({@link KeyHasher}), pick each row's partition, serialize the rows with one
 * {@link RowWriter} call straight into their partitions' arenas; rows of spilled partitions go into a small staging
 * arena and from there to their partition's write-combining buffer. When a page is refused (the budget is full)
 * and no progress was made, the largest resident partition is spilled (its rows copied out, its pages freed), and
 * the batch continues where it stopped. At the end, the resident partitions' table is reserved; while it (plus the
 * probe pass's staging pages) does not fit, more partitions spill.
 *
 * <p>Invariants: partition 0 spills last, and only when a reservation is refused (or {@link JoinConfig#forceSpill});
 * memory for every spilled partition's writer was set aside before the first row ({@code writerShare}), so spilling
 * never needs memory it cannot get; NULL-key build rows never match and never enter a table: they are kept only when
 * the finish pass may emit them, and travel with partition 0 so that the pass holding partition 0 emits them.
 */
final class PartitionedBuild implements AutoCloseable {
    private final JoinContext ctx;
    private final int bits;
    private final int fanout;
    private final RowArena[] resident;
    private final RowArena[] target;
    private final boolean[] spilled;
    private final RowArena staging;
    private final MemoryReservation writerShare;
    private final RowWriter rowWriter;
    private final KeyHasher hasher;
    private final boolean keepNullKeys;
    private ReservedSpillWriter spill;
    private long[] hashes = new long[0];
    private long[] nullKeys = new long[0];
    private int[] partitionOfRow = new int[0];
    private long rowsIn;
    private long nullKeyRows;
    private JoinHashTable table;
    private final SpillFile[] files;

    PartitionedBuild(JoinContext ctx) {
        this.ctx = ctx;
        this.bits = ctx.sizing.fanoutLog2();
        this.fanout = 1 << bits;
        this.resident = new RowArena[fanout];
        this.target = new RowArena[fanout];
        this.spilled = new boolean[fanout];
        this.files = new SpillFile[fanout];
        this.writerShare = ctx.memory.newChild("spill-writer-share");
        long share = fanout * ctx.sizing.writerShare();
        if (!writerShare.tryGrow(share)) {
            writerShare.close();
            throw new MemoryExhaustedException("hash join: cannot set aside " + ByteSize.format(share)
                    + " for its spill writers (" + ctx.sizing.describe() + "): only "
                    + ByteSize.format(ctx.memory.headroom()) + " of the budget is free");
        }
        this.staging = new RowArena(ctx.memory, ctx.sizing.pageSize());
        for (int p = 0; p < fanout; p++) {
            resident[p] = new RowArena(ctx.memory, ctx.sizing.pageSize());
            target[p] = resident[p];
        }
        this.rowWriter = new RowWriter(ctx.buildLayout);
        this.hasher = new KeyHasher(ctx.spec.keys(ctx.strategy.buildSide()));
        this.keepNullKeys = ctx.strategy.keepsNullKeyBuildRows();
        if (ctx.config.forceSpill()) {
            for (int p = 0; p < fanout; p++) {
                markSpilled(p);
            }
        }
    }

    void add(Batch batch) throws IOException {
        ctx.checkCancelled();
        int n = batch.rowCount();
        if (hashes.length < n) {
            hashes = new long[n];
            nullKeys = new long[(n + 63) >>> 6];
            partitionOfRow = new int[n];
        }
        boolean anyNull = hasher.hash(batch, hashes, nullKeys);
        rowsIn += n;
        if (anyNull) {
            for (int w = 0, words = (n + 63) >>> 6; w < words; w++) {
                nullKeyRows += Long.bitCount(nullKeys[w]);
            }
        }
        for (int i = 0; i < n; i++) {
            partitionOfRow[i] = (nullKeys[i >>> 6] & (1L << i)) != 0 ? 0 : HashFunctions.partitionOf(hashes[i], 0, bits);
        }
        long[] exclude = keepNullKeys || !anyNull ? null : nullKeys;
        int from = 0;
        while (true) {
            int stop = rowWriter.write(batch, from, hashes, nullKeys, exclude, partitionOfRow, target);
            flushStaging();
            if (stop == n) {
                return;
            }
            if (stop == from) {
                spillLargestResident("a row of " + batch.rowCount() + "-row batch needs a page");
            }
            from = stop;
        }
    }

    /** Sends the staged rows of spilled partitions to their writers and empties the staging arena. */
    private void flushStaging() throws IOException {
        if (staging.rowCount() == 0) {
            return;
        }
        int m = rowWriter.writtenCount();
        int[] rows = rowWriter.writtenRows();
        long[] addresses = rowWriter.writtenAddresses();
        for (int j = 0; j < m; j++) {
            int p = partitionOfRow[rows[j]];
            if (spilled[p]) {
                long row = addresses[j];
                spillWriter().append(p, row, RowLayout.rowLength(row));
            }
        }
        staging.clear();
    }

    private ReservedSpillWriter spillWriter() {
        if (spill == null) {
            spill = new ReservedSpillWriter(ctx, "build-L0", fanout, writerShare);
        }
        return spill;
    }

    /** Spills the resident partition holding the most memory (partition 0 only when it is the last). */
    private void spillLargestResident(String why) throws IOException {
        int victim = -1;
        for (int p = fanout - 1; p >= 1; p--) {
            if (!spilled[p] && resident[p].reservedBytes() > 0
                    && (victim < 0 || resident[p].reservedBytes() > resident[victim].reservedBytes())) {
                victim = p;
            }
        }
        if (victim < 0 && !spilled[0] && resident[0].reservedBytes() > 0) {
            victim = 0;
        }
        if (victim < 0) {
            throw new MemoryExhaustedException("hash join: " + why + " but the budget of "
                    + ByteSize.format(ctx.memory.limit()) + " is full and every partition has spilled already ("
                    + ctx.sizing.describe() + "); give it a larger budget");
        }
        RowArena arena = resident[victim];
        for (int page = 0; page < arena.pageCount(); page++) {
            long row = arena.pageAddress(page);
            long end = row + arena.pageUsed(page);
            while (row < end) {
                int length = RowLayout.rowLength(row);
                spillWriter().append(victim, row, length);
                row += length;
            }
        }
        arena.clear();
        markSpilled(victim);
    }

    private void markSpilled(int p) {
        spilled[p] = true;
        target[p] = staging;
    }

    /**
     * Ends the build pass: reserves the resident partitions' table (spilling more partitions while it and
     * {@code probeStagingBytes} do not fit), fills it, and seals the spilled partitions' files. The writer share
     * then covers the probe pass's writers (one per spilled partition).
     */
    void finish(long probeStagingBytes) throws IOException {
        while (true) {
            long rows = 0;
            for (int p = 0; p < fanout; p++) {
                rows += spilled[p] ? 0 : resident[p].rowCount();
            }
            long need = JoinHashTable.directoryBytes(rows) + probeStagingBytes;
            if (need <= ctx.memory.headroom() || rows == 0) {
                table = JoinHashTable.tryCreate(ctx.memory, rows);
                if (table == null) {
                    throw new MemoryExhaustedException("hash join: its resident table of "
                            + ByteSize.format(JoinHashTable.directoryBytes(rows)) + " does not fit the budget of "
                            + ByteSize.format(ctx.memory.limit()) + " (" + ctx.sizing.describe() + ")");
                }
                break;
            }
            spillLargestResident("the resident table needs " + ByteSize.format(need));
        }
        for (int p = 0; p < fanout; p++) {
            if (!spilled[p]) {
                table.insertAll(resident[p]);
            }
        }
        int spilledCount = 0;
        for (int p = 0; p < fanout; p++) {
            if (spilled[p]) {
                spilledCount++;
            }
        }
        if (spill != null) {
            int opened = spill.finish();
            for (int p = 0; p < fanout; p++) {
                if (spilled[p]) {
                    files[p] = spill.file(p);
                    ctx.stats.spilledBytesBuild += files[p].length();
                }
            }
            long back = opened * ctx.sizing.writerShare();
            if (!writerShare.tryGrow(back)) {
                throw new MemoryExhaustedException("hash join: could not take back " + ByteSize.format(back)
                        + " of spill writer memory for the probe pass");
            }
        }
        writerShare.shrink(writerShare.reserved() - spilledCount * ctx.sizing.writerShare());
        ctx.stats.countPartitions(0, spilledCount);
        ctx.stats.residentPartitions = fanout - spilledCount;
        ctx.stats.fanout = fanout;
        long residentRows = 0;
        long residentBytes = 0;
        for (int p = 0; p < fanout; p++) {
            if (!spilled[p]) {
                residentRows += resident[p].rowCount();
                residentBytes += resident[p].reservedBytes();
            }
        }
        ctx.stats.buildRowsStored = residentRows;
        ctx.stats.rowBytes = residentBytes;
        ctx.stats.tableBuckets = table.bucketCount();
        ctx.stats.tableBytes = table.directoryBytes();
        staging.close();
    }

    int residentPartitions() {
        int count = 0;
        for (int p = 0; p < fanout; p++) {
            if (!spilled[p]) {
                count++;
            }
        }
        return count;
    }

    boolean isSpilled(int p) {
        return spilled[p];
    }

    /** The sealed spill file of spilled partition {@code p}, or null if no row was ever spilled. */
    SpillFile file(int p) {
        return files[p];
    }

    int fanoutLog2() {
        return bits;
    }

    JoinHashTable table() {
        return table;
    }

    RowArena residentArena(int p) {
        return resident[p];
    }

    MemoryReservation writerShare() {
        return writerShare;
    }

    long rowsIn() {
        return rowsIn;
    }

    long nullKeyRows() {
        return nullKeyRows;
    }

    /** Frees the resident rows and table (after the resident finish pass). */
    void releaseResident() {
        if (table != null) {
            table.close();
        }
        for (RowArena arena : resident) {
            arena.close();
        }
    }

    @Override
    public void close() {
        try {
            if (spill != null) {
                spill.close();
            }
        } finally {
            releaseResident();
            staging.close();
            writerShare.close();
        }
    }
}
