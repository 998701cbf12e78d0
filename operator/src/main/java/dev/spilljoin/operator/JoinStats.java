package dev.spilljoin.operator;

/**
 * What a join did, for EXPLAIN ANALYZE-style reporting: the build side chosen, rows in and out, the table's size
 * and the peak memory reserved. Rendered as JSON by {@link #toJson()}. Filled by the join as it runs; read it after.
 */
public final class JoinStats {
    Side buildSide;
    String joinType;
    long leftRows;
    long rightRows;
    long buildRowsStored;
    long outputRows;
    long outputBatches;
    long rowBytes;
    long tableBuckets;
    long tableBytes;
    long peakReservedBytes;
    long budgetBytes;

    public Side buildSide() {
        return buildSide;
    }

    public long rows(Side side) {
        return side == Side.LEFT ? leftRows : rightRows;
    }

    public long buildRowsStored() {
        return buildRowsStored;
    }

    public long outputRows() {
        return outputRows;
    }

    public long outputBatches() {
        return outputBatches;
    }

    /** Bytes reserved for the serialized build rows (whole pages). */
    public long rowBytes() {
        return rowBytes;
    }

    public long tableBuckets() {
        return tableBuckets;
    }

    public long tableBytes() {
        return tableBytes;
    }

    public long peakReservedBytes() {
        return peakReservedBytes;
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    public String toJson() {
        return "{\"joinType\":\"" + joinType + "\",\"buildSide\":" + (buildSide == null ? "null" : "\"" + buildSide + "\"")
                + ",\"leftRows\":" + leftRows + ",\"rightRows\":" + rightRows
                + ",\"buildRowsStored\":" + buildRowsStored + ",\"outputRows\":" + outputRows
                + ",\"outputBatches\":" + outputBatches + ",\"rowBytes\":" + rowBytes
                + ",\"tableBuckets\":" + tableBuckets + ",\"tableBytes\":" + tableBytes
                + ",\"peakReservedBytes\":" + peakReservedBytes + ",\"budgetBytes\":" + budgetBytes + "}";
    }

    @Override
    public String toString() {
        return toJson();
    }
}
