package dev.spilljoin.operator;

import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionWriter;
import dev.spilljoin.spill.PartitionedSpillWriter;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;

/**
 * A {@link PartitionedSpillWriter} whose partitions draw their writer memory (a buffer per worker) from a
 * share set aside in advance, so that spilling can never be refused for want of memory. The share is this object's
 * own child reservation: it alone grows it ({@link #setAside}, {@link #setAsideOneMore}), moves one writer share of
 * it to a partition's writer just before the partition's first record ({@link MemoryReservation#transferTo}: at
 * once, so no other worker's page can take it in between), hands it on to the next pass's writer
 * ({@link #handOver}) and closes it. The spill writer itself (and so the join's spill space) is created at the
 * first record. Rows are appended encoded in one side's {@link SpillRowFormat}.
 *
 * <p>Workers: several workers spill through one writer at once ({@link #spillStaged}), the rows of a batch
 * partition by partition ({@link StagedSpillOrder}). Each worker but the first encodes into a write buffer of its own
 * per partition, a side writer of the partition's file ({@link PartitionWriter#sideWriter}) whose buffer lies in the
 * partition writer's share (a buffer for each worker, {@link SpillSizing#writerShare}): so no memory beyond the writer
 * shares, and a worker meets the others only when one of its blocks goes to the file, under the file's lock (the
 * order of blocks in a file is free). The first worker, and a worker whose side writer the share could not hold
 * (more workers than the sizing's buffers), encode into the partition's own writer under the partition's lock.
 * Opening a partition (its writer share moved, the spill writer made at the first) takes this object's lock as well.
 * {@link #finish} flushes every worker's buffers.
 * {@link #spill(int, long)} is for a caller that no other thread spills beside (the build's structure lock held for
 * writing). Everything else is called once the workers have stopped.
 */
final class ReservedSpillWriter implements AutoCloseable {
    private final JoinContext ctx;
    private final String label;
    private final SpillRowFormat format;
    private final long perPartition;
    private final int recordCapacity;
    /** Per partition: whether its writer took its share (written under its lock and this object's). */
    private final boolean[] opened;
    /** Per partition: the lock its writer's buffer is appended to under (and its side writers are made under). */
    private final Object[] partitionLocks;
    /**
     * Per partition, per worker: the worker's own (side) writer of the partition's file, null until the worker first
     * spills there or when refused ({@link #sideRefused}); worker 0 has none. Sized by {@link #orderFor} before the
     * workers start; each worker reads and writes its own slots only.
     */
    private PartitionWriter[][] sideWriters = new PartitionWriter[0][0];
    private boolean[][] sideRefused = new boolean[0][0];
    /** The writer share; null once handed over. */
    private MemoryReservation share;
    /** Made at the first record, under this object's lock; read by the workers under their partitions' locks. */
    private volatile PartitionedSpillWriter writer;

    private ReservedSpillWriter(JoinContext ctx, String label, int partitions, MemoryReservation share,
                                SpillRowFormat format) {
        this.ctx = ctx;
        this.label = label;
        this.format = format;
        this.share = share;
        this.perPartition = ctx.sizing.writerShare();
        this.recordCapacity = ctx.sizing.recordCapacity();
        this.opened = new boolean[partitions];
        this.partitionLocks = new Object[partitions];
        for (int p = 0; p < partitions; p++) {
            partitionLocks[p] = new Object();
        }
    }

    /**
     * A writer of {@code partitions} partitions with {@code shares} writer shares set aside from the join's budget;
     * fails naming the shortfall when the budget cannot hold them.
     */
    static ReservedSpillWriter setAside(JoinContext ctx, String label, int partitions, int shares,
                                        SpillRowFormat format) {
        MemoryReservation share = ctx.memory.newChild("spill-writer-share");
        long bytes = shares * ctx.sizing.writerShare();
        if (!share.tryGrow(bytes)) {
            share.close();
            throw new MemoryExhaustedException("hash join: cannot set aside " + ByteSize.format(bytes)
                    + " for its spill writers (" + ctx.sizing.describe() + "): only "
                    + ByteSize.format(ctx.memory.headroom()) + " of the budget is free");
        }
        return new ReservedSpillWriter(ctx, label, partitions, share, format);
    }

    /** Sets one more writer share aside; false (nothing changed) when the budget refuses it. */
    boolean setAsideOneMore() {
        return share.tryGrow(perPartition);
    }

    /** Whether a whole writer share is set aside for the next partition to open. */
    boolean hasShareForOneMore() {
        return share.reserved() >= perPartition;
    }

    /**
     * Gives the set-aside shares beyond {@code keep} back to the budget (shares no partition's writer took yet: the
     * partitions that will never spill need none).
     */
    void releaseUnopened(int keep) {
        long excess = share.reserved() - keep * perPartition;
        if (excess > 0) {
            share.shrink(excess);
        }
    }

    /**
     * A new order of staged rows for worker {@code worker} of {@code workers} spilling through this writer; made for
     * every worker before any of them spills.
     */
    StagedSpillOrder orderFor(int worker, int workers) {
        if (sideWriters.length == 0 || sideWriters[0].length < workers) {
            sideWriters = new PartitionWriter[opened.length][workers];
            sideRefused = new boolean[opened.length][workers];
        }
        return new StagedSpillOrder(opened.length, worker, workers);
    }

    /**
     * Appends a worker's staged rows ({@code m}: batch rows {@code rows}, the in-memory rows at {@code addresses}) to
     * their partitions' files ({@code partitionOfRow} by batch row; only partitions {@code only} marks, every one when
     * it is null), grouped by the worker's {@code order}, a partition at a time, in a round starting at the worker's
     * own first partition: into the worker's own side writer of the partition's file when it has one (no lock; whole
     * blocks reach the file under the file's lock), else into the partition's writer under the partition's lock. The
     * rows are encoded as {@link #spill(int, long)} encodes them.
     */
    void spillStaged(StagedSpillOrder order, int[] partitionOfRow, int[] rows, long[] addresses, int m,
                     boolean[] only) throws IOException {
        order.group(partitionOfRow, rows, m, only);
        int partitions = order.partitions();
        for (int k = 0, first = order.firstPartition(); k < partitions; k++) {
            int p = (first + k) % partitions;
            if (order.from(p) == order.to(p)) {
                continue;
            }
            PartitionWriter own = order.worker() == 0 ? null : sideWriter(p, order.worker());
            if (own != null) {
                appendPartition(own, order, p, addresses);
            } else {
                synchronized (partitionLocks[p]) {
                    appendPartition(writerOpenedFor(p).partition(p), order, p, addresses);
                }
            }
        }
    }

    /** Appends partition {@code p}'s rows of {@code order} to {@code target}. */
    private void appendPartition(PartitionWriter target, StagedSpillOrder order, int p, long[] addresses)
            throws IOException {
        for (int i = order.from(p), to = order.to(p); i < to; i++) {
            append(target, addresses[order.stagedRow(i)]);
        }
    }

    /**
     * Worker {@code worker}'s side writer of partition {@code p}'s file, made at its first use out of the partition
     * writer's share; null when that share holds no further buffer (the worker then shares the partition's writer
     * under its lock).
     */
    private PartitionWriter sideWriter(int p, int worker) throws IOException {
        PartitionWriter side = sideWriters[p][worker];
        if (side != null || sideRefused[p][worker]) {
            return side;
        }
        synchronized (partitionLocks[p]) {
            side = writerOpenedFor(p).partition(p).sideWriter();
        }
        sideWriters[p][worker] = side;
        sideRefused[p][worker] = side == null;
        return side;
    }

    /**
     * Appends the in-memory row at {@code row} to partition {@code p}; only while no other thread spills through this
     * writer. See {@link #append} for the encoding.
     */
    void spill(int p, long row) throws IOException {
        append(writerOpenedFor(p).partition(p), row);
    }

    /**
     * The spill writer, with partition {@code p} opened (its share taken); the caller holds p's lock or spills alone.
     */
    private PartitionedSpillWriter writerOpenedFor(int p) {
        PartitionedSpillWriter current = writer;
        return current != null && opened[p] ? current : open(p);
    }

    private synchronized PartitionedSpillWriter open(int p) {
        if (writer == null) {
            writer = ctx.space().newPartitionedWriter(label, opened.length, ctx.memory, ctx.sizing.bufferBytes(),
                    ctx.sizing.writerBuffers());
        }
        if (!opened[p]) {
            opened[p] = true;
            writer.takeFrom(p, share, Math.min(perPartition, share.reserved()));
        }
        return writer;
    }

    /**
     * Appends the in-memory row at {@code row} to {@code target}, encoded in the {@link SpillRowFormat}: straight into
     * the writer's buffer, or, for a row larger than the buffer, encoded over itself first (so the caller must not
     * read the row afterwards).
     */
    private void append(PartitionWriter target, long row) throws IOException {
        int length = format.encodedLength(row);
        if (length <= recordCapacity) {
            format.encode(row, target.reserveRecord(length), length);
        } else {
            format.encode(row, row, length);
            target.append(row, length);
        }
    }

    /** Write buffers the workers took of their own (side writers made); once the workers have stopped. */
    int workerBuffers() {
        int n = 0;
        for (PartitionWriter[] ofPartition : sideWriters) {
            for (PartitionWriter side : ofPartition) {
                n += side == null ? 0 : 1;
            }
        }
        return n;
    }

    /** Times a worker's own buffer was refused (the writer share full); once the workers have stopped. */
    int workerBuffersRefused() {
        int n = 0;
        for (boolean[] ofPartition : sideRefused) {
            for (boolean refused : ofPartition) {
                n += refused ? 1 : 0;
            }
        }
        return n;
    }

    /**
     * Seals every partition's file, each worker's side writer flushed first; the writers' memory goes back to the
     * budget. Only once every worker has stopped.
     */
    void finish() throws IOException {
        if (writer != null) {
            writer.finish();
        }
    }

    /**
     * Seals the files of the partitions {@code which} marks that received a record, ahead of {@link #finish} (which
     * then leaves them as they are), each worker's side writer flushed first; their writers' memory goes back to the
     * budget. Only once every worker has stopped writing to them.
     */
    void finishPartitions(boolean[] which) throws IOException {
        for (int p = 0; p < which.length; p++) {
            if (which[p] && opened[p] && !writer.partition(p).isFinished()) {
                writer.finish(p);
            }
        }
    }

    /** Whether partition {@code p} received a record. */
    boolean used(int p) {
        return opened[p];
    }

    /** Whether any record was written (the spill writer, and its files, exist). */
    boolean started() {
        return writer != null;
    }

    /** The sealed file of partition {@code p} (after {@link #finish()}; empty if it received no record). */
    SpillFile file(int p) {
        return writer.file(p);
    }

    /**
     * What {@link #handOver} with {@code shares} writer shares would take from the budget beyond the share held now:
     * memory a table chosen before the hand-over must leave free (the writers of partitions sealed early gave theirs
     * back to the budget).
     */
    long handOverShortfall(int shares) {
        return Math.max(0, shares * perPartition - share.reserved());
    }

    /**
     * After {@link #finish()}: moves the share to a new writer of {@code partitions} partitions holding
     * {@code shares} writer shares, taking what it lacks from the budget (the opened partitions' writers have given
     * theirs back to it) or giving back what it holds beyond them. This writer owns no share afterwards.
     */
    ReservedSpillWriter handOver(String nextLabel, int partitions, int shares, SpillRowFormat nextFormat) {
        long excess = share.reserved() - shares * perPartition;
        if (excess > 0) {
            share.shrink(excess);
        } else if (excess < 0 && !share.tryGrow(-excess)) {
            throw new MemoryExhaustedException("hash join: could not set aside " + ByteSize.format(-excess)
                    + " of spill writer memory for the " + nextLabel + " writers");
        }
        ReservedSpillWriter next = new ReservedSpillWriter(ctx, nextLabel, partitions, share, nextFormat);
        share = null;
        return next;
    }

    /** Closes the writer (deleting nothing: its sealed files belong to the spill space) and the share; idempotent. */
    @Override
    public void close() {
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            if (share != null) {
                share.close();
                share = null;
            }
        }
    }
}
