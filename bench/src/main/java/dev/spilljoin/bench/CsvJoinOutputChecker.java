package dev.spilljoin.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a join's CSV output with the header and the columns {@code s.k, s.p, r.k, r.p} (DuckDB's
 * {@code SELECT * FROM s JOIN r}), checks that every row's two keys are equal, and returns the row count and
 * {@code sum(r.p + s.p)} to compare with the reference. Parses bytes in a reused buffer: no object per row.
 */
public final class CsvJoinOutputChecker {

    private static final int COLUMNS = 4;

    private CsvJoinOutputChecker() {
    }

    public static JoinResult check(Path file) throws IOException {
        long[] fields = new long[COLUMNS];
        long count = 0;
        long sum = 0;
        long line = 1;
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 20];
            boolean header = true;
            int field = 0;
            long value = 0;
            boolean negative = false;
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                for (int i = 0; i < n; i++) {
                    byte b = buffer[i];
                    if (header) {
                        if (b == '\n') {
                            header = false;
                            line++;
                        }
                    } else if (b >= '0' && b <= '9') {
                        value = value * 10 + (b - '0');
                    } else if (b == '-') {
                        negative = true;
                    } else if (b == ',' || b == '\n') {
                        if (field >= COLUMNS) {
                            throw new IOException(file + " line " + line + ": more than " + COLUMNS + " columns");
                        }
                        fields[field++] = negative ? -value : value;
                        value = 0;
                        negative = false;
                        if (b == '\n') {
                            if (field != COLUMNS) {
                                throw new IOException(file + " line " + line + ": " + field + " columns, expected " + COLUMNS);
                            }
                            if (fields[0] != fields[2]) {
                                throw new IOException(file + " line " + line + ": joined keys differ: " + fields[0] + " and " + fields[2]);
                            }
                            count++;
                            sum += fields[1] + fields[3];
                            field = 0;
                            line++;
                        }
                    } else if (b != '\r') {
                        throw new IOException(file + " line " + line + ": unexpected byte " + (b & 0xFF) + " in a numeric column");
                    }
                }
            }
            if (field != 0) {
                throw new IOException(file + " line " + line + ": the last row has no line end");
            }
        }
        return new JoinResult(count, sum);
    }
}
