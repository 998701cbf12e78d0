package dev.spilljoin.cli;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.Side;
import dev.spilljoin.spill.ByteSize;
import java.io.PrintWriter;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The progress bar on stderr: one line redrawn in place with {@code \r}, showing rows read per side, rows out,
 * bytes spilled and spill files made so far (read live from the join, {@link HashJoin#spillProgress()}, once
 * something spilled) and the elapsed time. It is redrawn from the
 * threads that report progress, at most every {@value #REDRAW_MILLIS} ms (per input batch handed to the join, per
 * result batch written or handed to the writer thread, on the join's thread; per result batch a worker wrote, on
 * that worker's: see {@link CsvPipeline}): no extra thread and nothing to stop; one lock per batch keeps the counts
 * and the line whole. {@link #finish()} erases the line.
 *
 * <p>Shown only when stderr is a terminal and not {@code --quiet} ({@link #stderrIsTerminal()}); otherwise
 * {@link #DISABLED} ignores every call.
 */
final class ProgressLine {
    static final long REDRAW_MILLIS = 250;
    static final ProgressLine DISABLED = new ProgressLine(null, System::nanoTime);
    /** Set by {@code bin/spilljoin} from the shell's {@code [ -t 2 ]}, since Java cannot ask about stderr alone. */
    static final String TERMINAL_PROPERTY = "spilljoin.stderr.terminal";

    private final PrintWriter err;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private long nextRedrawNanos;
    private long leftRows;
    private long rightRows;
    private long rowsOut;
    private Supplier<HashJoin.SpillProgress> spill;
    private int lastLength;

    ProgressLine(PrintWriter err, LongSupplier nanoClock) {
        this.err = err;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.nextRedrawNanos = startNanos + REDRAW_MILLIS * 1_000_000;
    }

    /** A progress line on {@code err} when {@code wanted} (not --quiet) and stderr is a terminal, else DISABLED. */
    static ProgressLine forStderr(PrintWriter err, boolean wanted) {
        return wanted && stderrIsTerminal() ? new ProgressLine(err, System::nanoTime) : DISABLED;
    }

    /** The launcher's answer when it gave one; otherwise whether the JVM has a console (stdin and stdout ttys). */
    static boolean stderrIsTerminal() {
        String told = System.getProperty(TERMINAL_PROPERTY);
        return told != null ? Boolean.parseBoolean(told) : System.console() != null;
    }

    synchronized void rowsRead(Side side, int rows) {
        if (err == null) {
            return;
        }
        if (side == Side.LEFT) {
            leftRows += rows;
        } else {
            rightRows += rows;
        }
        maybeRedraw();
    }

    synchronized void rowsWritten(int rows) {
        if (err == null) {
            return;
        }
        rowsOut += rows;
        maybeRedraw();
    }

    /** Where the running join's spill progress is read at each redraw ({@link HashJoin#spillProgress()}). */
    void watch(Supplier<HashJoin.SpillProgress> spillProgress) {
        spill = spillProgress;
    }

    boolean enabled() {
        return err != null;
    }

    /** Erases the line (the command's own output, if any, follows on a clean line). */
    synchronized void finish() {
        if (err == null || lastLength == 0) {
            return;
        }
        err.print("\r" + " ".repeat(lastLength) + "\r");
        err.flush();
        lastLength = 0;
    }

    private void maybeRedraw() {
        long now = nanoClock.getAsLong();
        if (now - nextRedrawNanos < 0) {
            return;
        }
        nextRedrawNanos = now + REDRAW_MILLIS * 1_000_000;
        String line = render(now);
        err.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        err.flush();
        lastLength = line.length();
    }

    String render(long nowNanos) {
        long seconds = (nowNanos - startNanos) / 1_000_000_000L;
        StringBuilder line = new StringBuilder("spilljoin: read ")
                .append(String.format("%,d", leftRows)).append(" left + ")
                .append(String.format("%,d", rightRows)).append(" right rows, wrote ")
                .append(String.format("%,d", rowsOut));
        HashJoin.SpillProgress spilled = spill == null ? null : spill.get();
        if (spilled != null && spilled.bytesWritten() > 0) {
            line.append(", spilled ").append(ByteSize.format(spilled.bytesWritten())).append(" in ")
                    .append(String.format("%,d", spilled.filesCreated())).append(" files");
        }
        return line.append(String.format(", %d:%02d", seconds / 60, seconds % 60)).toString();
    }
}
