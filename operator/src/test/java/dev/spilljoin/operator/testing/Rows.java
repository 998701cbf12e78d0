package dev.spilljoin.operator.testing;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchBuilder;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rows as boxed values (Long, Integer, Double, Boolean, String, byte[], null) for oracles and assertions, and
 * conversion to and from batches. A multiset of rows is a map from a canonical rendering of a row (exact: -0.0 and
 * 0.0 differ, NaN renders as NaN, byte arrays by content) to its count.
 */
public final class Rows {
    private Rows() {
    }

    public static List<Batch> toBatches(Schema schema, List<Object[]> rows, int batchRows) {
        BatchBuilder builder = new BatchBuilder(schema, batchRows);
        for (Object[] row : rows) {
            builder.addRow(row);
        }
        return builder.build();
    }

    public static Object value(ColumnVector v, int row) {
        if (v.isNull(row)) {
            return null;
        }
        return switch (v.type()) {
            case BIGINT -> v.getLong(row);
            case INTEGER -> v.getInt(row);
            case DOUBLE -> v.getDouble(row);
            case BOOLEAN -> v.getBoolean(row);
            case VARCHAR -> v.getString(row);
            case VARBINARY -> v.getBytes(row);
        };
    }

    public static List<Object[]> fromBatch(Batch batch) {
        List<Object[]> rows = new ArrayList<>();
        for (int r = 0; r < batch.rowCount(); r++) {
            Object[] row = new Object[batch.columnCount()];
            for (int c = 0; c < row.length; c++) {
                row[c] = value(batch.column(c), r);
            }
            rows.add(row);
        }
        return rows;
    }

    public static String render(Object[] row) {
        StringBuilder sb = new StringBuilder("[");
        for (int c = 0; c < row.length; c++) {
            Object v = row[c];
            sb.append(c == 0 ? "" : ", ");
            if (v instanceof byte[] b) {
                sb.append("0x").append(Arrays.toString(b));
            } else if (v instanceof String s) {
                sb.append('"').append(s.length() > 40 ? s.substring(0, 20) + "…(" + s.length() + " chars, hash "
                        + s.hashCode() + ")" : s).append('"');
            } else if (v == null) {
                sb.append("NULL");
            } else {
                sb.append(v).append(':').append(v.getClass().getSimpleName().charAt(0));
            }
        }
        return sb.append(']').toString();
    }

    /** Adds {@code rows} to the multiset {@code counts}. */
    public static void addAll(Map<String, Integer> counts, List<Object[]> rows) {
        for (Object[] row : rows) {
            counts.merge(render(row), 1, Integer::sum);
        }
    }

    public static Map<String, Integer> multiset(List<Object[]> rows) {
        Map<String, Integer> counts = new TreeMap<>();
        addAll(counts, rows);
        return counts;
    }
}
