package dev.spilljoin.operator;

import dev.spilljoin.operator.row.HashFunctions;
import dev.spilljoin.operator.row.SpillRowFormat;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.spill.PartitionReader;
import dev.spilljoin.spill.PartitionedSpillWriter;
import dev.spilljoin.spill.SpillFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a spilled pair that does not fit into {@code 2^bits} pairs of the next level: each row goes to the child
 * picked by h1 at level + 1 ({@link HashFunctions#partitionOf}, a new seed over the same stored hash, so a partition
 * of level n really splits at level n + 1). Rows are copied as they are, still encoded ({@link SpillRowFormat}: hash, flags and all); NULL-key rows, whose
 * hash means nothing, go to child 0. The build file is split first, then the probe file; each is deleted as it is
 * read.
 *
 * <p>Memory: one reader plus one writer per child while a side is split, reserved by the spill module from the
 * join's reservation ({@code (read window + buffer) + 2^bits × buffer}; the planner chose
 * {@code bits} so that this fits the memory free, {@link SpillSizing#repartitionFanoutLog2}).
 */
final class Repartitioner {
    private Repartitioner() {
    }

    /**
     * The children of {@code pair} at level + 1, with their stuck marks (see {@link SpillPair}); the reader and the
     * writers draw from {@code memory} (the worker's share of the budget).
     */
    static List<SpillPair> split(JoinContext ctx, MemoryReservation memory, PairCounters counters, SpillPair pair,
                                 int bits) throws IOException {
        int level = pair.level() + 1;
        int fanout = 1 << bits;
        SpillFile[] build = splitFile(ctx, memory, pair.build(), ctx.buildFormat, level, bits, "build");
        SpillFile[] probe = splitFile(ctx, memory, pair.probe(), ctx.probeFormat, level, bits, "probe");
        List<SpillPair> children = new ArrayList<>();
        long parentRows = pair.buildRows();
        int created = 0;
        for (int p = 0; p < fanout; p++) {
            long rows = build[p] == null ? 0 : build[p].rowCount();
            if (rows > 0 || (probe[p] != null && probe[p].rowCount() > 0)) {
                created++;
            }
            boolean stuck = parentRows > 0 && rows * 10 >= parentRows * 9;
            children.add(new SpillPair(build[p], probe[p], level, p, stuck, false));
            if (build[p] != null) {
                counters.spilledBytesBuild += build[p].length();
            }
            if (probe[p] != null) {
                counters.spilledBytesProbe += probe[p].length();
            }
        }
        counters.countPartitions(level, created);
        counters.recordFanout(level, fanout);
        counters.maxRecursionDepth = Math.max(counters.maxRecursionDepth, level);
        return children;
    }

    private static SpillFile[] splitFile(JoinContext ctx, MemoryReservation memory, SpillFile file,
                                         SpillRowFormat format, int level, int bits, String side) throws IOException {
        SpillFile[] out = new SpillFile[1 << bits];
        if (file == null) {
            return out;
        }
        try (PartitionReader reader = file.openReader(memory, ctx.sizing.readWindowBytes());
             PartitionedSpillWriter writer = ctx.space().newPartitionedWriter(side + "-L" + level, 1 << bits,
                     memory, ctx.sizing.bufferBytes(), 1)) {
            while (reader.nextBlock()) {
                long row = reader.blockAddress();
                long end = row + reader.blockLength();
                while (row < end) {
                    int length = format.rowLength(row);
                    int p = format.hasNullKey(row) ? 0
                            : HashFunctions.partitionOf(format.hash(row), level, bits);
                    writer.append(p, row, length);
                    row += length;
                }
            }
            writer.finish();
            for (int p = 0; p < out.length; p++) {
                out[p] = writer.file(p);
            }
        }
        return out;
    }
}
