package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.BatchSources;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.spill.ByteSize;
import java.nio.file.Path;
import java.util.List;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The progress line, driven by a hand-moved clock (no real time involved). */
class ProgressLineTest {
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void redrawsInPlaceAtMostEveryQuarterSecondAndErasesItselfAtTheEnd() {
        StringWriter text = new StringWriter();
        AtomicLong now = new AtomicLong(1_000 * MS);
        ProgressLine progress = new ProgressLine(new PrintWriter(text), now::get);
        progress.rowsRead(Side.LEFT, 4096);
        assertThat(text.toString()).as("nothing before the first interval").isEmpty();
        now.addAndGet(ProgressLine.REDRAW_MILLIS * MS);
        progress.rowsRead(Side.RIGHT, 100);
        String first = "spilljoin: read 4,096 left + 100 right rows, wrote 0, 0:00";
        assertThat(text.toString()).isEqualTo("\r" + first);
        progress.rowsWritten(1_000_000);
        assertThat(text.toString()).as("not redrawn within the interval").isEqualTo("\r" + first);
        now.addAndGet(61_000 * MS);
        JoinStats spilled = spilledJoinStats();
        progress.watch(spilled);
        progress.rowsWritten(5);
        String second = "spilljoin: read 4,096 left + 100 right rows, wrote 1,000,005, spilled "
                + ByteSize.format(spilled.spilledBytesBuild() + spilled.spilledBytesProbe()) + " in "
                + spilled.partitions() + " partitions, 1:01";
        assertThat(text.toString()).isEqualTo("\r" + first + "\r" + second);
        progress.finish();
        assertThat(text.toString()).endsWith("\r" + " ".repeat(second.length()) + "\r");
    }

    /** The stats of a small join forced to spill every partition. */
    private JoinStats spilledJoinStats() {
        Schema schema = Schema.of(Column.of("k", ColumnType.BIGINT));
        BatchBuilder rows = new BatchBuilder(schema, 100);
        for (long k = 0; k < 1000; k++) {
            rows.addRow(k);
        }
        List<Batch> batches = rows.build();
        JoinSpec spec = JoinSpec.builder(schema, schema).on("k", "k").budgetBytes(1 << 20)
                .config(JoinConfig.builder().spillDirectory(dir).forceSpill(true).build()).build();
        try (HashJoin join = HashJoin.create(spec)) {
            join.run(BatchSources.of(batches), BatchSources.of(batches), batch -> { });
            assertThat(join.stats().partitions()).isPositive();
            assertThat(join.stats().spilledBytesBuild()).isPositive();
            return join.stats();
        }
    }

    @Test
    void theDisabledLineWritesNothing() {
        ProgressLine.DISABLED.rowsRead(Side.LEFT, 1);
        ProgressLine.DISABLED.finish();
        assertThat(ProgressLine.DISABLED.enabled()).isFalse();
        assertThat(ProgressLine.forStderr(new PrintWriter(new StringWriter()), false)).isSameAs(ProgressLine.DISABLED);
    }
}
