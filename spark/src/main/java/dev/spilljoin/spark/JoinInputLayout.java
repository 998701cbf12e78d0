package dev.spilljoin.spark;

import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * How one input of a {@link SpillJoinExec} reaches the join: the child's columns, in order, followed by one column
 * per join key that is not simply a child column (an expression such as {@code k + 1} or Spark's float
 * normalization), evaluated per row by an {@code UnsafeProjection} made in the task; each column read as its
 * {@link SparkColumn}. Invariant: every carried column has a {@link SparkColumn} ({@link #unsupported} says which
 * does not), the first {@link #childColumns()} carried columns are the child's output, and {@link #keys()} index
 * the carried columns.
 */
final class JoinInputLayout implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Seq<Attribute> childOutput;
    private final Seq<Expression> keyExpressions;
    /** The child's output followed by the computed keys; null when every key is a child column. */
    private final Seq<Expression> carried;
    private final int[] keys;
    private final SparkColumn[] columns;
    private final int[] precision;
    private final int[] scale;
    private final boolean[] nullable;

    private JoinInputLayout(Seq<Attribute> childOutput, Seq<Expression> keyExpressions, Seq<Expression> carried,
                            int[] keys, List<Expression> all) {
        this.childOutput = childOutput;
        this.keyExpressions = keyExpressions;
        this.carried = carried;
        this.keys = keys;
        int n = all.size();
        this.columns = new SparkColumn[n];
        this.precision = new int[n];
        this.scale = new int[n];
        this.nullable = new boolean[n];
        for (int c = 0; c < n; c++) {
            DataType type = all.get(c).dataType();
            columns[c] = SparkColumn.of(type);
            if (type instanceof DecimalType d) {
                precision[c] = d.precision();
                scale[c] = d.scale();
            }
            nullable[c] = all.get(c).nullable();
        }
    }

    /** The layout of a child with {@code output} joined on {@code keyExpressions} (checked by {@link #unsupported}). */
    static JoinInputLayout of(Seq<Attribute> output, Seq<Expression> keyExpressions) {
        List<Attribute> attributes = CollectionConverters.asJava(output);
        List<Expression> all = new ArrayList<>(attributes);
        List<Expression> keyList = CollectionConverters.asJava(keyExpressions);
        int[] keys = new int[keyList.size()];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = indexOf(attributes, keyList.get(k));
            if (keys[k] < 0) {
                keys[k] = all.size();
                all.add(keyList.get(k));
            }
        }
        Seq<Expression> carried = all.size() == attributes.size() ? null : CollectionConverters.asScala(all).toList();
        return new JoinInputLayout(output, keyExpressions, carried, keys, all);
    }

    /** Why the join cannot carry this input (a column or key of a type it has no reading for); null when it can. */
    static String unsupported(Seq<Attribute> output, Seq<Expression> keyExpressions, String side) {
        for (Attribute a : CollectionConverters.asJava(output)) {
            if (SparkColumn.of(a.dataType()) == null) {
                return side + " column " + a.name() + " has type " + a.dataType().simpleString();
            }
        }
        for (Expression k : CollectionConverters.asJava(keyExpressions)) {
            if (SparkColumn.of(k.dataType()) == null) {
                return side + " key " + k.sql() + " has type " + k.dataType().simpleString();
            }
        }
        return null;
    }

    private static int indexOf(List<Attribute> attributes, Expression key) {
        if (key instanceof Attribute a) {
            for (int i = 0; i < attributes.size(); i++) {
                if (attributes.get(i).exprId().equals(a.exprId())) {
                    return i;
                }
            }
        }
        return -1;
    }

    int childColumns() {
        return childOutput.size();
    }

    int[] keys() {
        return keys.clone();
    }

    SparkColumn column(int c) {
        return columns[c];
    }

    /** The join's schema of the carried columns (positional names: the join never shows them). */
    Schema schema(String prefix) {
        List<Column> list = new ArrayList<>();
        for (int c = 0; c < columns.length; c++) {
            list.add(new Column(prefix + c, columns[c].carrier(), nullable[c]));
        }
        return new Schema(list);
    }

    /** The child's rows as batches of the carried columns (runs in the task). */
    BatchSource source(Iterator<InternalRow> rows, Schema schema, int batchRows) {
        Iterator<InternalRow> input = rows;
        if (carried != null) {
            UnsafeProjection projection = UnsafeProjection.create(carried, childOutput);
            input = new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return rows.hasNext();
                }

                @Override
                public InternalRow next() {
                    return projection.apply(rows.next());
                }
            };
        }
        return new InternalRowBatchSource(input, schema, columns, precision, scale, batchRows);
    }

    /**
     * Whether some row of {@code rows} has a NULL join key: a Spark job that stops at the first one found (it reads
     * every row only when there is none).
     */
    boolean anyNullKey(RDD<InternalRow> rows) {
        JoinInputLayout layout = this;
        return !rows.toJavaRDD().mapPartitions(partition -> {
            UnsafeProjection keys = layout.keyProjection();
            while (partition.hasNext()) {
                if (keys.apply(partition.next()).anyNull()) {
                    return List.of(true).iterator();
                }
            }
            return java.util.Collections.<Boolean>emptyIterator();
        }).isEmpty();
    }

    /** The rows of {@code rows} whose join keys are all non-NULL (runs in the task). */
    Iterator<InternalRow> withNonNullKeys(Iterator<InternalRow> rows) {
        UnsafeProjection keys = keyProjection();
        return new Iterator<>() {
            private InternalRow next;

            @Override
            public boolean hasNext() {
                while (next == null && rows.hasNext()) {
                    InternalRow row = rows.next();
                    if (!keys.apply(row).anyNull()) {
                        next = row;
                    }
                }
                return next != null;
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                InternalRow row = next;
                next = null;
                return row;
            }
        };
    }

    private UnsafeProjection keyProjection() {
        return UnsafeProjection.create(keyExpressions, childOutput);
    }
}
