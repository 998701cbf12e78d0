package dev.spilljoin.operator;

import dev.spilljoin.spill.ByteSize;
import dev.spilljoin.spill.PartitionWriter;

/**
 * The memory plan of one hybrid join: the level-0 fanout, the spill buffer and mapped window of each spilled
 * partition, the row page size, and the minimum budget they need. Chosen once, before the build, from the budget
 * {@code B}, the build side's size hints and the {@link JoinConfig} overrides.
 *
 * <pre>
 * estimate E   = serialized build bytes + table: rows × 48 + bytes (hints; 3 × bytes if only bytes are known)
 * fanout F     = 2^k, 16 ≤ F ≤ 1024: the smallest with E / F ≤ B / 2 (each spilled pair then loads in one go);
 *                unknown E: as many as the writer share allows; never more than B / 3 / 8 KiB
 * per-partition writer share  w = buffer + window ≤ max(8 KiB, B / (3F)); B / (2F) when E &gt; 4B (then few
 *                partitions stay resident anyway, and larger windows cut the mappings); 8 KiB when E ≤ B / 2
 *                (nothing is expected to spill, so little is set aside; a wrong hint costs speed, not correctness)
 *                buffer = clamp(2^⌊log2(w/8)⌋, 4 KiB, 64 KiB), window = clamp(w − buffer, 4 KiB, 1 MiB) in pages
 * read window  = max(window, min(1 MiB, 2^⌊log2(B/8)⌋)), halved while the minimum exceeds B: readers of sealed files map larger windows (the pair
 *                phase has the budget to itself; each mapping costs ~1 ms here, whatever its size)
 * row page     = min(configured page, max(64, B / (8F)))   (F partially filled pages must not eat the budget)
 * minimum(B)   = max(build: F·w + 4 pages + 128,  re-partition: (window + buffer) + min(F,16)·w,
 *                    pair: 2·(read window + buffer) + w + pair page + table(a block of the smallest
 *                    encoded rows: buffer / 10))
 *                (the pair term is the nested-loop path: two readers, a writer, and a chunk of one block)
 * </pre>
 *
 * <p>Why these shares: during the build and the probe pass every spilled partition holds one writer (buffer plus
 * mapped window), so {@code F·w} is set aside up front (a third of the budget at most) and the rest holds resident
 * partitions and their table. Windows are as large as the share allows (1 MiB windows write about 8× faster than
 * 64 KiB ones here), but 1 MB budgets must work, so they shrink to 4 KiB.
 */
record SpillSizing(int fanoutLog2, int bufferBytes, int windowBytes, int readWindowBytes, int pageSize,
                   long minimumBudget) {
    static final int MIN_AUTO_FANOUT_LOG2 = 4;
    static final int MAX_FANOUT_LOG2 = 10;
    /** Fanout of re-partitioning levels (at most the level-0 fanout). */
    static final int REPARTITION_FANOUT_LOG2 = 4;
    private static final int MIN_BUFFER = 4096;
    private static final int MAX_BUFFER = 64 * 1024;
    private static final int MIN_WINDOW = 4096;
    private static final int MAX_WINDOW = 1 << 20;
    private static final long TABLE_MIN = JoinHashTable.directoryBytes(0);

    static SpillSizing choose(JoinConfig config, long budget, long hintBytes, long hintRows) {
        long estimate = hintRows >= 0 ? hintRows * 48 + Math.max(0, hintBytes) : hintBytes >= 0 ? 3 * hintBytes : -1;
        int log2;
        if (config.fanoutLog2() > 0) {
            log2 = config.fanoutLog2();
        } else {
            int maxByShare = Math.max(MIN_AUTO_FANOUT_LOG2,
                    Math.min(MAX_FANOUT_LOG2, floorLog2(budget / 3 / (MIN_BUFFER + MIN_WINDOW))));
            if (estimate < 0) {
                log2 = Math.min(maxByShare, Math.max(MIN_AUTO_FANOUT_LOG2, floorLog2(budget / 4 / (80 * 1024))));
            } else {
                long partitions = (estimate + budget / 2 - 1) / Math.max(1, budget / 2);
                log2 = Math.min(maxByShare, Math.max(MIN_AUTO_FANOUT_LOG2, ceilLog2(partitions)));
            }
        }
        int fanout = 1 << log2;
        long writers = estimate > 4 * budget ? budget / 2
                : estimate >= 0 && estimate <= budget / 2 ? (long) fanout * (MIN_BUFFER + MIN_WINDOW) : budget / 3;
        long share = Math.max(MIN_BUFFER + MIN_WINDOW, writers / fanout);
        int buffer = config.spillBufferBytes() > 0 ? config.spillBufferBytes()
                : (int) clamp(Long.highestOneBit(share / 8), MIN_BUFFER, MAX_BUFFER);
        int window = config.spillWindowBytes() > 0 ? config.spillWindowBytes()
                : (int) clamp((share - buffer) & ~4095L, MIN_WINDOW, MAX_WINDOW);
        int readWindow = (int) Math.max(window, clamp(Long.highestOneBit(budget / 8) & ~4095L, MIN_WINDOW, MAX_WINDOW));
        int page = (int) Math.min(config.pageSize(), Math.max(64, (budget / (8L * fanout)) & ~7L));
        while (readWindow > window && minimum(fanout, buffer, window, readWindow, page) > budget) {
            readWindow = Math.max(window, (readWindow / 2) & ~4095);
        }
        return new SpillSizing(log2, buffer, window, readWindow, page,
                minimum(fanout, buffer, window, readWindow, page));
    }

    private static long minimum(int fanout, int buffer, int window, int readWindow, int page) {
        long share = PartitionWriter.memoryBytes(buffer, window);
        long reader = (long) readWindow + buffer;
        long build = fanout * share + 4L * page + TABLE_MIN;
        long repartition = reader + Math.min(fanout, 1 << REPARTITION_FANOUT_LOG2) * share;
        long pair = 2 * reader + share + pairPageSize(page, buffer) + JoinHashTable.directoryBytes(buffer / SpillRowFormat.MIN_ROW_BYTES);
        return Math.max(build, Math.max(repartition, pair));
    }

    /** The smallest budget any join accepts with automatic sizing: {@code choose} at the smallest shares. */
    static long absoluteMinimum(JoinConfig config) {
        return choose(config, 1, -1, -1).minimumBudget();
    }

    int fanout() {
        return 1 << fanoutLog2;
    }

    int repartitionFanoutLog2() {
        return Math.min(fanoutLog2, REPARTITION_FANOUT_LOG2);
    }

    /** Memory one spilled partition's writer holds: its buffer and its mapped window. */
    long writerShare() {
        return PartitionWriter.memoryBytes(bufferBytes, windowBytes);
    }

    /** Pages spilled pairs are loaded into (many blocks' rows each). */
    int pairPageSize() {
        return pairPageSize(pageSize, bufferBytes);
    }

    /** The largest record a spill writer's buffer takes (its block header aside); larger ones go as their own block. */
    int recordCapacity() {
        return bufferBytes - 8;
    }

    private static int pairPageSize(int page, int buffer) {
        return Math.max(page, 8 * buffer);
    }

    /**
     * The most new page memory {@code rows} rows of {@code bytes} in all, none longer than {@code largestRow}, take
     * when allocated one after the other in pages of pairPageSize() (a {@link RowArena}): one page if they fit one
     * (or a row longer than a page: its own length); with rows of at most half a page, every page but the last holds
     * more than {@code page − largestRow}; else a page and the next page's first row together exceed a page, and
     * rows longer than a page take exactly their own length.
     */
    long pairPagesBound(long bytes, long rows, long largestRow) {
        long page = pairPageSize();
        if (bytes <= page || rows == 1) {
            return bytes == 0 ? 0 : Math.max(page, bytes);
        }
        if (largestRow <= page / 2) {
            long usable = page - largestRow;
            return ((bytes + usable - 1) / usable + 1) * page;
        }
        return 2 * bytes + page;
    }

    String describe() {
        return "fanout " + fanout() + ", spill buffer " + ByteSize.format(bufferBytes) + ", window "
                + ByteSize.format(windowBytes) + ", row page " + ByteSize.format(pageSize);
    }

    private static long clamp(long v, long lo, long hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    private static int floorLog2(long v) {
        return v <= 1 ? 0 : 63 - Long.numberOfLeadingZeros(v);
    }

    private static int ceilLog2(long v) {
        return v <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(v - 1);
    }
}
