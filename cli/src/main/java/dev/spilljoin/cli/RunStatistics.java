package dev.spilljoin.cli;

import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.spill.LeftoverSweep;
import dev.spilljoin.spill.MemoryReservation;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --stats} fields of a finished join, in the order they are written: the required fields,
 * then the input sizes, {@code --threads}, what the start-of-run sweep of the spill directory did, and the
 * operator's own stats object under {@code "join"}. {@code elapsed_ms} (the whole command) is added last by the
 * caller.
 */
final class RunStatistics {
    private RunStatistics() {
    }

    static Map<String, Object> of(JoinPlan plan, JoinStats join, MemoryReservation memory, InputBatches left,
                                  InputBatches right, long rowsOut, LeftoverSweep.Result leftovers) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("join_type", plan.kind().spelling());
        fields.put("build_side", join.buildSide() == null ? null
                : join.buildSide().name().toLowerCase(Locale.ROOT));
        fields.put("budget_bytes", plan.workMemBytes());
        fields.put("peak_reserved_bytes", memory.peakReserved());
        fields.put("spilled_bytes_build", join.spilledBytesBuild());
        fields.put("spilled_bytes_probe", join.spilledBytesProbe());
        fields.put("partitions", join.partitions());
        fields.put("max_recursion_depth", join.maxRecursionDepth());
        fields.put("heavy_hitter_keys", join.heavyHitterKeys());
        fields.put("rows_left", left.rowsRead());
        fields.put("rows_right", right.rowsRead());
        fields.put("rows_out", rowsOut);
        fields.put("rows_skipped", left.rowsSkipped() + right.rowsSkipped());
        fields.put("left_file_bytes", left.fileBytes());
        fields.put("right_file_bytes", right.fileBytes());
        fields.put("threads", plan.threads());
        fields.put("threads_used", join.threadsUsed());
        fields.put("leftover_spill_dirs_removed", leftovers.removed());
        fields.put("leftover_spill_dirs_kept", leftovers.kept());
        fields.put("join", new StatsJson.Json(join.toJson()));
        return fields;
    }
}
