package dev.spilljoin.cli;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;

/**
 * Bulk copies into the operator's {@link ColumnVector}s, shared by the two places the CLI fills batches: a parsed
 * CSV chunk into an input batch ({@link ChunkConverter}) and a join result batch into a batch of the writer
 * thread ({@link BackgroundBatchWriter}).
 *
 * <p>Algorithm: one {@code System.arraycopy} per array (values; for variable-width columns the bytes and the
 * offsets, which start at 0 in the source as in the target), then one {@link ColumnVector#setNull} per set bit of
 * the source's null bitmap, which keeps the target's "may have NULLs" flag right. No object per row or field.
 */
final class VectorCopy {
    private VectorCopy() {
    }

    /** Replaces {@code to}'s rows by a copy of {@code from}'s ({@code to} has {@code from}'s schema). */
    static void batch(Batch from, Batch to) {
        int rows = from.rowCount();
        to.reset();
        to.ensureCapacity(rows);
        for (int c = 0; c < from.columnCount(); c++) {
            ColumnVector source = from.column(c);
            ColumnVector target = to.column(c);
            switch (source.type()) {
                case BIGINT -> System.arraycopy(source.longs(), 0, target.longs(), 0, rows);
                case INTEGER -> System.arraycopy(source.ints(), 0, target.ints(), 0, rows);
                case DOUBLE -> System.arraycopy(source.doubles(), 0, target.doubles(), 0, rows);
                case BOOLEAN -> System.arraycopy(source.booleans(), 0, target.booleans(), 0, rows);
                case VARCHAR, VARBINARY -> bytes(source.bytes(), source.offsets(), target, rows);
            }
            if (source.mayHaveNulls()) {
                nulls(source.nullBitmap(), target, rows);
            }
        }
        to.setRowCount(rows);
    }

    /** Copies {@code rows} variable-width values laid out as {@code offsets} (from 0) into {@code bytes}. */
    static void bytes(byte[] bytes, int[] offsets, ColumnVector target, int rows) {
        if (rows == 0) {
            return;
        }
        int total = offsets[rows];
        target.reserveBytes(0, total); // grows the byte array to hold the whole column; offsets are set just below
        System.arraycopy(bytes, 0, target.bytes(), 0, total);
        System.arraycopy(offsets, 0, target.offsets(), 0, rows + 1);
    }

    /** Marks NULL each of the first {@code rows} rows whose bit is set in {@code bitmap} (later bits are stale). */
    static void nulls(long[] bitmap, ColumnVector target, int rows) {
        int words = (rows + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            long bits = bitmap[w];
            if (w == words - 1 && (rows & 63) != 0) {
                bits &= (1L << rows) - 1;
            }
            while (bits != 0) {
                target.setNull((w << 6) + Long.numberOfTrailingZeros(bits));
                bits &= bits - 1;
            }
        }
    }
}
