package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.workloads.W1Rows;
import dev.spilljoin.workloads.WorkloadMath;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Writes the demo's two input files, CSV or Parquet: workload W1 of WORKLOADS.md (foreign key, uniform;
 * {@link W1Rows}), so every order row matches exactly one customer row and an inner join returns as many rows as
 * {@code orders} has.
 *
 * <pre>
 * customers: id = perm(i, n), score = payload(0x11, i), name = 8 letters from h(0x13, i)   (n rows: W1's R)
 * orders:    order_id = i, customer_id = uniform(0x21, i, n), amount = payload(0x22, i)   (n rows: W1's S)
 * </pre>
 *
 * The rows are made in batches and written by the output writers ({@link BatchCsvWriter}, {@link ParquetResultWriter}),
 * so both formats hold the same values (integers as INT64 in Parquet, the name as a string).
 */
final class DemoData {
    static final String LEFT = "orders.csv";
    static final String RIGHT = "customers.csv";
    static final String ON = "customer_id=id";
    /** The seed of the customers' names, {@code h(0x13, i)}: 8 letters of 4 bits each. */
    private static final long NAME_SEED = 0x13;
    private static final int BATCH_ROWS = 4096;
    private static final Schema CUSTOMERS = Schema.of(Column.of("id", ColumnType.BIGINT),
            Column.of("score", ColumnType.BIGINT), Column.of("name", ColumnType.VARCHAR));
    private static final Schema ORDERS = Schema.of(Column.of("order_id", ColumnType.BIGINT),
            Column.of("customer_id", ColumnType.BIGINT), Column.of("amount", ColumnType.BIGINT));

    /** The two files written. */
    record Inputs(Path left, Path right) {
    }

    private DemoData() {
    }

    /** Writes {@code orders.csv} and {@code customers.csv} of {@code rows} rows each into {@code dir}. */
    static Inputs write(Path dir, long rows) throws IOException {
        return write(dir, rows, DataFormat.CSV);
    }

    /** Writes the two files in {@code format} ({@code .csv} or {@code .parquet}). */
    static Inputs write(Path dir, long rows, DataFormat format) throws IOException {
        String extension = format == DataFormat.PARQUET ? ".parquet" : ".csv";
        Path orders = dir.resolve(LEFT.replace(".csv", extension));
        Path customers = dir.resolve(RIGHT.replace(".csv", extension));
        writeTable(customers, CUSTOMERS, format, rows, true);
        writeTable(orders, ORDERS, format, rows, false);
        return new Inputs(orders, customers);
    }

    private static void writeTable(Path file, Schema schema, DataFormat format, long rows, boolean customers)
            throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            String[] names = schema.names().toArray(new String[0]);
            ResultWriter writer;
            if (format == DataFormat.PARQUET) {
                ColumnType[] types = {ColumnType.BIGINT, ColumnType.BIGINT, customers ? ColumnType.VARCHAR
                    : ColumnType.BIGINT};
                writer = new ParquetResultWriter(out, names, types, new PrimitiveType[types.length],
                        CompressionCodecName.SNAPPY);
            } else {
                writer = BatchCsvWriter.open(out, CsvCompression.NONE, CsvFormat.DEFAULT.delimiter(), names,
                        new PrimitiveType[names.length]);
            }
            Batch batch = new Batch(schema, BATCH_ROWS);
            byte[] name = new byte[8];
            for (long first = 0; first < rows; first += BATCH_ROWS) {
                int n = (int) Math.min(BATCH_ROWS, rows - first);
                batch.reset();
                ColumnVector a = batch.column(0);
                ColumnVector b = batch.column(1);
                ColumnVector c = batch.column(2);
                for (int r = 0; r < n; r++) {
                    long i = first + r;
                    if (customers) {
                        a.setLong(r, W1Rows.buildKey(i, rows));
                        b.setLong(r, W1Rows.buildPayload(i));
                        long bits = WorkloadMath.h(NAME_SEED, i);
                        for (int j = 0; j < name.length; j++) {
                            name[j] = (byte) ('a' + (int) ((bits >>> (5 * j)) & 15));
                        }
                        c.setBytes(r, name, 0, name.length);
                    } else {
                        a.setLong(r, i);
                        b.setLong(r, W1Rows.probeKey(i, rows));
                        c.setLong(r, W1Rows.probePayload(i));
                    }
                }
                batch.setRowCount(n);
                writer.write(batch);
            }
            writer.finish();
        }
    }
}
