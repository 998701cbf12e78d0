package dev.spilljoin.spark;

import org.apache.spark.sql.Row;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A benchmark's timing loop: every contender runs once to warm up, then {@code runs} rounds run every contender in
 * turn (so a busy machine slows them alike); each run's result row goes to {@code check}; each contender's minimum
 * and median wall times are printed.
 */
final class InterleavedRuns {
    private InterleavedRuns() {
    }

    static void measure(Map<String, Supplier<Row>> contenders, int runs, BiConsumer<String, Row> check) {
        Map<String, long[]> millis = new LinkedHashMap<>();
        contenders.keySet().forEach(name -> millis.put(name, new long[runs]));
        for (int round = -1; round < runs; round++) {
            for (Map.Entry<String, Supplier<Row>> c : contenders.entrySet()) {
                long start = System.nanoTime();
                Row result = c.getValue().get();
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                check.accept(c.getKey(), result);
                if (round >= 0) {
                    millis.get(c.getKey())[round] = elapsed;
                }
            }
        }
        millis.forEach((name, times) -> {
            long[] sorted = times.clone();
            Arrays.sort(sorted);
            System.out.printf("%-32s min %6d ms  median %6d ms  runs %s%n", name, sorted[0], sorted[runs / 2],
                    Arrays.toString(times));
        });
    }
}
