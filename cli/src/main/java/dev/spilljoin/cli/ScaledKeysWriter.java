package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The output's writer for a join whose keys were scaled to their partner's unit as read ({@link KeyScale}): before
 * a result batch is written, each such key column is divided back, in place, to its side's own stored values, so
 * that CSV and Parquet output give every key exactly as its input holds it, in any join type and from either side.
 * The batches written are the join's result batches, which it clears once written, so changing them in place is
 * safe. A loop over arrays per scaled column ({@link KeyScale#restore}); every other call is the output writer's.
 */
final class ScaledKeysWriter implements ResultWriter {
    private final ResultWriter output;
    /** Per result column, how its values were scaled, or null. */
    private final KeyScale[] scales;

    private ScaledKeysWriter(ResultWriter output, KeyScale[] scales) {
        this.output = output;
        this.scales = scales;
    }

    /** {@code output}, restoring the columns {@code scales} names (null: not scaled) first, if any. */
    static ResultWriter around(ResultWriter output, KeyScale[] scales) {
        for (KeyScale scale : scales) {
            if (scale != null) {
                return new ScaledKeysWriter(output, scales.clone());
            }
        }
        return output;
    }

    @Override
    public void write(Batch batch) throws IOException {
        for (int c = 0; c < scales.length; c++) {
            if (scales[c] != null) {
                scales[c].restore(batch.column(c), batch.rowCount());
            }
        }
        output.write(batch);
    }

    @Override
    public List<ResultWriter> lanes(int count, int bufferBytes) {
        List<ResultWriter> lanes = new ArrayList<>(count);
        for (ResultWriter lane : output.lanes(count, bufferBytes)) {
            lanes.add(new ScaledKeysWriter(lane, scales));
        }
        return lanes;
    }

    @Override
    public void finish() throws IOException {
        output.finish();
    }

    @Override
    public long rowsWritten() {
        return output.rowsWritten();
    }

    @Override
    public void close() {
        output.close();
    }
}
