package dev.spilljoin.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a generated table as CSV with the header {@code k,p}: rows are formatted as ASCII digits straight into a
 * reused byte buffer (no String per field), which is flushed to the file a megabyte at a time.
 */
public final class CsvWorkloadWriter {

    private static final byte[] HEADER = {'k', ',', 'p', '\n'};
    private static final int BUFFER_BYTES = 1 << 20;
    /** Longest row: two signed 19-digit longs, a comma and a newline. */
    private static final int MAX_ROW_BYTES = 2 * 20 + 2;
    private static final int CHUNK_ROWS = 1 << 14;

    private CsvWorkloadWriter() {
    }

    /** Writes the generator's build table as {@code r.csv} and its probe table as {@code s.csv} in {@code dir}. */
    public static void writeBoth(WorkloadGenerator generator, Path dir) throws IOException {
        write(generator.buildTable(), dir.resolve("r.csv"));
        write(generator.probeTable(), dir.resolve("s.csv"));
    }

    public static void write(TableSource table, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            byte[] buffer = new byte[BUFFER_BYTES];
            System.arraycopy(HEADER, 0, buffer, 0, HEADER.length);
            int[] position = {HEADER.length};
            table.forEachChunk(CHUNK_ROWS, (keys, payloads, rows) -> {
                for (int j = 0; j < rows; j++) {
                    if (position[0] > BUFFER_BYTES - MAX_ROW_BYTES) {
                        out.write(buffer, 0, position[0]);
                        position[0] = 0;
                    }
                    int at = writeDecimal(keys[j], buffer, position[0]);
                    buffer[at++] = ',';
                    at = writeDecimal(payloads[j], buffer, at);
                    buffer[at++] = '\n';
                    position[0] = at;
                }
            });
            out.write(buffer, 0, position[0]);
        }
    }

    /** Writes {@code value} in decimal at {@code at}; returns the position after the last digit. */
    static int writeDecimal(long value, byte[] buffer, int at) {
        if (value < 0) {
            buffer[at++] = '-';
            if (value == Long.MIN_VALUE) {
                byte[] digits = "9223372036854775808".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                System.arraycopy(digits, 0, buffer, at, digits.length);
                return at + digits.length;
            }
            value = -value;
        }
        int digits = 1;
        for (long rest = value / 10; rest != 0; rest /= 10) {
            digits++;
        }
        int end = at + digits;
        for (int i = end - 1; i >= at; i--) {
            buffer[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return end;
    }
}
