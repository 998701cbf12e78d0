package dev.spilljoin.estimator;

import dev.spilljoin.workloads.ZipfDistribution;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;

import org.apache.datasketches.frequencies.LongsSketch;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;

/**
 * The update cost per row of the key sketches (a plain main, not a test): 10M key hashes in batches of 1024, uniform
 * distinct keys and Zipf(1.1) over 1M keys, each sketch alone (and DataSketches' HyperLogLog, which ours replaced) and
 * {@link KeySketches} with and without sampling.
 * Run from the repository root:
 * <pre>
 * mvn -B -q test-compile dependency:build-classpath -pl estimator -Dmdep.outputFile=/tmp/estimator-cp.txt
 * java -Xmx2g -cp estimator/target/test-classes:estimator/target/classes:$(cat /tmp/estimator-cp.txt) \
 *     dev.spilljoin.estimator.KeySketchesBenchmark
 * </pre>
 * Each configuration runs 5 rounds; the last is printed (the earlier ones warm up the JIT). Times are the thread's
 * CPU time, as other builds share this machine.
 */
public final class KeySketchesBenchmark {
    private static final int ROWS = 10_000_000;
    private static final int BATCH = 1024;
    private static final int ROUNDS = 5;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private KeySketchesBenchmark() {
    }

    /** This thread's CPU time: steadier than wall time on a machine other processes load. */
    private static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    public static void main(String[] args) {
        long[] uniform = KeyData.distinctHashes(ROWS, 1);
        ZipfDistribution zipf = ZipfDistribution.ofExponent(1_000_000, 1.1);
        SplittableRandom random = new SplittableRandom(2);
        long[] skewed = new long[ROWS];
        for (int i = 0; i < ROWS; i++) {
            skewed[i] = KeyData.fmix64(zipf.rank(random.nextDouble()));
        }
        for (String name : new String[] {"uniform", "zipf1.1"}) {
            long[] hashes = name.equals("uniform") ? uniform : skewed;
            for (int round = 0; round < ROUNDS; round++) {
                boolean last = round == ROUNDS - 1;
                report(last, name, "HyperLogLog lgK=15 alone", hyperLogLog(hashes));
                report(last, name, "DataSketches HllSketch lgK=15 HLL_8 alone", hllSketch(hashes));
                report(last, name, "LongsSketch 2048 alone", longs(hashes));
                report(last, name, "KeySketches every row (exact bounds)",
                        sketches(hashes, SketchConfig.BUILD.frequentItemsEveryKthRow(1)));
                report(last, name, "KeySketches BUILD (frequent items 1 in 16 rows)",
                        sketches(hashes, SketchConfig.BUILD));
                report(last, name, "KeySketches BUILD, every 8th batch (probe sample)",
                        sketches(hashes, SketchConfig.BUILD.sampleEveryKthBatch(8)));
            }
        }
    }

    private static void report(boolean print, String data, String what, long nanos) {
        if (print) {
            System.out.printf("%-8s %-50s %6.2f ns/row%n", data, what, (double) nanos / ROWS);
        }
    }

    private static long hyperLogLog(long[] hashes) {
        long start = cpuNanos();
        HyperLogLog counter = new HyperLogLog(15);
        for (long h : hashes) {
            counter.add(h);
        }
        long nanos = cpuNanos() - start;
        sink(counter.estimate());
        return nanos;
    }

    private static long hllSketch(long[] hashes) {
        long start = cpuNanos();
        HllSketch sketch = new HllSketch(15, TgtHllType.HLL_8);
        for (long h : hashes) {
            sketch.update(h);
        }
        long nanos = cpuNanos() - start;
        sink(sketch.getEstimate());
        return nanos;
    }

    private static long longs(long[] hashes) {
        long start = cpuNanos();
        LongsSketch sketch = new LongsSketch(2048);
        for (long h : hashes) {
            sketch.update(h);
        }
        long nanos = cpuNanos() - start;
        sink(sketch.getMaximumError());
        return nanos;
    }

    private static long sketches(long[] hashes, SketchConfig config) {
        long[] batch = new long[BATCH];
        long start = cpuNanos();
        KeySketches sketches = new KeySketches(config);
        for (int from = 0; from < hashes.length; from += BATCH) {
            int n = Math.min(BATCH, hashes.length - from);
            System.arraycopy(hashes, from, batch, 0, n);
            sketches.update(batch, n, 16L * n);
        }
        long nanos = cpuNanos() - start;
        sink(sketches.distinctEstimate());
        return nanos;
    }

    private static double sinkValue;

    private static void sink(double value) {
        sinkValue += value;
        if (sinkValue == 42.4242) {
            System.out.println(sinkValue);
        }
    }
}
