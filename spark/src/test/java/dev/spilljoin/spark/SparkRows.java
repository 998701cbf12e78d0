package dev.spilljoin.spark;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.util.List;

import static org.apache.spark.sql.functions.col;

/** Result comparison for tests: rows as sorted strings, and a reference result shaped like spilljoin's. */
final class SparkRows {
    private SparkRows() {
    }

    /** The rows collected to the driver as sorted strings: equal lists are equal multisets of rows. */
    static List<String> sorted(Dataset<Row> rows) {
        return rows.collectAsList().stream().map(Row::toString).sorted().toList();
    }

    /** {@code reference} with {@code like}'s column names and types, by position. */
    static Dataset<Row> castLike(Dataset<Row> reference, Dataset<Row> like) {
        String[] names = like.columns();
        Column[] cast = new Column[names.length];
        for (int i = 0; i < names.length; i++) {
            cast[i] = col(SpillJoinSpark.quote(names[i])).cast(like.schema().fields()[i].dataType());
        }
        return reference.toDF(names).select(cast);
    }
}
