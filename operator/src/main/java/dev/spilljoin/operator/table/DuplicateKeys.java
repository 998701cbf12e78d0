package dev.spilljoin.operator.table;

import java.util.Arrays;

/**
 * The duplicate keys a {@link DirectIndexTable} build met, so that a build side whose key is unique but for a few
 * values (a few heavy keys beside a dense surrogate key) can move those keys' rows elsewhere and keep the direct-index
 * table for the rest: the concise hash table's overflow (Barber et al., VLDB 2014), kept out of the table so that no
 * probe pays a second lookup for it.
 *
 * <p>Bounded: at most {@code maxKeys} distinct keys and {@code maxExtraRows} occurrences beyond each key's first;
 * past either the collector is {@link #exceeded} and the build stops at once, as it does without a collector (the
 * key is then not unique enough: the hash table's cost per row is the better bet). Safe beside the build's other
 * threads: they add under this object's lock, which is taken only at a duplicate, never per row.
 */
public final class DuplicateKeys {
    private final int maxKeys;
    private final long maxExtraRows;
    private long[] keys = new long[4];
    private int count;
    private long extraRows;
    private boolean exceeded;

    /** A collector of at most {@code maxKeys} distinct keys with at most {@code maxExtraRows} extra occurrences. */
    public DuplicateKeys(int maxKeys, long maxExtraRows) {
        this.maxKeys = maxKeys;
        this.maxExtraRows = maxExtraRows;
    }

    /** Records one more occurrence of {@code key} beyond its first; false once the bounds are exceeded. */
    synchronized boolean add(long key) {
        if (exceeded || ++extraRows > maxExtraRows) {
            exceeded = true;
            return false;
        }
        int at = Arrays.binarySearch(keys, 0, count, key);
        if (at >= 0) {
            return true;
        }
        if (count == maxKeys) {
            exceeded = true;
            return false;
        }
        at = -at - 1;
        if (count == keys.length) {
            keys = Arrays.copyOf(keys, 2 * count);
        }
        System.arraycopy(keys, at, keys, at + 1, count - at);
        keys[at] = key;
        count++;
        return true;
    }

    /**
     * Whether {@code extraRows} occurrences beyond the keys' first (as many as are certain before the build looks:
     * more keyed rows than range values) fit the bound; when not, the collector is exceeded.
     */
    synchronized boolean fits(long extraRows) {
        if (extraRows > maxExtraRows) {
            exceeded = true;
        }
        return !exceeded;
    }

    /** Whether the bounds were exceeded (the keys recorded are then only some of the duplicates). */
    public synchronized boolean exceeded() {
        return exceeded;
    }

    /** Whether no duplicate key was recorded. */
    public synchronized boolean isEmpty() {
        return count == 0;
    }

    /** The distinct duplicate keys recorded, ascending. */
    public synchronized long[] keys() {
        return Arrays.copyOf(keys, count);
    }
}
