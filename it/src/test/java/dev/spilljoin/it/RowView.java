package dev.spilljoin.it;

import dev.spilljoin.operator.data.Schema;

/**
 * One row of a join result, read column by column with the types of the result's {@link Schema}: the common view
 * over an operator result batch ({@link BatchRowView}) and a JDBC result set ({@link ResultSetRowView}), so that
 * both sides of a comparison are hashed and rendered by the same code ({@link ResultDigest}).
 */
interface RowView {
    Schema schema();

    boolean isNull(int column);

    long getLong(int column);

    int getInt(int column);

    double getDouble(int column);

    boolean getBoolean(int column);

    /** The bytes of a VARCHAR (UTF-8) or VARBINARY value. */
    byte[] getBytes(int column);
}
