package dev.spilljoin.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One command run to its end as a fresh process (output inherited), timed from start to exit, with its peak
 * resident set: the kernel's high-water mark {@code VmHWM} of {@code /proc/<pid>/status}, read every
 * {@value #SAMPLE_MILLIS} ms while it runs (the last reading before exit; -1 where {@code /proc} is missing). A
 * launcher that {@code exec}s its JVM (as {@code bin/spilljoin} does) keeps the pid, so the JVM is what is measured.
 *
 * @param seconds       wall seconds from start to exit
 * @param peakRssBytes  the highest VmHWM read, or -1
 */
public record MeasuredProcess(double seconds, long peakRssBytes) {
    private static final long SAMPLE_MILLIS = 20;

    /** Runs {@code command}; an exit code other than 0, or no exit within {@code timeoutMinutes}, is an IOException. */
    public static MeasuredProcess run(List<String> command, long timeoutMinutes)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).inheritIO().start();
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        long deadline = start + TimeUnit.MINUTES.toNanos(timeoutMinutes);
        long peak = -1;
        while (!process.waitFor(SAMPLE_MILLIS, TimeUnit.MILLISECONDS)) {
            peak = Math.max(peak, highWaterMark(status));
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IOException("no exit within " + timeoutMinutes + " minutes: " + String.join(" ", command));
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (process.exitValue() != 0) {
            throw new IOException("exit code " + process.exitValue() + " from " + String.join(" ", command));
        }
        return new MeasuredProcess(seconds, peak);
    }

    /** VmHWM in bytes, or -1 if the process is gone or the file has no such line. */
    private static long highWaterMark(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
                }
            }
        } catch (IOException | RuntimeException gone) {
            // the process ended between two readings
        }
        return -1;
    }
}
