package dev.spilljoin.operator.table;

import dev.spilljoin.operator.row.RowArena;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.MemoryExhaustedException;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of sealed spill files as in-memory row pages, for a pass over more rows than memory holds in that form
 * (a table built over spilled partitions, whose own form is smaller than the rows'): a pass reads each file block by
 * block and expands a block's rows ({@link SpillRowFormat#expandBlock}) into a scratch page, reused for the file's
 * next block; on several threads ({@link ParallelTasks}) each thread takes a whole file at a time, with a scratch page
 * and a reader of its own ({@link #passBytes}). A pass reads through windows larger than the least it was sized
 * by when the budget has room for them ({@link #passWindow}): each window is a mapping made and unmapped, and an
 * unmapping while another thread of the process runs costs that thread's core a TLB shootdown (on this 2-vCPU VM,
 * the direct-index table's fill from W1's 26 MB of spilled build rows took 85-157 ms through 64 KB windows, 42-69 ms
 * through 256 KB ones).
 *
 * <p>Invariants: blocks are numbered in file order from 0 (a file's blocks after the earlier files'), the same in
 * every pass, and each expands into exactly one page (a scratch page is as large as the largest block's expanded
 * rows can be); a block is handed to one thread only; the files are released after every pass, sealed for the next
 * (never deleted here, unless by {@link #deleteFiles}); the scratch pages lie in a child of the given reservation,
 * freed by {@link #close}.
 */
public final class SpilledRowPages implements AutoCloseable {
    /** What a pass does on thread {@code thread} with block {@code block}: its rows' page. */
    @FunctionalInterface
    public interface BlockTask {
        void rows(int thread, int block, RowArena rows);
    }

    private final MemoryReservation memory;
    private final SpillRowFormat format;
    /** The window a pass's memory is sized by ({@link #passBytes}), and the window's step. */
    private final int windowBytes;
    private final int maxWindowBytes;
    private final int minPageBytes;
    private final List<SpillFile> files = new ArrayList<>();
    /** Per file: the number of its first block. */
    private final List<Integer> firstBlocks = new ArrayList<>();
    private long blocks;
    private long rows;
    private RowArena[] scratch = new RowArena[0];

    /**
     * Pages of rows of {@code format} read through windows of {@code windowBytes} (a multiple of 4 KiB), or of a
     * multiple of it up to {@code maxWindowBytes} when the budget has room ({@link #passWindow}), in scratch pages of
     * at least {@code minPageBytes}, whose memory comes from {@code parent}.
     */
    public SpilledRowPages(MemoryReservation parent, SpillRowFormat format, int windowBytes, int maxWindowBytes,
                           int minPageBytes) {
        this.memory = parent.newChild("spilled row pages");
        this.format = format;
        this.windowBytes = windowBytes;
        this.maxWindowBytes = Math.max(windowBytes, maxWindowBytes);
        this.minPageBytes = minPageBytes;
    }

    /** Adds a sealed file, whose blocks follow those of the files added before it. */
    public void add(SpillFile file) {
        if (scratch.length > 0) {
            throw new IllegalStateException("files are added before the first pass");
        }
        if (blocks + file.blockCount() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("more than " + Integer.MAX_VALUE + " spilled blocks");
        }
        files.add(file);
        firstBlocks.add((int) blocks);
        blocks += file.blockCount();
        rows += file.rowCount();
    }

    /** The blocks of every file: a pass hands each to its task once. */
    public int blockCount() {
        return (int) blocks;
    }

    /** The rows of every file. */
    public long rowCount() {
        return rows;
    }

    /** The threads a pass on up to {@code threads} runs on. */
    public int threadsFor(int threads) {
        return ParallelTasks.threadsFor(threads, files.size());
    }

    /**
     * The most a pass on up to {@code threads} threads reserves at once: per thread, the reader of the file with the
     * largest one and a scratch page.
     */
    public long passBytes(int threads) {
        return threadsFor(threads) * threadBytes();
    }

    /** The most threads, up to {@code threads}, whose pass fits in {@code bytes}; 0 when not even one does. */
    public int threadsFitting(int threads, long bytes) {
        return (int) Math.min(threadsFor(threads), bytes / threadBytes());
    }

    /** What one thread of a pass reserves at most: the largest reader and a scratch page. */
    private long threadBytes() {
        long reader = 0;
        for (SpillFile file : files) {
            reader = Math.max(reader, file.readerBytes(windowBytes));
        }
        return reader + pageBytes();
    }

    /**
     * The window of a pass on {@code threads} threads: {@code windowBytes}, grown in steps of it by at most half of
     * what the budget's headroom holds beyond the pass's least ({@link #passBytes}; the other half is left to
     * whatever else draws on the budget meanwhile), up to {@code maxWindowBytes}.
     */
    int passWindow(int threads) {
        long spare = memory.headroom() - threads * threadBytes();
        long window = windowBytes + Math.max(0, spare / 2 / threads);
        return (int) (Math.min(window, maxWindowBytes) / windowBytes * windowBytes);
    }

    /** A page that holds the expanded rows of any block (each row {@link SpillRowFormat#MIN_ROW_BYTES} or more). */
    private int pageBytes() {
        long largest = 0;
        for (SpillFile file : files) {
            int payload = file.maxBlockPayload();
            long rows = payload / SpillRowFormat.MIN_ROW_BYTES + 1;
            largest = Math.max(largest, format.expandedBytesBound(payload, rows));
        }
        long bytes = Math.max(minPageBytes, (largest + 7) & ~7L);
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("a spilled block of " + ByteSize.format(largest) + " expanded");
        }
        return (int) bytes;
    }

    /**
     * Reads every file from its start on {@code tasks}' threads (the caller's among them, as thread 0) and
     * hands each block's rows, expanded, to {@code task}: a file's blocks in order on one thread; the page is reused
     * once the task returns. The first failure stops the pass and is rethrown once every thread has stopped.
     *
     * @throws MemoryExhaustedException when a reader or a scratch page does not fit the reservation
     */
    public void forEachBlock(ParallelTasks tasks, BlockTask task) throws IOException {
        int n = threadsFor(tasks.threads());
        int window = passWindow(n);
        if (scratch.length < n) {
            RowArena[] more = new RowArena[n];
            System.arraycopy(scratch, 0, more, 0, scratch.length);
            for (int t = scratch.length; t < n; t++) {
                more[t] = new RowArena(memory, pageBytes());
            }
            scratch = more;
        }
        try {
            tasks.run(files.size(), (thread, f) -> { // on n threads: a file at a time
                try {
                    readFile(f, thread, window, task);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private void readFile(int f, int thread, int window, BlockTask task) throws IOException {
        SpillFile file = files.get(f);
        RowArena page = scratch[thread];
        int block = firstBlocks.get(f);
        PartitionReader reader = file.openReader(memory, window);
        try {
            while (reader.nextBlock()) {
                page.rewind();
                if (!format.expandBlock(page, reader.blockAddress(), reader.blockLength())) {
                    throw new MemoryExhaustedException("hash join: a page for the spilled rows of "
                            + file.path().getFileName() + " does not fit the " + ByteSize.format(memory.headroom())
                            + " left of the budget");
                }
                task.rows(thread, block++, page);
            }
        } finally {
            page.rewind();
            reader.release();
        }
    }

    /** Deletes every file (their rows are taken); idempotent. */
    public void deleteFiles() throws IOException {
        for (SpillFile file : files) {
            file.delete();
        }
    }

    /** Frees the scratch pages and this object's reservation; the files stay. */
    @Override
    public void close() {
        for (RowArena page : scratch) {
            page.close();
        }
        memory.close();
    }
}
