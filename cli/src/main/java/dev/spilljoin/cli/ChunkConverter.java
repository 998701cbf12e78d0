package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns the reader's {@link CsvChunk}s into the operator's {@link Batch}es, and says which operator schema an
 * input has.
 *
 * <p>Schema: a typed key column becomes its type (INTEGER as BIGINT: the chunk holds integral keys as longs, and
 * equality is the same); every other column is VARCHAR holding the field's bytes as read, NULL staying NULL and
 * {@code ""} staying an empty, non-NULL value. Column names are the file's, made unique ({@code name#2}, …) when the
 * header repeats a name (the operator's schemas need unique names; the output header is named separately); the
 * join's pair of schemas is named after the output header and made unique across both sides, so that the
 * operator never has to qualify a name ({@link #joinSchemas}).
 *
 * <p>Algorithm: one bulk step per column, no per-field object and no per-row call except to mark a NULL row:
 * typed keys are one {@code System.arraycopy} of the parsed values; text columns are one copy of the column's
 * bytes and one copy of its offsets (the chunk and the batch both lay a column out as {@code int} offsets into one
 * {@code byte[]}, starting at 0); then the set bits of the chunk's null bitmap are replayed ({@link VectorCopy}).
 */
final class ChunkConverter {
    private ChunkConverter() {
    }

    /** The operator schema of {@code side}: key columns typed as planned, the rest VARCHAR. */
    static Schema schemaOf(InputSide side) {
        return schemaOf(side, side.columnNames(), new HashSet<>());
    }

    /**
     * The operator schemas of a join's two inputs (left, right), named after {@code outputNames} (the left columns'
     * output names, then the right columns' when the join returns them) and unique across both sides.
     */
    static Schema[] joinSchemas(InputSide left, InputSide right, String[] outputNames) {
        Set<String> used = new HashSet<>();
        int leftColumns = left.columnCount();
        String[] rightNames = outputNames.length > leftColumns
                ? Arrays.copyOfRange(outputNames, leftColumns, outputNames.length) : right.columnNames();
        return new Schema[] {schemaOf(left, Arrays.copyOf(outputNames, leftColumns), used),
            schemaOf(right, rightNames, used)};
    }

    /** {@code side}'s schema with its columns named {@code names}, each made unique against {@code used} (kept there). */
    private static Schema schemaOf(InputSide side, String[] names, Set<String> used) {
        ColumnType[] types = side.columnTypes();
        List<Column> columns = new ArrayList<>(names.length);
        for (int c = 0; c < names.length; c++) {
            String name = names[c];
            for (int copy = 2; !used.add(name); copy++) {
                name = names[c] + "#" + copy;
            }
            columns.add(Column.of(name, heldAs(types[c])));
        }
        return new Schema(columns);
    }

    /** The type a column's batch vector has: VARCHAR for a text column (null), BIGINT for an INTEGER key, else its own. */
    static ColumnType heldAs(ColumnType keyType) {
        return keyType == null ? ColumnType.VARCHAR : keyType == ColumnType.INTEGER ? ColumnType.BIGINT : keyType;
    }

    /** Replaces {@code batch}'s rows by {@code chunk}'s (the batch must have {@link #schemaOf} this input's schema). */
    static void copy(CsvChunk chunk, Batch batch) {
        int rows = chunk.rows();
        batch.reset();
        batch.ensureCapacity(rows);
        for (int c = 0; c < chunk.columns(); c++) {
            ColumnVector vector = batch.column(c);
            switch (vector.type()) {
                case BIGINT -> System.arraycopy(chunk.longs(c), 0, vector.longs(), 0, rows);
                case DOUBLE -> System.arraycopy(chunk.doubles(c), 0, vector.doubles(), 0, rows);
                case BOOLEAN -> System.arraycopy(chunk.booleans(c), 0, vector.booleans(), 0, rows);
                case VARCHAR, VARBINARY -> VectorCopy.bytes(chunk.bytes(c), chunk.offsets(c), vector, rows);
                case INTEGER -> throw new IllegalStateException("column " + c + " is INTEGER; inputs hold integral"
                        + " keys as BIGINT (see schemaOf)");
            }
            VectorCopy.nulls(chunk.nulls(c), vector, rows);
        }
        batch.setRowCount(rows);
    }
}
