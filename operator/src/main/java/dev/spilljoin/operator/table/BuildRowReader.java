package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.row.GatherScratch;

/**
 * Reads the build rows a table hands out as "refs" (a long per row; 0 stands for no row) into result columns: the
 * seam between the tables and {@link OutputWriter}, which knows a build row only by its ref. A ref is whatever its
 * table says (for {@link UnchainedTable}: the address of the row's compact copy; for {@link DirectIndexTable}: the
 * row's index + 1).
 */
public interface BuildRowReader {
    /**
     * Writes field `field` of the build rows `refs[0..count)` (0 = no row: NULL) into `out` rows
     * [outStart, outStart+count), using the caller's `scratch` (for at least `count` rows): a table is read by several
     * workers at once and holds no scratch of its own. The caller gathers the fields of the same refs one after
     * another, calling {@link GatherScratch#newRows} before it gathers other refs; in field order, a row's
     * variable-width values are each walked over once ({@link GatherScratch}).
     */
    void gather(int field, long[] refs, int count, GatherScratch scratch, ColumnVector out, int outStart);

    /** The bytes a build row counts in a result batch when a variable-width build column is projected. */
    int rowBytes(long ref);

    /**
     * The most {@link #rowBytes} gives for any row of this table, known from its build: the result batch counts
     * ahead with it and sizes rows one by one only near its byte limit.
     */
    int maxRowBytes();
}
