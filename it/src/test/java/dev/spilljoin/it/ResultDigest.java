package dev.spilljoin.it;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An order-independent summary of a multiset of result rows, built row by row from a {@link RowView} in one pass, so
 * that an operator result and an oracle's result can be compared exactly without holding millions of rows.
 *
 * <p>Algorithm: each row gets a 64-bit hash {@code H} of its values (column by column, SplitMix64's finalizer over the
 * value bits: NULL differs from every value, DOUBLE by its bits with every NaN made one NaN and -0.0 kept apart from
 * 0.0, VARCHAR/VARBINARY by their bytes). The digest keeps the row count and two sums modulo 2^64 of two different
 * mixes of {@code H} (a missing, extra, duplicated or changed row changes them except with probability ~2^-64 each),
 * and a sample: the rendered rows whose {@code H} has its low {@code b} bits zero, with their counts. {@code b}
 * starts at 0 (every row is kept: small results are compared exactly, row by row) and grows by one whenever the
 * sample exceeds {@link #MAX_SAMPLED_ROWS} distinct rows, dropping the rows that no longer qualify; two digests are
 * compared at the larger of their {@code b}, so their samples are the same subset of rows by construction.
 *
 * <p>Invariant: the sample holds exactly the rows (with multiplicity) whose hash has its low {@code sampleBits} bits
 * zero.
 */
final class ResultDigest {
    static final int MAX_SAMPLED_ROWS = 4_096;
    private static final long NULL_MARK = 0x5bd1e995_6b43a9b5L;
    private static final long SECOND_SEED = 0xD6E8FEB86659FD93L;
    private static final long CANONICAL_NAN_BITS = Double.doubleToLongBits(Double.NaN);

    private final Schema schema;
    private long rows;
    private long sum1;
    private long sum2;
    private int sampleBits;
    private final Map<String, SampledRow> sample = new HashMap<>();

    private static final class SampledRow {
        final long hash;
        long count;

        SampledRow(long hash) {
            this.hash = hash;
        }
    }

    ResultDigest(Schema schema) {
        this.schema = schema;
    }

    Schema schema() {
        return schema;
    }

    long rowCount() {
        return rows;
    }

    /** Whether every row is in the sample (the comparison is then row by row). */
    boolean isExact() {
        return sampleBits == 0;
    }

    /** Adds the row the view is on. */
    void add(RowView row) {
        long h = rowHash(row);
        rows++;
        sum1 += mix64(h);
        sum2 += mix64(h ^ SECOND_SEED);
        if ((h & ((1L << sampleBits) - 1)) == 0) {
            sample.computeIfAbsent(render(row), k -> new SampledRow(h)).count++;
            if (sample.size() > MAX_SAMPLED_ROWS) {
                sampleBits++;
                prune(sample, sampleBits);
            }
        }
    }

    /**
     * The differences between this digest (the expected result, from an oracle) and {@code actual} (spilljoin's),
     * as a readable report, or the empty string when they are the same multiset (up to hash collisions).
     */
    String differences(ResultDigest actual) {
        StringBuilder out = new StringBuilder();
        if (!schema.equals(actual.schema)) {
            out.append("schemas differ: expected ").append(schema).append(", actual ").append(actual.schema).append('\n');
        }
        if (rows != actual.rows) {
            out.append("row counts differ: expected ").append(rows).append(", actual ").append(actual.rows).append('\n');
        }
        if (sum1 != actual.sum1 || sum2 != actual.sum2) {
            out.append("row checksums differ: expected ").append(Long.toHexString(sum1)).append('/')
                    .append(Long.toHexString(sum2)).append(", actual ").append(Long.toHexString(actual.sum1))
                    .append('/').append(Long.toHexString(actual.sum2)).append('\n');
        }
        int bits = Math.max(sampleBits, actual.sampleBits);
        Map<String, SampledRow> expectedSample = new TreeMap<>(sample);
        Map<String, SampledRow> actualSample = new TreeMap<>(actual.sample);
        prune(expectedSample, bits);
        prune(actualSample, bits);
        List<String> missing = countDifferences(expectedSample, actualSample);
        List<String> extra = countDifferences(actualSample, expectedSample);
        if (!missing.isEmpty() || !extra.isEmpty()) {
            out.append(bits == 0 ? "rows" : "sampled rows (hash low " + bits + " bits zero)").append(" differ: ")
                    .append(missing.size()).append(" missing from the actual result, ").append(extra.size())
                    .append(" extra in it\n");
            missing.stream().limit(10).forEach(r -> out.append("  missing ").append(r).append('\n'));
            extra.stream().limit(10).forEach(r -> out.append("  extra   ").append(r).append('\n'));
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return rows + " rows, checksum " + Long.toHexString(sum1) + "/" + Long.toHexString(sum2) + ", " + sample.size()
                + " distinct rows sampled at " + sampleBits + " bits";
    }

    private static List<String> countDifferences(Map<String, SampledRow> a, Map<String, SampledRow> b) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, SampledRow> e : a.entrySet()) {
            SampledRow other = b.get(e.getKey());
            long surplus = e.getValue().count - (other == null ? 0 : other.count);
            if (surplus > 0) {
                out.add(e.getKey() + (surplus > 1 ? " x" + surplus : ""));
            }
        }
        return out;
    }

    private static void prune(Map<String, SampledRow> sample, int bits) {
        long mask = (1L << bits) - 1;
        sample.values().removeIf(r -> (r.hash & mask) != 0);
    }

    static long rowHash(RowView row) {
        long h = 0x243F6A8885A308D3L;
        Schema schema = row.schema();
        for (int c = 0; c < schema.size(); c++) {
            long v = row.isNull(c) ? NULL_MARK : mix64(valueBits(row, schema.type(c), c));
            h = mix64(h * 0x9E3779B97F4A7C15L + v);
        }
        return h;
    }

    private static long valueBits(RowView row, ColumnType type, int c) {
        return switch (type) {
            case BIGINT -> row.getLong(c);
            case INTEGER -> row.getInt(c);
            case BOOLEAN -> row.getBoolean(c) ? 1 : 0;
            case DOUBLE -> {
                double d = row.getDouble(c);
                yield Double.isNaN(d) ? CANONICAL_NAN_BITS : Double.doubleToRawLongBits(d);
            }
            case VARCHAR, VARBINARY -> bytesHash(row.getBytes(c));
        };
    }

    private static long bytesHash(byte[] bytes) {
        long h = 0xCBF29CE484222325L ^ bytes.length;
        for (byte b : bytes) {
            h = (h ^ (b & 0xFF)) * 0x100000001B3L;
        }
        return mix64(h);
    }

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A row as text, exact: DOUBLE by its shortest decimal (so -0.0 and 0.0 differ), bytes in hex. */
    static String render(RowView row) {
        StringBuilder sb = new StringBuilder("[");
        Schema schema = row.schema();
        for (int c = 0; c < schema.size(); c++) {
            sb.append(c == 0 ? "" : ", ");
            if (row.isNull(c)) {
                sb.append("NULL");
                continue;
            }
            switch (schema.type(c)) {
                case BIGINT -> sb.append(row.getLong(c));
                case INTEGER -> sb.append(row.getInt(c)).append('i');
                case BOOLEAN -> sb.append(row.getBoolean(c));
                case DOUBLE -> sb.append(row.getDouble(c)).append('d');
                case VARCHAR -> sb.append('"').append(new String(row.getBytes(c), java.nio.charset.StandardCharsets.UTF_8))
                        .append('"');
                case VARBINARY -> sb.append("x'").append(HexFormat.of().formatHex(row.getBytes(c))).append('\'');
            }
        }
        return sb.append(']').toString();
    }
}
