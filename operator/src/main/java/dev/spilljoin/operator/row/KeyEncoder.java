package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;

/**
 * Encodes the probe rows' keys of a batch into the exact bytes of a build row's key region ({@link RowLayout}), so
 * that the generic key comparison is a byte comparison (the unchained table's compact rows hold the same key
 * region). Used only for keys that are not a single fixed-width column (those compare by value,
 * {@link KeyHasher#keyValues}).
 *
 * <p>Algorithm: one pass per variable-width key column sums the key lengths, a prefix sum gives each row's start in
 * one reused byte array, then one loop per key column writes that column into every row.
 */
public final class KeyEncoder {
    private final RowLayout layout;
    private final int[] keyColumns;
    private byte[] bytes = new byte[1024];
    private int[] starts = new int[1];
    private int[] cursors = new int[0];

    public KeyEncoder(RowLayout layout, int[] keyColumns) {
        this.layout = layout;
        this.keyColumns = keyColumns.clone();
    }

    public void encode(Batch batch) {
        int n = batch.rowCount();
        if (starts.length < n + 1) {
            starts = new int[n + 1];
            cursors = new int[n];
        }
        int fixed = layout.keyFixedBytes();
        for (int i = 0; i < n; i++) {
            cursors[i] = fixed;
        }
        for (int k = 0; k < keyColumns.length; k++) {
            if (layout.fieldType(k).isVariableWidth()) {
                int[] offsets = batch.column(keyColumns[k]).offsets();
                for (int i = 0; i < n; i++) {
                    cursors[i] += 4 + offsets[i + 1] - offsets[i];
                }
            }
        }
        starts[0] = 0;
        for (int i = 0; i < n; i++) {
            starts[i + 1] = starts[i] + cursors[i];
        }
        if (bytes.length < starts[n] + 8) {
            bytes = new byte[Math.max(starts[n] + 8, bytes.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            cursors[i] = starts[i] + fixed;
        }
        for (int k = 0; k < keyColumns.length; k++) {
            encodeColumn(batch.column(keyColumns[k]), layout.position(k), n);
        }
    }

    private void encodeColumn(ColumnVector v, int pos, int n) {
        byte[] b = bytes;
        int[] s = starts;
        switch (v.type()) {
            case BIGINT -> {
                long[] values = v.longs();
                for (int i = 0; i < n; i++) {
                    HashFunctions.putLongAt(b, s[i] + pos, values[i]);
                }
            }
            case INTEGER -> {
                int[] values = v.ints();
                for (int i = 0; i < n; i++) {
                    HashFunctions.putIntAt(b, s[i] + pos, values[i]);
                }
            }
            case DOUBLE -> {
                double[] values = v.doubles();
                for (int i = 0; i < n; i++) {
                    HashFunctions.putLongAt(b, s[i] + pos, HashFunctions.normalizedDoubleBits(values[i]));
                }
            }
            case BOOLEAN -> {
                boolean[] values = v.booleans();
                for (int i = 0; i < n; i++) {
                    b[s[i] + pos] = (byte) (values[i] ? 1 : 0);
                }
            }
            case VARCHAR, VARBINARY -> {
                int[] offsets = v.offsets();
                byte[] data = v.bytes();
                for (int i = 0; i < n; i++) {
                    int length = offsets[i + 1] - offsets[i];
                    HashFunctions.putIntAt(b, cursors[i], length);
                    System.arraycopy(data, offsets[i], b, cursors[i] + 4, length);
                    cursors[i] += 4 + length;
                }
            }
        }
    }

    /** The encoded key bytes of the last batch; row {@code i} spans {@code [start(i), start(i + 1))}. */
    public byte[] bytes() {
        return bytes;
    }

    public int start(int row) {
        return starts[row];
    }

    public int length(int row) {
        return starts[row + 1] - starts[row];
    }
}
