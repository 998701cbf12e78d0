package dev.spilljoin.cli;

import dev.spilljoin.workloads.W1Rows;
import dev.spilljoin.workloads.WorkloadMath;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the demo's two CSV files: workload W1 of WORKLOADS.md (foreign key, uniform; {@link W1Rows}), so every
 * order row matches exactly one customer row and an inner join returns as many rows as {@code orders.csv} has.
 *
 * <pre>
 * customers.csv: id = perm(i, n), score = payload(0x11, i), name = 8 letters from h(0x13, i)   (n rows: W1's R)
 * orders.csv:    order_id = i, customer_id = uniform(0x21, i, n), amount = payload(0x22, i)   (n rows: W1's S)
 * </pre>
 */
final class DemoData {
    static final String LEFT = "orders.csv";
    static final String RIGHT = "customers.csv";
    static final String ON = "customer_id=id";
    /** The seed of the customers' names, {@code h(0x13, i)}: 8 letters of 4 bits each. */
    private static final long NAME_SEED = 0x13;

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
                writer.writeLong(W1Rows.buildKey(i, rows));
                writer.writeLong(W1Rows.buildPayload(i));
                long bits = WorkloadMath.h(NAME_SEED, i);
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
                writer.writeLong(W1Rows.probeKey(i, rows));
                writer.writeLong(W1Rows.probePayload(i));
                writer.endRow();
            }
            writer.flush();
        }
        return new Inputs(orders, customers);
    }
}
