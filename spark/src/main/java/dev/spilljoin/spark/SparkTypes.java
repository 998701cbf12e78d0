package dev.spilljoin.spark;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.List;

/**
 * The mapping between Spark's SQL types and the join's column types. Supported directly: LongType (BIGINT),
 * IntegerType (INTEGER), DoubleType (DOUBLE), BooleanType (BOOLEAN), StringType (VARCHAR, UTF-8) and BinaryType
 * (VARBINARY). ByteType and ShortType widen to IntegerType and FloatType to DoubleType (the inputs are cast before
 * the shuffle, so the result has the widened type). Any other type is refused with the column's name and the cast
 * that would make it joinable.
 */
final class SparkTypes {
    private SparkTypes() {
    }

    /** The type a column of {@code type} is cast to before the join (itself when supported as is). */
    static DataType joinable(DataType type, String column, String side) {
        if (type instanceof ByteType || type instanceof ShortType) {
            return DataTypes.IntegerType;
        }
        if (type instanceof FloatType) {
            return DataTypes.DoubleType;
        }
        if (type instanceof LongType || type instanceof IntegerType || type instanceof DoubleType
                || type instanceof BooleanType || type instanceof StringType || type instanceof BinaryType) {
            return type;
        }
        throw new IllegalArgumentException(side + " column '" + column + "' has type " + type.simpleString()
                + ", which spilljoin cannot carry; cast it first (e.g. col(\"" + column + "\").cast(\"string\") for dates "
                + "and timestamps, .cast(\"double\") or .cast(\"string\") for decimals) or leave it out of the join");
    }

    /**
     * The one type both key columns of pair {@code pair} are cast to, so that equal values hash to the same shuffle
     * partition: integral pairs become the wider integral type, numeric pairs with a fractional side DoubleType;
     * other pairs must already agree.
     */
    static DataType commonKeyType(int pair, String leftName, DataType left, String rightName, DataType right) {
        DataType l = joinable(left, leftName, "left");
        DataType r = joinable(right, rightName, "right");
        if (l.equals(r)) {
            return l;
        }
        if (isIntegral(l) && isIntegral(r)) {
            return DataTypes.LongType;
        }
        if (isNumeric(l) && isNumeric(r)) {
            return DataTypes.DoubleType;
        }
        throw new IllegalArgumentException("key pair " + pair + ": left column '" + leftName + "' is " + left.simpleString()
                + " but right column '" + rightName + "' is " + right.simpleString()
                + "; these do not compare as equal values: cast one side to the other's type first");
    }

    private static boolean isIntegral(DataType t) {
        return t instanceof IntegerType || t instanceof LongType;
    }

    private static boolean isNumeric(DataType t) {
        return isIntegral(t) || t instanceof DoubleType;
    }

    /** The join schema of a Spark schema whose columns are all of supported types (see {@link #joinable}). */
    static Schema toSchema(StructType struct) {
        List<Column> columns = new ArrayList<>();
        for (StructField f : struct.fields()) {
            columns.add(new Column(f.name(), toColumnType(f.dataType(), f.name()), f.nullable()));
        }
        return new Schema(columns);
    }

    static ColumnType toColumnType(DataType type, String column) {
        if (type instanceof LongType) {
            return ColumnType.BIGINT;
        }
        if (type instanceof IntegerType) {
            return ColumnType.INTEGER;
        }
        if (type instanceof DoubleType) {
            return ColumnType.DOUBLE;
        }
        if (type instanceof BooleanType) {
            return ColumnType.BOOLEAN;
        }
        if (type instanceof StringType) {
            return ColumnType.VARCHAR;
        }
        if (type instanceof BinaryType) {
            return ColumnType.VARBINARY;
        }
        throw new IllegalArgumentException("column '" + column + "' of type " + type.simpleString()
                + " was not made joinable; this is a bug in the Spark adapter");
    }

    /** The Spark schema of a join result schema. */
    static StructType toStruct(Schema schema) {
        List<StructField> fields = new ArrayList<>();
        for (Column c : schema.columns()) {
            fields.add(DataTypes.createStructField(c.name(), toDataType(c.type()), c.nullable()));
        }
        return DataTypes.createStructType(fields);
    }

    private static DataType toDataType(ColumnType type) {
        return switch (type) {
            case BIGINT -> DataTypes.LongType;
            case INTEGER -> DataTypes.IntegerType;
            case DOUBLE -> DataTypes.DoubleType;
            case BOOLEAN -> DataTypes.BooleanType;
            case VARCHAR -> DataTypes.StringType;
            case VARBINARY -> DataTypes.BinaryType;
        };
    }
}
