package dev.spilljoin.spark;

import dev.spilljoin.operator.data.ColumnType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * How a column of Spark's internal rows is read into, and written back from, the join's {@link ColumnType}: its
 * physical representation in an {@code InternalRow} and the join type that carries it without loss. BYTE and SHORT
 * ride as INTEGER, FLOAT as DOUBLE, DATE (days) as INTEGER, TIMESTAMP and TIMESTAMP_NTZ (microseconds) as BIGINT,
 * DECIMAL with at most 18 digits as its unscaled BIGINT (both sides of a key pair have one precision and scale,
 * so equal unscaled values are equal decimals). Equality of the carried values is Spark's equality of the values.
 */
enum SparkColumn {
    BYTE(ColumnType.INTEGER),
    SHORT(ColumnType.INTEGER),
    INT(ColumnType.INTEGER),
    LONG(ColumnType.BIGINT),
    FLOAT(ColumnType.DOUBLE),
    DOUBLE(ColumnType.DOUBLE),
    BOOLEAN(ColumnType.BOOLEAN),
    STRING(ColumnType.VARCHAR),
    BINARY(ColumnType.VARBINARY),
    DATE(ColumnType.INTEGER),
    TIMESTAMP(ColumnType.BIGINT),
    DECIMAL64(ColumnType.BIGINT);

    private final ColumnType carrier;

    SparkColumn(ColumnType carrier) {
        this.carrier = carrier;
    }

    /** The join's column type that carries this Spark column. */
    ColumnType carrier() {
        return carrier;
    }

    /** The reading of a Spark type, or null when the join cannot carry it (e.g. wide decimals, arrays, structs). */
    static SparkColumn of(DataType type) {
        if (type instanceof ByteType) {
            return BYTE;
        }
        if (type instanceof ShortType) {
            return SHORT;
        }
        if (type instanceof IntegerType) {
            return INT;
        }
        if (type instanceof LongType) {
            return LONG;
        }
        if (type instanceof FloatType) {
            return FLOAT;
        }
        if (type instanceof DoubleType) {
            return DOUBLE;
        }
        if (type instanceof BooleanType) {
            return BOOLEAN;
        }
        if (type instanceof StringType) {
            return STRING;
        }
        if (type instanceof BinaryType) {
            return BINARY;
        }
        if (type instanceof DateType) {
            return DATE;
        }
        if (type instanceof TimestampType || type instanceof TimestampNTZType) {
            return TIMESTAMP;
        }
        if (type instanceof DecimalType d && d.precision() <= org.apache.spark.sql.types.Decimal.MAX_LONG_DIGITS()) {
            return DECIMAL64;
        }
        return null;
    }

    /** The Spark reading of a join column type as the public-type path casts it (one-to-one). */
    static SparkColumn ofCarrier(ColumnType type) {
        return switch (type) {
            case BIGINT -> LONG;
            case INTEGER -> INT;
            case DOUBLE -> DOUBLE;
            case BOOLEAN -> BOOLEAN;
            case VARCHAR -> STRING;
            case VARBINARY -> BINARY;
        };
    }
}
