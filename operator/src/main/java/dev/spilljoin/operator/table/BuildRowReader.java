package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.ColumnVector;

/**
 * Reads the build side's columns of result rows out of whatever holds the build rows (serialized rows, a direct-index
 * table), by a table-specific row reference: the seam through which {@link OutputWriter} gathers build columns.
 */
public interface BuildRowReader {
    /** Writes field `field` of the build rows `refs[0..count)` (0 = no row: NULL) into `out` rows [outStart, outStart+count). */
    void gather(int field, long[] refs, int count, ColumnVector out, int outStart);

    /** The bytes a build row counts in a result batch when a variable-width build column is projected. */
    int rowBytes(long ref);
}
