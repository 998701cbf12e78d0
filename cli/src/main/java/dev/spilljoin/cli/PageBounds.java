package dev.spilljoin.cli;

import org.apache.parquet.column.statistics.BinaryStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.internal.column.columnindex.BinaryTruncator;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Short minimum and maximum bounds for a byte-array page's statistics, as the Parquet format allows ("more compact
 * values that do not exist on a page", which parquet-java's and DuckDB's writers also write): a minimum or maximum
 * longer than {@value #BOUND_BYTES} bytes becomes a value of at most that many bytes at or below the minimum, or
 * above the maximum, in the column's order (unsigned bytes). The file writer keeps every column chunk's statistics
 * until the footer is written, and the column index keeps every page's: whole values of megabytes there held
 * megabytes per page, row group and column for the whole run, and a few hundred rows of them filled the heap.
 *
 * <p>Algorithm: parquet-java's {@link BinaryTruncator}, which the column index uses too: the minimum's prefix (for
 * text cut between characters, so it stays valid UTF-8), and the maximum's prefix with its last character (or byte,
 * for bytes that are not UTF-8) incremented. A maximum that has no shorter value above it (0xFF bytes up to the
 * bound) stays whole, and parquet-java's file writer leaves out a column chunk's statistics of 4 kB or more. Values
 * of other types (numbers, and byte arrays of at most 16 bytes: DECIMAL, UUID, INT96) are never that long.
 *
 * <p>A value of {@value #VALUE_BOUNDS_FROM} bytes or more enters its page's statistics as its own two bounds
 * ({@link #update}) rather than whole: the statistics copy a value that becomes their minimum or maximum, so each
 * page of values of megabytes held two more copies of one until it was written. A value's bounds are at or below
 * and above it, so the page's minimum and maximum still bound its values. They are cut at
 * {@value #ENTERED_BOUND_BYTES} bytes, twice the final bound: a text is cut between characters, so bounds cut at
 * {@value #BOUND_BYTES} itself can order unlike their values (two values alike up to byte 1,023, the larger with a
 * character of four bytes there, cut before it, the smaller with a letter, cut after it: the larger's bound is a
 * prefix of the smaller's), and the page's minimum came out shorter than its true minimum's; cut further on, two
 * values whose bounds order unlike them are alike far beyond {@value #BOUND_BYTES} bytes, so {@link #shortened}
 * makes the same bytes of either: the bounds of the page's true minimum and maximum (a page of text mixed with bytes
 * that are not UTF-8 may get a wider maximum).
 */
final class PageBounds {
    /** The longest minimum or maximum of a byte-array page kept whole in its statistics. */
    static final int BOUND_BYTES = 1024;
    /**
     * The shortest value entered into a page's statistics as its bounds: far above {@value #BOUND_BYTES}, so that
     * pages of ordinary values do not check each one's UTF-8 as the truncation does, and a page's own copies of its
     * minimum and maximum stay small.
     */
    static final int VALUE_BOUNDS_FROM = 64 << 10;
    /** Where a long value's bounds are cut as it enters its page's statistics (see the class comment). */
    static final int ENTERED_BOUND_BYTES = 2 * BOUND_BYTES;

    private final PrimitiveType type;
    /** parquet-java's truncator for {@code type}; null for a type without byte-array statistics. */
    private final BinaryTruncator truncator;

    PageBounds(PrimitiveType type) {
        this.type = type;
        this.truncator = Statistics.createStats(type) instanceof BinaryStatistics ? BinaryTruncator.getTruncator(type)
                : null;
    }

    /**
     * Enters {@code value} into {@code page}'s statistics (of this column): as its two bounds if it is a byte array
     * of {@value #VALUE_BOUNDS_FROM} bytes or more, else whole.
     */
    void update(Statistics<?> page, Binary value) {
        if (truncator == null || value.length() < VALUE_BOUNDS_FROM) {
            page.updateStats(value);
        } else {
            page.updateStats(truncator.truncateMin(value, ENTERED_BOUND_BYTES));
            page.updateStats(truncator.truncateMax(value, ENTERED_BOUND_BYTES));
        }
    }

    /** {@code page}'s statistics with a minimum or maximum longer than {@value #BOUND_BYTES} shortened; else itself. */
    Statistics<?> shortened(Statistics<?> page) {
        if (truncator == null || !(page instanceof BinaryStatistics values) || !values.hasNonNullValue()
                || Math.max(values.genericGetMin().length(), values.genericGetMax().length()) <= BOUND_BYTES) {
            return page;
        }
        Binary min = truncator.truncateMin(values.genericGetMin(), BOUND_BYTES);
        Binary max = truncator.truncateMax(values.genericGetMax(), BOUND_BYTES);
        return Statistics.getBuilderForReading(type).withMin(min.getBytes()).withMax(max.getBytes())
                .withNumNulls(values.getNumNulls()).build();
    }
}
