package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.Side;
import dev.spilljoin.spill.ByteSize;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The progress line, driven by a hand-moved clock (no real time involved). */
class ProgressLineTest {
    private static final long MS = 1_000_000L;

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
        progress.watch(() -> new HashJoin.SpillProgress(3 << 20, 1_234));
        progress.rowsWritten(5);
        String second = "spilljoin: read 4,096 left + 100 right rows, wrote 1,000,005, spilled "
                + ByteSize.format(3 << 20) + " in 1,234 files, 1:01";
        assertThat(text.toString()).isEqualTo("\r" + first + "\r" + second);
        progress.finish();
        assertThat(text.toString()).endsWith("\r" + " ".repeat(second.length()) + "\r");
    }

    @Test
    void theDisabledLineWritesNothing() {
        ProgressLine.DISABLED.rowsRead(Side.LEFT, 1);
        ProgressLine.DISABLED.finish();
        assertThat(ProgressLine.DISABLED.enabled()).isFalse();
        assertThat(ProgressLine.forStderr(new PrintWriter(new StringWriter()), false)).isSameAs(ProgressLine.DISABLED);
    }
}
