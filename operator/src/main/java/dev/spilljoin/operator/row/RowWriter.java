package dev.spilljoin.operator.row;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Bitmaps;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.spill.NativeMemory;

/**
 * Serializes the rows of a batch into a {@link RowArena} in the {@link RowLayout} format, column at a time.
 *
 * <p>Algorithm, per batch: (1) one pass per variable-width field sums each row's length; (2) rows get their
 * addresses from the arena in order, stopping at the first refused page; (3) the headers are written; (4) one loop
 * per field writes that field into every row (the type switch outside the loop). The key hash comes from the
 * caller ({@link KeyHasher}); variable-width rows store it, fixed-width rows recompute it from their key when
 * needed ({@link RowLayout#hash}). No object is allocated per row; the per-row arrays are
 * reused across batches.
 */
public final class RowWriter {
    private final RowLayout layout;
    private final RowArena[] single = new RowArena[1];
    private int[] lengths = new int[0];
    private int[] keyLengths = new int[0];
    private int[] cursors = new int[0];
    private int[] selected = new int[0];
    private long[] addresses = new long[0];
    private int written;
    private long writtenBytes;

    public RowWriter(RowLayout layout) {
        this.layout = layout;
    }

    /**
     * Writes rows {@code [from, rowCount)} of {@code batch} (skipping NULL-key rows unless {@code keepNullKeys}) and
     * returns the index of the first row not written: {@code rowCount} when all were, less when the arena refused
     * a page (the caller may free memory and call again from there). {@link #writtenCount()} and
     * {@link #writtenAddresses()} tell which rows were written where.
     */
    public int write(Batch batch, int from, long[] hashes, long[] nullKeys, boolean keepNullKeys, RowArena arena) {
        single[0] = arena;
        return write(batch, from, hashes, nullKeys, keepNullKeys ? null : nullKeys, null, single);
    }

    /**
     * The partitioned form: row {@code i} goes to {@code arenas[partitionOfRow[i]]} ({@code arenas[0]} when
     * {@code partitionOfRow} is null), rows whose bit is set in {@code exclude} (null = none) are not written, and a
     * row whose bit is set in {@code nullKeys} is flagged NULL_KEY. Returns the first row not written, as above;
     * {@link #writtenRows()} gives the batch index of each written row.
     */
    public int write(Batch batch, int from, long[] hashes, long[] nullKeys, long[] exclude, int[] partitionOfRow,
                     RowArena[] arenas) {
        int n = batch.rowCount();
        ensureCapacity(n);
        computeLengths(batch, from, n);
        int m = 0;
        int stop = n;
        long bytes = 0;
        // The rows not excluded, a word of 64 at a time, each found by its bit: no branch per row on whether it is
        // written (the probe pass spills rows of most partitions and keeps the others: such a branch mispredicted
        // on every third row).
        rows:
        for (int w = from >>> 6, words = (n + 63) >>> 6; w < words; w++) {
            int base = w << 6;
            long include = exclude == null ? -1L : ~exclude[w];
            if (base < from) {
                include &= -1L << from;
            }
            if (n - base < 64) {
                include &= (1L << (n - base)) - 1;
            }
            while (include != 0) {
                int i = base + Long.numberOfTrailingZeros(include);
                include &= include - 1;
                boolean nullKey = Bitmaps.isSet(nullKeys, i);
                long address = arenas[partitionOfRow == null ? 0 : partitionOfRow[i]].tryAllocate(lengths[i]);
                if (address == 0) {
                    stop = i;
                    break rows;
                }
                selected[m] = i;
                addresses[m] = address;
                bytes += lengths[i];
                m++;
                layout.writeHeader(address, lengths[i], keyLengths[i], hashes[i], nullKey);
            }
        }
        written = m;
        writtenBytes = bytes;
        for (int f = 0; f < layout.fieldCount(); f++) {
            writeField(batch.column(layout.sourceColumn(f)), f, m);
        }
        return stop;
    }

    /** The serialized length of batch row {@code row}, as the last {@link #write} from a row at or before it computed it. */
    public int lengthOf(int row) {
        return lengths[row];
    }

    /**
     * The largest serialized length among batch rows {@code [from, to)} whose bit is not set in {@code exclude}
     * (null = none), as the last {@link #write} from a row at or before {@code from} computed them.
     */
    public int largestLength(int from, int to, long[] exclude) {
        int largest = 0;
        for (int i = from; i < to; i++) {
            if (exclude == null || !Bitmaps.isSet(exclude, i)) {
                largest = Math.max(largest, lengths[i]);
            }
        }
        return largest;
    }

    /** The serialized bytes of the rows of the last partitioned {@link #write}. */
    public long writtenBytes() {
        return writtenBytes;
    }

    /** Batch indexes of the rows of the last {@link #write}, in order ({@code [0, writtenCount())}). */
    public int[] writtenRows() {
        return selected;
    }

    public int writtenCount() {
        return written;
    }

    /** Addresses of the rows of the last {@link #write}, in batch order ({@code [0, writtenCount())}). */
    public long[] writtenAddresses() {
        return addresses;
    }

    private void ensureCapacity(int n) {
        if (lengths.length < n) {
            lengths = new int[n];
            keyLengths = new int[n];
            cursors = new int[n];
            selected = new int[n];
            addresses = new long[n];
        }
    }

    private void computeLengths(Batch batch, int from, int n) {
        int keyBase = layout.keyFixedBytes();
        for (int i = from; i < n; i++) {
            keyLengths[i] = keyBase;
        }
        for (int f = 0; f < layout.keyCount(); f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                int[] offsets = batch.column(layout.sourceColumn(f)).offsets();
                for (int i = from; i < n; i++) {
                    keyLengths[i] += 4 + offsets[i + 1] - offsets[i];
                }
            }
        }
        int fixed = layout.keyOffset() + layout.payloadFixedBytes();
        for (int i = from; i < n; i++) {
            lengths[i] = fixed + keyLengths[i];
        }
        for (int f = layout.keyCount(); f < layout.fieldCount(); f++) {
            if (layout.fieldType(f).isVariableWidth()) {
                int[] offsets = batch.column(layout.sourceColumn(f)).offsets();
                for (int i = from; i < n; i++) {
                    lengths[i] += 4 + offsets[i + 1] - offsets[i];
                }
            }
        }
        if (layout.hasVariableKey()) {
            for (int i = from; i < n; i++) {
                lengths[i] = layout.paddedLength(lengths[i]);
            }
        }
    }

    private void writeField(ColumnVector v, int f, int m) {
        boolean key = layout.isKey(f);
        int pos = layout.position(f);
        long[] a = addresses;
        int[] sel = selected;
        switch (v.type()) {
            case BIGINT -> {
                long[] values = v.longs();
                for (int j = 0; j < m; j++) {
                    NativeMemory.putLong(fixedAddress(a[j], sel[j], key, pos), values[sel[j]]);
                }
            }
            case INTEGER -> {
                int[] values = v.ints();
                for (int j = 0; j < m; j++) {
                    NativeMemory.putInt(fixedAddress(a[j], sel[j], key, pos), values[sel[j]]);
                }
            }
            case DOUBLE -> {
                double[] values = v.doubles();
                if (key) {
                    for (int j = 0; j < m; j++) {
                        NativeMemory.putLong(fixedAddress(a[j], sel[j], true, pos),
                                HashFunctions.normalizedDoubleBits(values[sel[j]]));
                    }
                } else {
                    for (int j = 0; j < m; j++) {
                        NativeMemory.putLong(fixedAddress(a[j], sel[j], false, pos),
                                Double.doubleToRawLongBits(values[sel[j]]));
                    }
                }
            }
            case BOOLEAN -> {
                boolean[] values = v.booleans();
                for (int j = 0; j < m; j++) {
                    NativeMemory.putByte(fixedAddress(a[j], sel[j], key, pos), (byte) (values[sel[j]] ? 1 : 0));
                }
            }
            case VARCHAR, VARBINARY -> {
                if (pos == 0) {
                    int start = layout.keyOffset() + (key ? layout.keyFixedBytes() : layout.payloadFixedBytes());
                    for (int j = 0; j < m; j++) {
                        cursors[j] = start + (key ? 0 : keyLengths[sel[j]]);
                    }
                }
                int[] offsets = v.offsets();
                byte[] bytes = v.bytes();
                for (int j = 0; j < m; j++) {
                    int i = sel[j];
                    int length = offsets[i + 1] - offsets[i];
                    long p = a[j] + cursors[j];
                    NativeMemory.putInt(p, length);
                    NativeMemory.copyFromArray(bytes, offsets[i], p + 4, length);
                    cursors[j] += 4 + length;
                }
            }
        }
        if (v.mayHaveNulls()) {
            for (int j = 0; j < m; j++) {
                if (v.isNull(sel[j])) {
                    layout.setNull(a[j], f);
                }
            }
        }
    }

    private long fixedAddress(long row, int i, boolean key, int pos) {
        return key
                ? row + layout.keyOffset() + pos
                : row + layout.keyOffset() + keyLengths[i] + pos;
    }
}
