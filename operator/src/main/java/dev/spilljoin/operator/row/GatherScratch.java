package dev.spilljoin.operator.row;

/**
 * The scratch of a column-at-a-time gather from serialized rows (a result batch's build rows in a table, a block of
 * spilled rows): the addresses of the values of the column being gathered, the input of
 * {@link RowReader#gatherValues}, and per row a cursor at one of its variable-width values, from which the gather of
 * the next variable-width column walks on.
 *
 * <p>Algorithm: a row's variable-width values lie back to back in each of its regions (key, payload), each an int
 * length and its bytes ({@link RowLayout}), so the value at position p of a region is found by skipping the p values
 * before it. A gather of a variable-width field at a position at or after the cursors' (in the same region) skips
 * only the values between ({@link #stepsTo}) and leaves the cursors at its own values ({@link #movedTo}); gathering a
 * region's fields in position order then walks each value of a row once: O(fields) per row, where a walk from the
 * region's start for every field took O(fields²). A gather at an earlier position, or in the other region, starts
 * from the region's first value, as it did before the cursors.
 *
 * <p>Invariants: while the cursors are placed ({@code position >= 0}), {@code cursors[j]} is the address of the
 * value at {@code position} of region {@code key} in the row of index j of the rows being gathered, for every j
 * that has a row; the gatherer calls {@link #newRows} before it gathers other rows. A NULL value is stored with its
 * length like any other (empty), so a cursor steps over it by that length. One gatherer (one thread) owns a scratch; it
 * is two heap arrays of {@code capacity} longs and one of ints, allocated once, and no off-heap memory.
 */
public final class GatherScratch {
    private final long[] addresses;
    private final long[] cursors;
    private final int[] lengths;
    /** The region of the cursors' values: the key region, or the payload region. */
    private boolean key;
    /** The position of the cursors' values in their region; -1 when they are not placed. */
    private int position = -1;

    /** A scratch for gathers of up to {@code capacity} rows at a time. */
    public GatherScratch(int capacity) {
        addresses = new long[capacity];
        cursors = new long[capacity];
        lengths = new int[capacity];
    }

    /** The values' addresses of the column being gathered, a long per row (0 = NULL). */
    public long[] addresses() {
        return addresses;
    }

    /**
     * The lengths of the values of the column being gathered, an int per row, for a gatherer that loads them apart
     * from their bytes (a direct-index table's narrow entries).
     */
    public int[] lengths() {
        return lengths;
    }

    /** The cursors, a variable-width value's address per row (see the class comment). */
    public long[] cursors() {
        return cursors;
    }

    /** Forgets the cursors: the next gather is over other rows. */
    public void newRows() {
        position = -1;
    }

    /**
     * The values to skip from the cursors to position {@code to} of the key region ({@code inKey}) or the payload
     * region, or -1 when the cursors do not lie before it in that region (the gather starts from the region's first
     * value).
     */
    public int stepsTo(boolean inKey, int to) {
        return position >= 0 && key == inKey && to >= position ? to - position : -1;
    }

    /** Records that the cursors now lie at position {@code at} of the key region ({@code inKey}) or payload region. */
    public void movedTo(boolean inKey, int at) {
        key = inKey;
        position = at;
    }
}
