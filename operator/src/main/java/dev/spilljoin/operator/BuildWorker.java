package dev.spilljoin.operator;

import dev.spilljoin.estimator.KeySketches;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.KeyHasher;
import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.RowWriter;
import dev.spilljoin.spill.MemoryExhaustedException;

import java.io.IOException;

/**
 * One worker of the build pass ({@link PartitionedBuild}): takes a build batch (a morsel) at a time, hashes its keys
 * once, picks each row's partition and serializes the rows with one {@link RowWriter} call into its own arena of
 * each resident partition, or, for a spilled partition, into its own staging arena, from which they are encoded into
 * the partition's spill file (grouped by partition, each partition's file under its own lock:
 * {@link StagedSpillOrder}).
 *
 * <p>Invariants: the arenas, the staging arena and the hash arrays are this worker's own; at the end of the pass the
 * build merges every worker's arena of a partition into one ({@link RowArena#absorb}). While it writes a batch the
 * worker holds the build's structure lock for reading ({@link PartitionedBuild#structure}): which partitions spilled
 * and which keys are heavy change only under that lock held for writing, when no worker writes (a refused page makes
 * the worker let go and ask the build to spill the largest resident partition across all workers, then go on).
 * It feeds the batch's hashes to its build sketch while it still holds that lock, so that while the lock is held for
 * writing (the heavy-key check reads every worker's sketch) no sketch is being updated, and adds the batch's keys to
 * the key filter under it too, once the build feeds the filter ({@link PartitionedBuild#addToKeyFilter}: again after
 * a spill of its own, which may have started the feeding); the sketch's own lock, taken
 * once per batch, is uncontended unless the workers share one sketch ({@link JoinSketches#buildPart}).
 */
final class BuildWorker implements AutoCloseable {
    private final PartitionedBuild build;
    /** This worker's index among the build's workers (0: the caller's). */
    private final int index;
    private final JoinContext ctx;
    /** This worker's rows of each partition (index {@code fanout}: the heavy partition, always spilled). */
    final RowArena[] arenas;
    /** Where each partition's rows go: its arena, or {@link #staging} once the partition spilled. */
    final RowArena[] target;
    final RowArena staging;
    /** The staged rows grouped by partition for the spill writer. */
    private final StagedSpillOrder spillOrder;
    private final RowWriter rowWriter;
    private final KeyHasher hasher;
    /** The build sketch this worker feeds (its own, or one shared by every worker), null without sketches. */
    private final KeySketches sketch;
    private long[] hashes = new long[0];
    private long[] nullKeys = new long[0];
    private int[] partitionOfRow = new int[0];
    /** Bytes of the rows this worker wrote, in the build side's row layout. */
    private long rowBytes;

    /**
     * Worker {@code index} (0: the caller's) of {@code build}, with an arena per partition ({@code partitions}) of
     * pages of {@code pageSize} bytes (the layout's page divided among the workers, so that their partly filled last
     * pages together take no more of the budget than one worker's would).
     */
    BuildWorker(PartitionedBuild build, int index, JoinContext ctx, int partitions, int pageSize, KeySketches sketch) {
        this.build = build;
        this.index = index;
        this.ctx = ctx;
        this.sketch = sketch;
        this.arenas = new RowArena[partitions];
        this.target = new RowArena[partitions];
        this.staging = new RowArena(ctx.memory, pageSize);
        for (int p = 0; p < partitions; p++) {
            arenas[p] = new RowArena(ctx.memory, pageSize);
            target[p] = arenas[p];
        }
        this.rowWriter = new RowWriter(ctx.buildLayout);
        this.spillOrder = build.spillOrder(index);
        this.hasher = new KeyHasher(ctx.spec.keys(ctx.strategy.buildSide()));
    }

    /** Routes one build batch's rows to their partitions (see the class comment). */
    void add(Batch batch) throws IOException {
        ctx.checkCancelled();
        int n = batch.rowCount();
        if (hashes.length < n) {
            hashes = new long[n];
            nullKeys = new long[(n + 63) >>> 6];
            partitionOfRow = new int[n];
        }
        boolean anyNull = hasher.hash(batch, hashes, nullKeys);
        build.beforeBatch(index, batch, nullKeys, anyNull);
        long bytes = 0;
        build.structure.lockRead(index);
        try {
            boolean filtered = build.addToKeyFilter(index, batch, hashes, nullKeys, anyNull);
            int bits = build.bits();
            for (int i = 0; i < n; i++) {
                partitionOfRow[i] = Bitmaps.isSet(nullKeys, i) ? 0 : HashFunctions.partitionOf(hashes[i], 0, bits);
            }
            build.routeHeavyKeys(hashes, nullKeys, partitionOfRow, n);
            long[] exclude = build.keepsNullKeys() || !anyNull ? null : nullKeys;
            int from = 0;
            while (true) {
                long spillsSeen = build.spills();
                int stop = rowWriter.write(batch, from, hashes, nullKeys, exclude, partitionOfRow, target);
                bytes += rowWriter.writtenBytes();
                flushStaging();
                if (stop == n) {
                    break;
                }
                if (stop == from) {
                    long pageBytes = Math.max(target[partitionOfRow[stop]].pageSize(), rowWriter.lengthOf(stop));
                    build.structure.unlockRead(index);
                    try {
                        build.spillLargestResident("a row needs a page", spillsSeen, pageBytes);
                    } catch (MemoryExhaustedException e) {
                        throw new RowTooLargeException(ctx, ctx.strategy.buildSide(), batch, stop,
                                rowWriter.lengthOf(stop), rowWriter.largestLength(stop, n, exclude));
                    } finally {
                        build.structure.lockRead(index);
                    }
                    if (!filtered) {
                        filtered = build.addToKeyFilter(index, batch, hashes, nullKeys, anyNull);
                    }
                }
                from = stop;
            }
            rowBytes += bytes;
            if (sketch != null) {
                synchronized (sketch) {
                    sketch.update(hashes, anyNull ? nullKeys : null, n, bytes);
                }
            }
        } finally {
            build.structure.unlockRead(index);
        }
    }

    /** Sends the staged rows of spilled partitions to their writers and empties the staging arena. */
    private void flushStaging() throws IOException {
        if (staging.rowCount() == 0) {
            return;
        }
        build.spillStaged(spillOrder, partitionOfRow, rowWriter.writtenRows(), rowWriter.writtenAddresses(),
                rowWriter.writtenCount());
        staging.clear();
    }

    /** Bytes of the rows this worker wrote, in the build side's row layout. */
    long rowBytes() {
        return rowBytes;
    }

    /** Frees this worker's pages; idempotent. */
    @Override
    public void close() {
        for (RowArena arena : arenas) {
            arena.close();
        }
        staging.close();
    }
}
