package dev.spilljoin.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the demo's two CSV files: workload W1 of WORKLOADS.md (foreign key, uniform), so every order row
 * matches exactly one customer row and an inner join returns as many rows as {@code orders.csv} has.
 *
 * <pre>
 * customers.csv: id = perm(i, n), score = payload(0x11, i), name = 8 letters from h(0x13, i)   (n rows)
 * orders.csv:    order_id = i, customer_id = uniform(0x21, i, n), amount = payload(0x22, i)   (n rows)
 * </pre>
 */
final class DemoData {
    static final String LEFT = "orders.csv";
    static final String RIGHT = "customers.csv";
    static final String ON = "customer_id=id";

    /** The two files written. */
    record Inputs(Path left, Path right) {
    }

    private DemoData() {
    }

    /** Writes {@code rows} customers and {@code rows} orders into {@code dir}. */
    static Inputs write(Path dir, long rows) throws IOException {
        Path orders = dir.resolve(LEFT);
        Path customers = dir.resolve(RIGHT);
        byte delimiter = CsvFormat.DEFAULT.delimiter();
        try (OutputStream out = Files.newOutputStream(customers)) {
            CsvWriter writer = new CsvWriter(out, delimiter);
            writer.writeHeader(new String[] {"id", "score", "name"});
            byte[] name = new byte[8];
            for (long i = 0; i < rows; i++) {
                writer.writeLong(perm(i, rows));
                writer.writeLong(payload(0x11, i));
                long bits = h(0x13, i);
                for (int j = 0; j < name.length; j++) {
                    name[j] = (byte) ('a' + (int) ((bits >>> (5 * j)) & 15));
                }
                writer.writeText(name, 0, name.length);
                writer.endRow();
            }
            writer.flush();
        }
        try (OutputStream out = Files.newOutputStream(orders)) {
            CsvWriter writer = new CsvWriter(out, delimiter);
            writer.writeHeader(new String[] {"order_id", "customer_id", "amount"});
            for (long i = 0; i < rows; i++) {
                writer.writeLong(i);
                writer.writeLong(Long.remainderUnsigned(h(0x21, i) >>> 1, rows));
                writer.writeLong(payload(0x22, i));
                writer.endRow();
            }
            writer.flush();
        }
        return new Inputs(orders, customers);
    }

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static long h(long seed, long i) {
        return mix64(seed + (i + 1) * 0x9E3779B97F4A7C15L);
    }

    static long payload(long seed, long i) {
        return h(seed, i) >>> 33;
    }

    static long perm(long i, long n) {
        return Long.remainderUnsigned(i * 2654435761L, n);
    }
}
