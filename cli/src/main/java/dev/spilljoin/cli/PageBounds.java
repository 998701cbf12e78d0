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
 */
final class PageBounds {
    /** The longest minimum or maximum of a byte-array page kept whole in its statistics. */
    static final int BOUND_BYTES = 1024;

    private final PrimitiveType type;
    /** parquet-java's truncator for {@code type}; null for a type without byte-array statistics. */
    private final BinaryTruncator truncator;

    PageBounds(PrimitiveType type) {
        this.type = type;
        this.truncator = Statistics.createStats(type) instanceof BinaryStatistics ? BinaryTruncator.getTruncator(type)
                : null;
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
