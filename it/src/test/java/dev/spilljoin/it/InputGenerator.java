package dev.spilljoin.it;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates a {@link JoinCase} from a seed: key columns of a {@link KeyShape} with ids from a
 * {@link KeyDistribution}, between payload columns of every type (BIGINT, INTEGER, DOUBLE with -0.0/NaN/±Infinity
 * among its values, BOOLEAN, VARCHAR with multi-byte UTF-8 and empty strings, VARBINARY), NULLs in keys and payloads.
 * The same seed gives the same rows.
 */
final class InputGenerator {
    private static final int BATCH_ROWS = 4096;
    private static final double[] SPECIAL_DOUBLES = {-0.0, 0.0, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MAX_VALUE};
    private static final String[] STRINGS = {"", "a", "é", "日本語", "𝄞 clef", "tab\there", "back\\slash", "quote\"'",
        "line\nbreak", "a longer string than sixteen bytes"};

    private InputGenerator() {
    }

    static JoinCase generate(KeyDistribution distribution, KeyShape shape, int leftRows, int rightRows,
                             double nullKeyRate, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        KeyDistribution.Sampler sampler = distribution.sampler(leftRows);
        int keyCount = shape.types().size();
        int[] leftKeys = new int[keyCount];
        int[] rightKeys = new int[keyCount];
        Schema left = schema("l_", shape, leftKeys);
        Schema right = schema("r_", shape, rightKeys);
        List<Batch> l = rows(left, leftKeys, shape, leftRows, nullKeyRate, random, sampler, true);
        List<Batch> r = rows(right, rightKeys, shape, rightRows, nullKeyRate, random, sampler, false);
        String description = distribution + " " + shape + " keys, " + leftRows + " x " + rightRows + " rows, "
                + nullKeyRate + " NULL keys, seed " + seed;
        return new JoinCase(description, left, right, leftKeys, rightKeys, l, r);
    }

    /** Payload columns of every type, with the key columns after the first one. */
    private static Schema schema(String prefix, KeyShape shape, int[] keyPositions) {
        List<Column> columns = new ArrayList<>();
        columns.add(Column.of(prefix + "id", ColumnType.BIGINT));
        for (int k = 0; k < shape.types().size(); k++) {
            keyPositions[k] = columns.size();
            columns.add(Column.of(prefix + "k" + k, shape.types().get(k)));
        }
        columns.add(Column.of(prefix + "str", ColumnType.VARCHAR));
        columns.add(Column.of(prefix + "dbl", ColumnType.DOUBLE));
        columns.add(Column.of(prefix + "int", ColumnType.INTEGER));
        columns.add(Column.of(prefix + "bool", ColumnType.BOOLEAN));
        columns.add(Column.of(prefix + "bin", ColumnType.VARBINARY));
        return new Schema(columns);
    }

    private static List<Batch> rows(Schema schema, int[] keys, KeyShape shape, int n, double nullKeyRate,
                                    SplittableRandom random, KeyDistribution.Sampler sampler, boolean left) {
        BatchBuilder b = new BatchBuilder(schema, BATCH_ROWS);
        for (int i = 0; i < n; i++) {
            long id = left ? sampler.leftId(i, random) : sampler.rightId(i, random);
            int nullKey = random.nextDouble() < nullKeyRate ? random.nextInt(keys.length) : -1;
            b.appendLong(0, i);
            for (int k = 0; k < keys.length; k++) {
                if (k == nullKey) {
                    b.appendNull(keys[k]);
                } else {
                    shape.append(b, keys[k], k, id, left);
                }
            }
            int c = keys[keys.length - 1] + 1;
            if (random.nextInt(20) == 0) {
                b.appendNull(c);
            } else {
                b.appendString(c, STRINGS[random.nextInt(STRINGS.length)] + (random.nextBoolean() ? "" : i));
            }
            if (random.nextInt(20) == 0) {
                b.appendNull(c + 1);
            } else {
                b.appendDouble(c + 1, random.nextInt(10) == 0 ? SPECIAL_DOUBLES[random.nextInt(SPECIAL_DOUBLES.length)]
                        : random.nextDouble() * 1e6 - 5e5);
            }
            b.appendInt(c + 2, random.nextInt());
            if (random.nextInt(20) == 0) {
                b.appendNull(c + 3);
            } else {
                b.appendBoolean(c + 3, random.nextBoolean());
            }
            byte[] bin = new byte[random.nextInt(13)];
            for (int j = 0; j < bin.length; j++) {
                bin[j] = (byte) random.nextInt(256);
            }
            b.appendBytes(c + 4, bin);
            b.endRow();
        }
        return b.build();
    }
}
