package dev.spilljoin.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded random join inputs with NULL keys, duplicate keys and one hot key. Left: (k INT, s STRING, v STRING,
 * x DOUBLE); right: (k BIGINT, s STRING, v STRING, y BOOLEAN), so the key types differ (INT vs BIGINT) and the
 * names k, s and v clash. Keys are in [0, keyRange) with {@value #NULL_PERCENT}% NULL and {@value #HOT_PERCENT}% the
 * hot key {@value #HOT_KEY}; s is one of four strings or NULL (the second key column of multi-key tests).
 */
final class RandomInputs {
    static final int NULL_PERCENT = 8;
    static final int HOT_PERCENT = 12;
    static final long HOT_KEY = 7;

    static final StructType LEFT = DataTypes.createStructType(List.of(
            DataTypes.createStructField("k", DataTypes.IntegerType, true),
            DataTypes.createStructField("s", DataTypes.StringType, true),
            DataTypes.createStructField("v", DataTypes.StringType, true),
            DataTypes.createStructField("x", DataTypes.DoubleType, true)));
    static final StructType RIGHT = DataTypes.createStructType(List.of(
            DataTypes.createStructField("k", DataTypes.LongType, true),
            DataTypes.createStructField("s", DataTypes.StringType, true),
            DataTypes.createStructField("v", DataTypes.StringType, true),
            DataTypes.createStructField("y", DataTypes.BooleanType, true)));

    private RandomInputs() {
    }

    /** The seed from -Dseed, else a random one; logged so a failure can be replayed. */
    static long seed(String test) {
        String given = System.getProperty("seed");
        long seed = given != null ? Long.parseLong(given) : new SplittableRandom().nextLong();
        System.out.println(test + ": seed " + seed + " (replay with -Dseed=" + seed + ")");
        return seed;
    }

    static Dataset<Row> left(SparkSession spark, SplittableRandom random, int rows, int keyRange) {
        List<Row> data = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            Long k = key(random, keyRange);
            data.add(RowFactory.create(k == null ? null : (int) (long) k, tag(random), "l" + i,
                    random.nextInt(10) == 0 ? null : random.nextDouble()));
        }
        return spark.createDataFrame(data, LEFT);
    }

    static Dataset<Row> right(SparkSession spark, SplittableRandom random, int rows, int keyRange) {
        List<Row> data = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            data.add(RowFactory.create(key(random, keyRange), tag(random), random.nextInt(10) == 0 ? null : "r" + i,
                    random.nextInt(10) == 0 ? null : random.nextBoolean()));
        }
        return spark.createDataFrame(data, RIGHT);
    }

    private static Long key(SplittableRandom random, int keyRange) {
        int p = random.nextInt(100);
        if (p < NULL_PERCENT) {
            return null;
        }
        if (p < NULL_PERCENT + HOT_PERCENT) {
            return HOT_KEY;
        }
        return (long) random.nextInt(keyRange);
    }

    private static String tag(SplittableRandom random) {
        int t = random.nextInt(5);
        return t == 4 ? null : "t" + t;
    }
}
