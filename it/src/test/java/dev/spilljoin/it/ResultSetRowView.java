package dev.spilljoin.it;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A {@link RowView} over the current row of a JDBC result set, read with the operator's output schema: the SQL
 * query selects the same columns in the same order. Each column is read once per row ({@link #load()}), since
 * JDBC reports NULL only after a read ({@code wasNull}).
 */
final class ResultSetRowView implements RowView {
    private final ResultSet results;
    private final Schema schema;
    private final boolean[] nulls;
    private final long[] longs;
    private final double[] doubles;
    private final byte[][] bytes;

    ResultSetRowView(ResultSet results, Schema schema) {
        this.results = results;
        this.schema = schema;
        int n = schema.size();
        this.nulls = new boolean[n];
        this.longs = new long[n];
        this.doubles = new double[n];
        this.bytes = new byte[n][];
    }

    /** Reads the current row's values. */
    void load() throws SQLException {
        for (int c = 0; c < schema.size(); c++) {
            int jdbc = c + 1;
            ColumnType type = schema.type(c);
            switch (type) {
                case BIGINT -> longs[c] = results.getLong(jdbc);
                case INTEGER -> longs[c] = results.getInt(jdbc);
                case BOOLEAN -> longs[c] = results.getBoolean(jdbc) ? 1 : 0;
                case DOUBLE -> doubles[c] = results.getDouble(jdbc);
                case VARCHAR -> {
                    String s = results.getString(jdbc);
                    bytes[c] = s == null ? null : s.getBytes(StandardCharsets.UTF_8);
                }
                case VARBINARY -> bytes[c] = results.getBytes(jdbc);
            }
            nulls[c] = results.wasNull();
        }
    }

    @Override
    public Schema schema() {
        return schema;
    }

    @Override
    public boolean isNull(int column) {
        return nulls[column];
    }

    @Override
    public long getLong(int column) {
        return longs[column];
    }

    @Override
    public int getInt(int column) {
        return (int) longs[column];
    }

    @Override
    public double getDouble(int column) {
        return doubles[column];
    }

    @Override
    public boolean getBoolean(int column) {
        return longs[column] != 0;
    }

    @Override
    public byte[] getBytes(int column) {
        return bytes[column];
    }
}
